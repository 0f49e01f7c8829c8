package org.rpcrdma4j.mount.command;

import java.util.concurrent.Callable;

import org.rpcrdma4j.mount.Io;
import org.rpcrdma4j.mount.cli.ClientOptions;
import org.rpcrdma4j.mount.cli.Converters;
import org.rpcrdma4j.mount.client.Session;
import org.rpcrdma4j.mount.stats.StatsReport;
import org.rpcrdma4j.nfs.client.NfsUrl;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * A command on one mount: parses the URL and the client options, mounts, runs, prints the counters when asked
 * ({@code --stats}), unmounts. Failures propagate to the one exception handler that turns them into a line and an
 * exit status.
 */
abstract class ClientCommand implements Callable<Integer> {
    protected final Io io;

    @Parameters(index = "0", paramLabel = "URL", converter = Converters.Url.class,
            description = "rdma://host[:port]/export[?mountport=N] or tcp://host[:port]/export")
    NfsUrl url;

    @Mixin
    ClientOptions options = new ClientOptions();

    @Option(names = "--stats", description = "Print the transport's counters (mountstats layout) at the end.")
    boolean stats;

    @Option(names = "--json", description = "With --stats: print the counters as JSON.")
    boolean json;

    ClientCommand(Io io) {
        this.io = io;
    }

    @Override
    public Integer call() throws Exception {
        try (Session session = Session.open(url, options, bufferBytes())) {
            int code = run(session);
            if (stats) {
                printStats(session);
            }
            return code;
        }
    }

    /** Registered memory the command takes from the transport's pool for its own buffers (0: none). */
    long bufferBytes() {
        return 0;
    }

    /** The command's work on the mounted session; returns the exit status. */
    abstract int run(Session session) throws Exception;

    void printStats(Session session) {
        io.out().print(json ? StatsReport.json(session.stats()) + "\n" : StatsReport.text(session.stats()));
        io.out().flush();
    }
}
