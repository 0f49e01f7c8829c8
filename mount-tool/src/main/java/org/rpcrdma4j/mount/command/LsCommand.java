package org.rpcrdma4j.mount.command;

import java.util.Comparator;
import java.util.List;

import org.rpcrdma4j.mount.Io;
import org.rpcrdma4j.mount.client.Listing;
import org.rpcrdma4j.mount.client.RemotePaths;
import org.rpcrdma4j.mount.client.Session;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code ls URL [PATH]}: the entries of a remote directory (or the file itself), sorted by name. */
@Command(name = "ls", mixinStandardHelpOptions = true, description = "List a remote directory.")
final class LsCommand extends ClientCommand {
    @Parameters(index = "1", arity = "0..1", paramLabel = "PATH", defaultValue = "/",
            description = "Path inside the export (default: the export's root).")
    String path = "/";

    @Option(names = "-l", description = "Long listing: mode, links, owner, group, size, modification time.")
    boolean longFormat;

    LsCommand(Io io) {
        super(io);
    }

    @Override
    int run(Session session) throws Exception {
        List<Listing.Entry> entries = Listing.list(session.nfs(), RemotePaths.resolve("/", path));
        entries.sort(Comparator.comparing(Listing.Entry::name));
        for (Listing.Entry e : entries) {
            io.out().println(e.format(longFormat));
        }
        io.out().flush();
        return 0;
    }
}
