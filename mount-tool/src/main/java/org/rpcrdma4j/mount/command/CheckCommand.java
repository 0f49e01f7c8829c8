package org.rpcrdma4j.mount.command;

import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

import org.rpcrdma4j.mount.CliException;
import org.rpcrdma4j.mount.ExitCode;
import org.rpcrdma4j.mount.Io;
import org.rpcrdma4j.mount.check.DataMismatchException;
import org.rpcrdma4j.mount.check.RandomIo;
import org.rpcrdma4j.mount.cli.Converters;
import org.rpcrdma4j.mount.cli.Sizes;
import org.rpcrdma4j.mount.client.RemotePaths;
import org.rpcrdma4j.mount.client.Session;
import org.rpcrdma4j.mount.client.Transfers;
import org.rpcrdma4j.nfs.CreateMode;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.FsInfo;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.nfs.SetAttributes;
import org.rpcrdma4j.nfs.client.NfsMount;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code check URL}: random I/O on a file created for the run, every byte the server returns checked against what was
 * written ({@link RandomIo}); then the whole file read back and compared. READs and WRITEs are of up to
 * {@code --io-size} or the server's largest, whichever is smaller. A difference exits with
 * {@link ExitCode#VERIFY}, names the operation, the bytes and the seed, and keeps the file.
 */
@Command(name = "check", mixinStandardHelpOptions = true,
        description = {"Random READs, WRITEs, truncations, COMMITs and bursts of calls in flight on a new file, every "
                + "byte checked against what was written.",
                "Exits with status 6 on the first difference and keeps the file; --seed runs the same operations "
                        + "again."})
final class CheckCommand extends ClientCommand {
    @Option(names = "--ops", paramLabel = "N", defaultValue = "2000",
            description = "Operations to run; a burst of calls in flight counts as one (default: ${DEFAULT-VALUE}).")
    int ops;

    @Option(names = "--seed", paramLabel = "N", description = "The run's seed (default: a new one, printed).")
    Long seed;

    @Option(names = "--file-size", paramLabel = "SIZE", defaultValue = "8M", converter = Converters.IntSize.class,
            description = "The largest the file grows (default: ${DEFAULT-VALUE}).")
    int fileSize;

    @Option(names = "--no-holes", description = {"Write no holes: WRITEs start within the file, truncations grow it "
            + "within its last page.", "For servers that read holes wrong (Linux knfsd before 6.5 on tmpfs)."})
    boolean noHoles;

    @Option(names = "--file", paramLabel = "PATH",
            description = "The file inside the export (it must not exist; default: a new hidden name in the root).")
    String file;

    @Option(names = "--keep", description = "Keep the file (it is always kept when the check finds a difference).")
    boolean keep;

    CheckCommand(Io io) {
        super(io);
    }

    @Override
    long bufferBytes() {
        // a burst: 16 WRITEs, then 16 READs, of up to --io-size each
        return 17L * options.ioSize() + (16L << 20);
    }

    @Override
    public Integer call() throws Exception {
        if (ops < 1) {
            throw new CliException(ExitCode.USAGE, "--ops must be positive: " + ops);
        }
        if (fileSize < 1 || fileSize > (1 << 30)) {
            throw new CliException(ExitCode.USAGE, "--file-size must be within 1..1G: " + fileSize);
        }
        return super.call();
    }

    @Override
    int run(Session session) throws Exception {
        NfsMount nfs = session.nfs();
        long s = seed != null ? seed : ThreadLocalRandom.current().nextLong();
        String path = RemotePaths.resolve("/", file != null ? file : "/" + Transfers.temporaryName("rpcrdma-check"));
        FsInfo info = nfs.fsinfo(nfs.root());
        int maxIo = Math.min(options.ioSize(), info.largestIo());
        FileHandle dir;
        FileHandle fh;
        try {
            dir = nfs.resolve(RemotePaths.parent(path));
            fh = nfs.create(dir, RemotePaths.name(path), CreateMode.GUARDED, SetAttributes.NONE.withSize(0)).handle();
        } catch (NfsException e) {
            throw Transfers.remote(path, e);
        }
        io.out().printf(Locale.ROOT, "check %s://%s:%d%s (NFSv%s): file %s, %d operations, seed %d, READ and WRITE of "
                        + "up to %s, file of up to %s%s%n", session.url().scheme(), session.url().host(),
                session.url().port(), session.url().export(), nfs.version(), path, ops, s, Sizes.format(maxIo),
                Sizes.format(fileSize), noHoles ? ", no holes" : "");
        io.out().flush();
        RandomIo check = new RandomIo(nfs, fh, fileSize, maxIo, s);
        if (noHoles) {
            check.withoutHoles();
        }
        long t0 = System.nanoTime();
        boolean remove = !keep;
        try {
            check.run(ops);
            byte[] expected = check.expected();
            byte[] back = RandomIo.readBack(nfs, path);
            int at = Arrays.mismatch(back, expected);
            if (at >= 0) {
                throw new DataMismatchException("the file read back whole (" + back.length + " bytes) differs from "
                        + "what was written (" + expected.length + " bytes) from byte " + at);
            }
        } catch (DataMismatchException e) {
            // kept for a look
            remove = false;
            throw new CliException(ExitCode.VERIFY, path + ": " + e.getMessage() + "\nthe file is kept; run again "
                    + "with --seed " + s + " for the same operations", e);
        } catch (NfsException e) {
            throw Transfers.remote(path, e);
        } finally {
            // after any other failure too (the server refused an operation, the connection broke, Ctrl-C), if the
            // server answers within a few seconds
            if (remove) {
                Transfers.removeQuietly(nfs, dir, RemotePaths.name(path));
            }
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        io.out().printf(Locale.ROOT, "ok: %s, in %.1f s%n", check, seconds);
        io.out().flush();
        return 0;
    }
}
