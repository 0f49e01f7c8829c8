package org.rpcrdma4j.mount.shell;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/** Where the shell's lines come from: a terminal with line editing, or plain standard input (scripts, tests). */
public interface LineSource extends AutoCloseable {

    /** The next line, or null at the end of input; {@link Interrupted} when Ctrl-C was typed at the prompt. */
    String readLine(String prompt) throws IOException;

    /**
     * Runs {@code command} so that Ctrl-C interrupts it (the thread running it) instead of ending the program, where
     * the source can tell (a terminal); plain input leaves Ctrl-C to the process.
     */
    default void runInterruptibly(Runnable command) {
        command.run();
    }

    @Override
    void close();

    /** Ctrl-C at the prompt: the line typed so far is dropped. */
    final class Interrupted extends IOException {
        private static final long serialVersionUID = 1L;

        public Interrupted() {
            super("interrupted");
        }
    }

    /** Lines from a stream, no prompt, no editing. */
    static LineSource plain(InputStream in) {
        BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
        return new LineSource() {
            @Override
            public String readLine(String prompt) throws IOException {
                return reader.readLine();
            }

            @Override
            public void close() {
                // the stream belongs to the caller
            }
        };
    }
}
