package org.rpcrdma4j.mount.command;

import org.rpcrdma4j.mount.Io;
import org.rpcrdma4j.mount.client.Session;
import picocli.CommandLine.Command;

/**
 * {@code stats URL}: mounts, makes a round trip (NULL, GETATTR and FSINFO of the root) and prints the transport's
 * counters in the mountstats layout, or as JSON with {@code --json}.
 */
@Command(name = "stats", mixinStandardHelpOptions = true,
        description = "Mount, make a few round trips, and print the transport counters (mountstats layout or --json).")
final class StatsCommand extends ClientCommand {
    StatsCommand(Io io) {
        super(io);
    }

    @Override
    int run(Session session) throws Exception {
        session.nfs().ping();
        session.nfs().getattr(session.nfs().root());
        session.nfs().fsinfo(session.nfs().root());
        stats = true;
        return 0;
    }
}
