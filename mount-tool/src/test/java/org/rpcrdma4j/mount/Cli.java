package org.rpcrdma4j.mount;

import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;

/** Runs the tool in-process, as {@code java -jar mount-tool.jar ARGS} would, and captures what it printed. */
public final class Cli {
    /** Exit status and output of one run. */
    public record Result(int code, String out, String err) {
        @Override
        public String toString() {
            return "exit " + code + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    private Cli() {
    }

    /** A command running on its own thread, its output readable while it runs. */
    public static final class Running {
        private final StringWriter out = new StringWriter();
        private final StringWriter err = new StringWriter();
        private final java.util.concurrent.CompletableFuture<Integer> code = new java.util.concurrent.CompletableFuture<>();
        private final Thread thread;

        Running(String[] args) {
            Io io = new Io(new ByteArrayInputStream(new byte[0]), new PrintWriter(out, true), new PrintWriter(err, true),
                    false);
            thread = new Thread(() -> {
                try {
                    code.complete(Main.commandLine(io).execute(args));
                } catch (Throwable t) {
                    code.completeExceptionally(t);
                }
            }, "cli-" + args[0]);
            thread.start();
        }

        public String out() {
            return out.toString();
        }

        /** Waits until stdout contains {@code text}. */
        public String awaitOutput(String text, long seconds) throws InterruptedException {
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(seconds);
            while (!out.toString().contains(text)) {
                if (System.nanoTime() - deadline > 0 || code.isDone()) {
                    throw new AssertionError("no '" + text + "' in time; stdout:\n" + out + "stderr:\n" + err);
                }
                Thread.sleep(20);
            }
            return out.toString();
        }

        /** Interrupts the command (as Ctrl-C does) and waits for its result. */
        public Result interrupt(long seconds) throws Exception {
            thread.interrupt();
            int c = code.get(seconds, java.util.concurrent.TimeUnit.SECONDS);
            return new Result(c, out.toString(), err.toString());
        }
    }

    /** Starts a command on its own thread. */
    public static Running start(String... args) {
        return new Running(args);
    }

    public static Result run(String... args) {
        return runWithInput("", args);
    }

    /** Runs with {@code stdin} as standard input (not a terminal). */
    public static Result runWithInput(String stdin, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        Io io = new Io(new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)), new PrintWriter(out, true),
                new PrintWriter(err, true), false);
        int code = Main.commandLine(io).execute(args);
        return new Result(code, out.toString(), err.toString());
    }
}
