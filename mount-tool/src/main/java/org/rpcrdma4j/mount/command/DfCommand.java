package org.rpcrdma4j.mount.command;

import org.rpcrdma4j.mount.Io;
import org.rpcrdma4j.mount.client.Formats;
import org.rpcrdma4j.mount.client.Session;
import picocli.CommandLine.Command;

/** {@code df URL}: the export's size, use and free space (FSSTAT). */
@Command(name = "df", mixinStandardHelpOptions = true, description = "Show the export's space and file counts.")
final class DfCommand extends ClientCommand {
    DfCommand(Io io) {
        super(io);
    }

    @Override
    int run(Session session) throws Exception {
        io.out().print(Formats.df(session.url().export(), session.nfs().fsstat(session.nfs().root())));
        io.out().flush();
        return 0;
    }
}
