package org.rpcrdma4j.mount;

import java.lang.reflect.Constructor;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import picocli.CommandLine;

/**
 * The entry point of {@code mount-tool.jar}. Configures logging before anything else (slf4j-simple reads its
 * settings once, when the first logger is made), runs one command and exits with its {@link ExitCode}.
 * <p>
 * Ctrl-C: a shutdown hook interrupts the command's thread and gives it a few seconds to stop cleanly (remove partial
 * files, close connections and ports) before the JVM ends; the process then exits with the signal's status (130).
 * <p>
 * Tests run commands in-process through {@link #commandLine(Io)} and {@link CommandLine#execute}.
 */
public final class Main {
    /** How long Ctrl-C waits for the command to clean up. */
    private static final long CLEANUP_SECONDS = 10;

    private Main() {
    }

    public static void main(String[] args) {
        Logging.configure(Logging.verbosity(args));
        Io io = Io.system();
        Thread command = Thread.currentThread();
        AtomicBoolean signalled = new AtomicBoolean();
        CountDownLatch finished = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (finished.getCount() == 0) {
                return; // normal exit
            }
            signalled.set(true);
            command.interrupt();
            try {
                finished.await(CLEANUP_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "rpcrdma-shutdown"));
        int code;
        try {
            code = commandLine(io).execute(args);
        } finally {
            io.out().flush();
            io.err().flush();
            finished.countDown();
        }
        if (!signalled.get()) {
            System.exit(code); // while a signal's shutdown runs, exit() would block: the JVM is ending anyway
        }
    }

    /** The command line over {@code io}, with the tool's error handling and exit codes. */
    public static CommandLine commandLine(Io io) {
        CommandLine.IFactory factory = new Factory(io);
        RootCommand root = new RootCommand();
        CommandLine cmd = new CommandLine(root, factory);
        root.addCommands(cmd, factory);
        cmd.setOut(io.out());
        cmd.setErr(io.err());
        cmd.setCaseInsensitiveEnumValuesAllowed(true);
        Map<String, String> codes = new LinkedHashMap<>();
        for (ExitCode c : ExitCode.values()) {
            codes.put(Integer.toString(c.code()), c.meaning());
        }
        cmd.getCommandSpec().usageMessage().exitCodeListHeading("%nExit codes:%n").exitCodeList(codes);
        cmd.setParameterExceptionHandler((ex, args) -> {
            String command = ex.getCommandLine().getCommandName();
            String help = "rpcrdma".equals(command) ? "rpcrdma --help" : "rpcrdma " + command + " --help";
            io.err().println("rpcrdma: " + ex.getMessage() + " (see '" + help + "')");
            if (Logging.verbosity(args) > 0) {
                ex.printStackTrace(io.err());
            }
            io.err().flush();
            return ExitCode.USAGE.code();
        });
        cmd.setExecutionExceptionHandler((ex, commandLine, parseResult) -> {
            Failures.Failure f = Failures.classify(ex);
            io.err().println("rpcrdma " + commandLine.getCommandName() + ": " + f.message());
            if (Logging.verbosity(parseResult.originalArgs().toArray(new String[0])) > 0) {
                ex.printStackTrace(io.err());
            }
            io.err().flush();
            return f.exitCode().code();
        });
        return cmd;
    }

    /** Makes commands, handing the {@link Io} to those that take it. */
    private static final class Factory implements CommandLine.IFactory {
        private final Io io;
        private final CommandLine.IFactory fallback = CommandLine.defaultFactory();

        Factory(Io io) {
            this.io = io;
        }

        @Override
        public <K> K create(Class<K> cls) throws Exception {
            try {
                Constructor<K> c = cls.getDeclaredConstructor(Io.class);
                c.setAccessible(true);
                return c.newInstance(io);
            } catch (NoSuchMethodException e) {
                return fallback.create(cls);
            }
        }
    }
}
