package org.rpcrdma4j.mount.command;

import java.nio.file.Path;
import java.util.Locale;

import org.rpcrdma4j.mount.Io;
import org.rpcrdma4j.mount.client.Formats;
import org.rpcrdma4j.mount.client.RemotePaths;
import org.rpcrdma4j.mount.client.Session;
import org.rpcrdma4j.mount.client.Transfers;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code get URL REMOTE [LOCAL]}: downloads a file. The data goes to a hidden temporary file next to the target and
 * is renamed over it only when complete; an interrupted or failed download leaves nothing under the target's name.
 */
@Command(name = "get", mixinStandardHelpOptions = true, description = "Download a remote file.")
final class GetCommand extends ClientCommand {
    @Parameters(index = "1", paramLabel = "REMOTE", description = "Path of the file inside the export.")
    String remote;

    @Parameters(index = "2", arity = "0..1", paramLabel = "LOCAL", defaultValue = ".",
            description = "Local file, or directory to download into (default: the current directory).")
    Path local = Path.of(".");

    GetCommand(Io io) {
        super(io);
    }

    @Override
    int run(Session session) throws Exception {
        long start = System.nanoTime();
        Transfers.Result r = Transfers.download(session.nfs(), RemotePaths.resolve("/", remote), local);
        long nanos = System.nanoTime() - start;
        io.out().println(String.format(Locale.ROOT, "%s -> %s: %d bytes in %.3f s (%.1f MB/s)",
                RemotePaths.resolve("/", remote), r.path(), r.bytes(), nanos / 1e9,
                Formats.mbPerSecond(r.bytes(), nanos)));
        io.out().flush();
        return 0;
    }
}
