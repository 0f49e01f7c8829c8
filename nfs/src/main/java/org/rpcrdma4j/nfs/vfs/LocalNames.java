package org.rpcrdma4j.nfs.vfs;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import org.rpcrdma4j.nfs.Nfs3Status;
import org.rpcrdma4j.nfs.NfsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Names of a {@link LocalVfs} between NFS (UTF-8 strings) and the local file system (bytes), which the JDK converts
 * with the JVM's file name encoding ({@code sun.jnu.encoding}, from the locale it started in: ASCII under the C or
 * POSIX locale). A name it cannot convert both ways is not one this VFS can serve: an entry whose bytes do not decode
 * (not UTF-8 under a UTF-8 locale; not ASCII under C) is left out of listings, and a client's name the encoding
 * cannot represent is not found (LOOKUP, REMOVE) or refused (NFS3ERR_INVAL for a new name). The first entry left out
 * is logged at WARN, later ones at DEBUG.
 */
final class LocalNames {
    private static final Logger LOG = LoggerFactory.getLogger(LocalVfs.class);
    private static final AtomicBoolean WARNED = new AtomicBoolean();

    private LocalNames() {
    }

    /** The JVM's file name encoding. */
    static String encoding() {
        return System.getProperty("sun.jnu.encoding", "unknown");
    }

    /** The name of a directory entry as NFS carries it, or null (logged) when it does not convert back to its bytes. */
    static String nameOf(Path entry) {
        Path fileName = entry.getFileName();
        String name = fileName.toString();
        try {
            if (fileName.getFileSystem().getPath(name).equals(fileName)) {
                return name;
            }
        } catch (InvalidPathException e) {
            // decoded with replacement characters the encoding cannot write back
        }
        if (WARNED.compareAndSet(false, true)) {
            LOG.warn("left out of listings: {} (its name's bytes are not valid in the JVM's file name encoding, {}; "
                    + "start the JVM in a UTF-8 locale, e.g. LC_ALL=C.UTF-8); further such names are logged at DEBUG",
                    entry, encoding());
        } else {
            LOG.debug("left out of listings: {} (not valid in {})", entry, encoding());
        }
        return null;
    }

    /**
     * {@code dir}'s entry {@code name} (a client's name, already checked as one component), or {@code status} when
     * the file name encoding cannot represent it.
     */
    static Path child(Path dir, String name, Nfs3Status status) throws NfsException {
        try {
            return dir.resolve(name);
        } catch (InvalidPathException e) {
            throw new NfsException(status, "the server's file name encoding (" + encoding()
                    + ") cannot represent the name " + escaped(name));
        }
    }

    private static String escaped(String name) {
        StringBuilder b = new StringBuilder();
        name.codePoints().forEach(c -> b.append(c >= 0x20 && c < 0x7f ? Character.toString(c)
                : String.format("\\u{%x}", c)));
        return b.toString();
    }
}
