package org.rpcrdma4j.mount;

import java.io.InputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.Charset;

/**
 * The streams a command talks through: the process's own, or a test's. Commands never touch {@code System.in/out/err}
 * directly, so that they run unchanged in-process under a test.
 *
 * @param in       where the shell reads commands
 * @param out      results
 * @param err      error lines, progress bars, logs of the command itself
 * @param terminal whether a person is watching (stdin and stdout are a terminal): progress bars, line editing
 */
public record Io(InputStream in, PrintWriter out, PrintWriter err, boolean terminal) {

    /** The process's streams; {@code terminal} when the JVM has a console. */
    public static Io system() {
        Charset cs = Charset.defaultCharset();
        return new Io(System.in, new PrintWriter(new OutputStreamWriter(System.out, cs), true),
                new PrintWriter(new OutputStreamWriter(System.err, cs), true), System.console() != null);
    }
}
