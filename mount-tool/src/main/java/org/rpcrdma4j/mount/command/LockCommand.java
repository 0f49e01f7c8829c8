package org.rpcrdma4j.mount.command;

import java.time.Duration;
import java.util.Optional;

import org.rpcrdma4j.mount.CliException;
import org.rpcrdma4j.mount.ExitCode;
import org.rpcrdma4j.mount.Io;
import org.rpcrdma4j.mount.cli.Converters;
import org.rpcrdma4j.mount.client.RemotePaths;
import org.rpcrdma4j.mount.client.Session;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.client.v4.LockConflict;
import org.rpcrdma4j.nfs.client.v4.LockType;
import org.rpcrdma4j.nfs.client.v4.Nfs41AsyncClient;
import org.rpcrdma4j.nfs.client.v4.Nfs41Client;
import org.rpcrdma4j.nfs.v4.LockRanges;
import org.rpcrdma4j.nfs.v4.Nfs4Exception;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code lock URL PATH}: a byte-range lock on a remote file over NFSv4.1 or 4.2, taken, held for a while and let go;
 * or, with {@code --test}, only asked about. For checking that locks work across the clients of a set-up: a lock held
 * here keeps the others out, and a lock held elsewhere is named when it keeps this one out.
 */
@Command(name = "lock", mixinStandardHelpOptions = true,
        description = {"Take a byte-range lock on a remote file (NFSv4.1 or 4.2), hold it, and let it go.",
            "A lock held by another client is named; the exit status is then 2."})
final class LockCommand extends ClientCommand {
    @Parameters(index = "1", paramLabel = "PATH", description = "A regular file inside the export.")
    String path;

    @Option(names = "--read", description = "A shared (READ) lock; the default is an exclusive (WRITE) lock.")
    boolean read;

    @Option(names = "--offset", paramLabel = "BYTES", converter = Converters.LongSize.class, defaultValue = "0",
            description = "The first byte (default: ${DEFAULT-VALUE}).")
    long offset;

    @Option(names = "--length", paramLabel = "BYTES", converter = Converters.LongSize.class, defaultValue = "0",
            description = "How many bytes; 0 locks to the end of the file, however it grows (default).")
    long length;

    @Option(names = "--hold", paramLabel = "DURATION", converter = Converters.DurationConverter.class,
            defaultValue = "0s", description = "How long to hold the lock before letting it go (default: "
            + "${DEFAULT-VALUE}); Ctrl-C lets it go sooner.")
    Duration hold;

    @Option(names = "--wait", paramLabel = "DURATION", converter = Converters.DurationConverter.class,
            defaultValue = "0s", description = "How long to wait for locks in the way to go (default: "
            + "${DEFAULT-VALUE}: fail at once).")
    Duration wait;

    @Option(names = "--test", description = "Only ask whether the lock could be taken (LOCKT).")
    boolean test;

    LockCommand(Io io) {
        super(io);
    }

    @Override
    int run(Session session) throws Exception {
        if (!(session.nfs() instanceof Nfs41Client nfs)) {
            throw new CliException(ExitCode.USAGE, "byte-range locks need NFSv4.1 or later, and this mount speaks NFS "
                    + session.nfs().version() + ": add ?vers=4.1 or ?vers=4.2 to the URL (NFSv3 locks through NLM, "
                    + "which this tool does not speak)");
        }
        long bytes = length == 0 ? Nfs41AsyncClient.TO_END : length;
        String range;
        try {
            range = LockRanges.text(offset, LockRanges.last(offset, bytes));
        } catch (Nfs4Exception e) {
            throw new CliException(ExitCode.USAGE, "--offset " + offset + " --length " + length
                    + ": the range passes the last byte offset (2^64 - 1)");
        }
        String p = RemotePaths.resolve("/", path);
        FileHandle fh = nfs.resolve(p);
        LockType type = read ? LockType.READ : LockType.WRITE;
        String what = type + " lock of " + range + " of " + p;
        if (test) {
            Optional<LockConflict> conflict = nfs.testLock(fh, type, offset, bytes);
            io.out().println(conflict.map(c -> "held elsewhere: " + c).orElse("free: a " + what + " can be taken"));
            io.out().flush();
            return conflict.isPresent() ? ExitCode.NFS.code() : 0;
        }
        if (wait.isZero()) {
            nfs.lock(fh, type, offset, bytes);
        } else {
            nfs.lock(fh, type, offset, bytes, wait);
        }
        io.out().println("locked: " + what);
        io.out().flush();
        if (!hold.isZero()) {
            Thread.sleep(hold.toMillis());
        }
        nfs.unlock(fh, offset, bytes);
        nfs.close(fh);
        io.out().println("unlocked");
        io.out().flush();
        return 0;
    }
}
