package org.rpcrdma4j.mount.command;

import org.rpcrdma4j.mount.Io;
import org.rpcrdma4j.mount.client.Formats;
import org.rpcrdma4j.mount.client.RemotePaths;
import org.rpcrdma4j.mount.client.Session;
import org.rpcrdma4j.mount.client.Transfers;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code stat URL [PATH]}: a remote file's attributes. */
@Command(name = "stat", mixinStandardHelpOptions = true, description = "Show a remote file's attributes.")
final class StatCommand extends ClientCommand {
    @Parameters(index = "1", arity = "0..1", paramLabel = "PATH", defaultValue = "/",
            description = "Path inside the export (default: the export's root).")
    String path = "/";

    StatCommand(Io io) {
        super(io);
    }

    @Override
    int run(Session session) throws Exception {
        String p = RemotePaths.resolve("/", path);
        io.out().print(Formats.stat(p, Transfers.stat(session.nfs(), p)));
        io.out().flush();
        return 0;
    }
}
