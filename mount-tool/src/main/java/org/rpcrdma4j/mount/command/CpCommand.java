package org.rpcrdma4j.mount.command;

import java.util.Locale;

import org.rpcrdma4j.mount.CliException;
import org.rpcrdma4j.mount.ExitCode;
import org.rpcrdma4j.mount.Io;
import org.rpcrdma4j.mount.client.RemotePaths;
import org.rpcrdma4j.mount.client.Session;
import org.rpcrdma4j.nfs.FileAttributes;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.Nfs3Status;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.nfs.client.v4.Nfs41Client;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code cp URL SOURCE TARGET}: copies a remote file to another path of the same export within the server, with
 * NFSv4.2's COPY: the bytes never pass through this machine. For checking a server's COPY, and for copies of large
 * files over a slow link to the server.
 */
@Command(name = "cp", mixinStandardHelpOptions = true,
        description = {"Copy a remote file within the server (NFSv4.2 COPY): the bytes do not pass through this "
            + "machine."})
final class CpCommand extends ClientCommand {
    @Parameters(index = "1", paramLabel = "SOURCE", description = "A regular file inside the export.")
    String source;

    @Parameters(index = "2", paramLabel = "TARGET",
            description = "Remote file (created or emptied first), or existing directory to copy into.")
    String target;

    CpCommand(Io io) {
        super(io);
    }

    @Override
    int run(Session session) throws Exception {
        if (!(session.nfs() instanceof Nfs41Client nfs) || nfs.session().minorVersion() < 2) {
            throw new CliException(ExitCode.USAGE, "a copy within the server needs NFSv4.2, and this mount speaks "
                    + "NFS " + session.nfs().version() + ": leave ?vers= out of the URL or make it 4.2, or copy "
                    + "with get and put");
        }
        String from = RemotePaths.resolve("/", source);
        String to = RemotePaths.resolve("/", target);
        if (isDirectory(nfs, to)) {
            to = RemotePaths.child(to, RemotePaths.name(from));
        }
        FileHandle src = nfs.resolve(from);
        nfs.writeAll(to, new byte[0]);
        FileHandle dst = nfs.resolve(to);
        long start = System.nanoTime();
        long copied = nfs.copy(src, 0, dst, 0, 0);
        long nanos = System.nanoTime() - start;
        nfs.close(src);
        nfs.close(dst);
        io.out().println(String.format(Locale.ROOT, "%s -> %s: %d bytes copied within the server in %.3f s", from, to,
                copied, nanos / 1e9));
        io.out().flush();
        return 0;
    }

    private static boolean isDirectory(Nfs41Client nfs, String path) throws Exception {
        try {
            FileAttributes a = nfs.stat(path);
            return a.isDirectory();
        } catch (NfsException e) {
            if (e.status() == Nfs3Status.NFS3ERR_NOENT) {
                return false;
            }
            throw e;
        }
    }
}
