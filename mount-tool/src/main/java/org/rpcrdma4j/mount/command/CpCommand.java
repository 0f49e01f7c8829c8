package org.rpcrdma4j.mount.command;

import java.util.Locale;

import org.rpcrdma4j.mount.Io;
import org.rpcrdma4j.mount.client.RemotePaths;
import org.rpcrdma4j.mount.client.Session;
import org.rpcrdma4j.mount.client.Transfers;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code cp URL SOURCE TARGET}: copies a remote file to another path of the same export within the server, with
 * NFSv4.2's COPY ({@link Transfers#copyWithinServer}): the bytes never pass through this machine. For checking a
 * server's COPY, and for copies of large files over a slow link to the server.
 */
@Command(name = "cp", mixinStandardHelpOptions = true,
        description = {"Copy a remote file within the server (NFSv4.2 COPY): the bytes do not pass through this "
            + "machine."})
final class CpCommand extends ClientCommand {
    @Parameters(index = "1", paramLabel = "SOURCE", description = "A regular file inside the export.")
    String source;

    @Parameters(index = "2", paramLabel = "TARGET",
            description = "Remote file (replaced once the copy is complete), or existing directory to copy into.")
    String target;

    @Option(names = "--clone", description = "Share the source's storage on the server instead (NFSv4.2 CLONE, as "
            + "cp --reflink): refused by a server whose file system cannot.")
    boolean clone;

    CpCommand(Io io) {
        super(io);
    }

    @Override
    int run(Session session) throws Exception {
        long start = System.nanoTime();
        String from = RemotePaths.resolve("/", source);
        Transfers.Result r = Transfers.copyWithinServer(session.nfs(), from, RemotePaths.resolve("/", target), clone);
        long nanos = System.nanoTime() - start;
        io.out().println(String.format(Locale.ROOT, "%s -> %s: %d bytes %s within the server in %.3f s", from,
                r.path(), r.bytes(), clone ? "cloned" : "copied", nanos / 1e9));
        io.out().flush();
        return 0;
    }
}
