package org.rpcrdma4j.mount;

import org.rpcrdma4j.mount.command.Commands;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/** The top-level command: global options and the list of commands. */
@Command(name = "rpcrdma", mixinStandardHelpOptions = true, versionProvider = RootCommand.Version.class,
        description = {"NFS over RDMA (RPC-over-RDMA v1, RFC 8166) for the JVM.",
                "Start with 'rpcrdma demo'; URLs look like rdma://host[:20049]/export[?mountport=2049] or "
                        + "tcp://host[:2049]/export."},
        commandListHeading = "%nCommands:%n", synopsisSubcommandLabel = "COMMAND")
public final class RootCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Option(names = {"-v", "--verbose"}, scope = ScopeType.INHERIT,
            description = "More logging (-v info, -vv debug) and stack traces with errors.")
    boolean[] verbose = new boolean[0];

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "missing command (try 'rpcrdma --help')");
    }

    /** Adds every command. */
    void addCommands(CommandLine cmd, CommandLine.IFactory factory) {
        for (Class<?> c : Commands.all()) {
            cmd.addSubcommand(new CommandLine(c, factory));
        }
    }

    /** The version from the jar's manifest. */
    public static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = RootCommand.class.getPackage().getImplementationVersion();
            return new String[] {"rpcrdma4j mount-tool " + (v == null ? "(development build)" : v),
                    "Java " + System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + ")"};
        }
    }
}
