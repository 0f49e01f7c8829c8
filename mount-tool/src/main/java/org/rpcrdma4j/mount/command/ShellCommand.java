package org.rpcrdma4j.mount.command;

import java.nio.file.Path;

import org.rpcrdma4j.mount.Io;
import org.rpcrdma4j.mount.client.Session;
import org.rpcrdma4j.mount.shell.LineSource;
import org.rpcrdma4j.mount.shell.Shell;
import org.rpcrdma4j.mount.shell.TerminalLineSource;
import picocli.CommandLine.Command;

/**
 * {@code shell URL}: an interactive session on a mount, with line editing, history and completion on a terminal;
 * from a pipe or file it reads one command per line (scripts, tests) and prints no prompt.
 */
@Command(name = "shell", mixinStandardHelpOptions = true,
        description = {"Interactive session on a mount: ls, cd, pwd, stat, get, put, cat, rm, mkdir, rmdir, mv, df, "
                + "stats, lcd, lpwd, help, quit.",
                "Reads commands from standard input when it is not a terminal; the exit status is that of the last "
                        + "command that failed (0 when none did)."})
final class ShellCommand extends ClientCommand {
    ShellCommand(Io io) {
        super(io);
    }

    @Override
    int run(Session session) throws Exception {
        Shell shell = new Shell(session, io.out(), io.err(), Path.of(""));
        boolean interactive = io.terminal() && io.in() == System.in;
        try (LineSource lines = interactive ? new TerminalLineSource(Shell.commandNames(), shell::complete)
                : LineSource.plain(io.in())) {
            return shell.run(lines, interactive);
        }
    }
}
