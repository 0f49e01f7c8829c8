package org.rpcrdma4j.mount.command;

import java.util.Locale;
import java.util.Optional;

/**
 * The JVM's file name encoding ({@code sun.jnu.encoding}, from the locale it started in), which turns the exported
 * directory's names into NFS's UTF-8 strings and back: {@code serve DIR} warns when it is not UTF-8, since names it
 * cannot convert are then left out of listings and cannot be made.
 */
final class FileNameEncoding {
    private FileNameEncoding() {
    }

    /** This JVM's. */
    static String current() {
        return System.getProperty("sun.jnu.encoding", "unknown");
    }

    /** The warning {@code serve DIR} prints for {@code encoding}, or none for UTF-8. */
    static Optional<String> warning(String encoding) {
        String e = encoding.toUpperCase(Locale.ROOT).replace("-", "").replace("_", "");
        if (e.equals("UTF8")) {
            return Optional.empty();
        }
        return Optional.of("warning: the JVM's file name encoding is " + encoding + ", not UTF-8: files whose names"
                + " it cannot represent are left out of listings, and clients cannot make or look up such names;"
                + " start it in a UTF-8 locale (e.g. LC_ALL=C.UTF-8, which the rpcrdma launcher sets when the"
                + " locale is not UTF-8)");
    }
}
