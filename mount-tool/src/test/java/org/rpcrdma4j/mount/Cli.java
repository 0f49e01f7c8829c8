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
