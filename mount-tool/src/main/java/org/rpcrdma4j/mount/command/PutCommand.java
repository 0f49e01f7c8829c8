package org.rpcrdma4j.mount.command;

import java.nio.file.Path;
import java.util.Locale;

import org.rpcrdma4j.mount.Io;
import org.rpcrdma4j.mount.client.Formats;
import org.rpcrdma4j.mount.client.Session;
import org.rpcrdma4j.mount.client.Transfers;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code put URL LOCAL [REMOTE]}: uploads a file. The data goes to a hidden temporary name in the remote directory
 * and is renamed at the end; an interrupted or failed upload removes it.
 */
@Command(name = "put", mixinStandardHelpOptions = true, description = "Upload a local file.")
final class PutCommand extends ClientCommand {
    @Parameters(index = "1", paramLabel = "LOCAL", description = "The local file.")
    Path local;

    @Parameters(index = "2", arity = "0..1", paramLabel = "REMOTE", defaultValue = "/",
            description = "Remote file, or existing directory to upload into (default: the export's root).")
    String remote = "/";

    PutCommand(Io io) {
        super(io);
    }

    @Override
    int run(Session session) throws Exception {
        long start = System.nanoTime();
        Transfers.Result r = Transfers.upload(session.nfs(), local, remote);
        long nanos = System.nanoTime() - start;
        io.out().println(String.format(Locale.ROOT, "%s -> %s: %d bytes in %.3f s (%.1f MB/s)", local, r.path(),
                r.bytes(), nanos / 1e9, Formats.mbPerSecond(r.bytes(), nanos)));
        io.out().flush();
        return 0;
    }
}
