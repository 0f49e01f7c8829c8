package org.rpcrdma4j.mount.client;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.rpcrdma4j.mount.CliException;
import org.rpcrdma4j.mount.ExitCode;
import org.rpcrdma4j.mount.Failures;
import org.rpcrdma4j.nfs.CreateMode;
import org.rpcrdma4j.nfs.FileAttributes;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.nfs.SetAttributes;
import org.rpcrdma4j.nfs.client.NfsMount;
import org.rpcrdma4j.nfs.client.v4.Nfs41Client;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * File copies that never leave a partial file under the final name. A download goes to a hidden temporary file in
 * the target's directory and is renamed over the target only once complete; an upload goes to a hidden temporary
 * name in the remote directory and is renamed at the end. On failure or interruption the temporary file is removed
 * (remotely with a bounded wait, so that Ctrl-C stays prompt) and the original error is thrown.
 */
public final class Transfers {
    private static final Logger LOG = LoggerFactory.getLogger(Transfers.class);
    private static final SecureRandom RANDOM = new SecureRandom();
    /** How long removing a remote temporary file may take after a failure. */
    private static final long CLEANUP_SECONDS = 5;

    private Transfers() {
    }

    /** The longest name NFS and Linux's file systems take, in bytes of UTF-8. */
    static final int MAX_NAME_BYTES = 255;

    /**
     * The name partial data is kept under, next to {@code name}: a dot, {@code name}, ".part-" and 8 random hex
     * digits; {@code name} is cut short (between characters) where the whole would pass {@link #MAX_NAME_BYTES}.
     */
    public static String temporaryName(String name) {
        byte[] r = new byte[4];
        RANDOM.nextBytes(r);
        String suffix = ".part-" + HexFormat.of().formatHex(r);
        return "." + leading(name, MAX_NAME_BYTES - 1 - suffix.length()) + suffix;
    }

    /** The longest start of {@code name} whose UTF-8 takes at most {@code max} bytes. */
    private static String leading(String name, int max) {
        int bytes = 0;
        int i = 0;
        while (i < name.length()) {
            int c = name.codePointAt(i);
            int n = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
            if (bytes + n > max) {
                break;
            }
            bytes += n;
            i += Character.charCount(c);
        }
        return name.substring(0, i);
    }

    /** Whether {@code name} is one {@link #temporaryName} made. */
    public static boolean isTemporaryName(String name) {
        return name.startsWith(".") && name.matches("\\..*\\.part-[0-9a-f]{8}");
    }

    /**
     * Copies remote {@code remotePath} to {@code local} (a file, or a directory to put it in under the remote name);
     * returns the local file written and the bytes copied.
     */
    public static Result download(NfsMount nfs, String remotePath, Path local) throws IOException {
        String name = RemotePaths.name(remotePath);
        Path target = Files.isDirectory(local) ? local.resolve(name.isEmpty() ? "root" : name) : local;
        Path dir = target.toAbsolutePath().getParent();
        if (dir == null || !Files.isDirectory(dir)) {
            throw new CliException(ExitCode.LOCAL, (dir == null ? target : dir) + ": no such local directory");
        }
        FileAttributes a = stat(nfs, remotePath);
        if (a.isDirectory()) {
            throw new CliException(ExitCode.NFS, remotePath + ": is a directory");
        }
        Path temp = dir.resolve(temporaryName(target.getFileName().toString()));
        try {
            long n = nfs.download(remotePath, temp);
            move(temp, target);
            return new Result(target.toString(), n);
        } catch (IOException | RuntimeException | Error e) {
            boolean interrupted = Thread.currentThread().isInterrupted();
            deleteQuietly(temp);
            if (interrupted) {
                throw asInterruption(e);
            }
            throw e;
        }
    }

    /**
     * Copies {@code local} to remote {@code remotePath} (a file, or an existing directory to put it in under the local
     * name); returns the remote path written and the bytes copied.
     */
    public static Result upload(NfsMount nfs, Path local, String remotePath) throws IOException {
        if (!Files.exists(local)) {
            throw new NoSuchFileException(local.toString());
        }
        if (Files.isDirectory(local)) {
            throw new CliException(ExitCode.LOCAL, local + ": is a directory (copy files one by one)");
        }
        if (!Files.isReadable(local)) {
            throw new CliException(ExitCode.LOCAL, local + ": permission denied");
        }
        String target = RemotePaths.resolve("/", remotePath);
        FileAttributes existing = statOrNull(nfs, target);
        if (existing != null && existing.isDirectory()) {
            target = RemotePaths.child(target, local.getFileName().toString());
            existing = statOrNull(nfs, target);
        }
        return throughTemporary(nfs, target, modeFor(existing, localMode(local)), temp -> nfs.upload(local, temp));
    }

    /** The mode of a file made where none can be read from the source. */
    static final int DEFAULT_MODE = 0644;

    /**
     * The mode a copy gets, as {@code cp} gives it: a target that exists keeps its permission bits, a new one takes
     * the source's ({@code sourceMode}); setuid, setgid and sticky are not copied.
     */
    static int modeFor(FileAttributes existingTarget, int sourceMode) {
        return (existingTarget != null && existingTarget.isRegularFile() ? existingTarget.mode() : sourceMode) & 0777;
    }

    /** The permission bits of a local file, or {@link #DEFAULT_MODE} where its file system has none. */
    static int localMode(Path local) throws IOException {
        try {
            int mode = 0;
            for (PosixFilePermission p : Files.getPosixFilePermissions(local)) {
                mode |= 0400 >> p.ordinal(); // OWNER_READ .. OTHERS_EXECUTE
            }
            return mode;
        } catch (UnsupportedOperationException e) {
            return DEFAULT_MODE;
        }
    }

    /** Fills a remote file just made; returns the bytes it holds. */
    @FunctionalInterface
    private interface Filling {
        long fill(String remoteTemp) throws IOException;
    }

    /**
     * Writes {@code target} through a hidden temporary name in its directory: the file is made, {@code filling} fills
     * it, and it is renamed over the target only then. A failed or interrupted filling removes it: nothing incomplete
     * is ever left under the target's name.
     */
    private static Result throughTemporary(NfsMount nfs, String target, int mode, Filling filling)
            throws IOException {
        String dirPath = RemotePaths.parent(target);
        FileHandle dir;
        try {
            dir = nfs.resolve(dirPath);
        } catch (NfsException e) {
            throw remote(dirPath, e);
        }
        String tempName = temporaryName(RemotePaths.name(target));
        String temp = RemotePaths.child(dirPath, tempName);
        boolean created = false;
        try {
            // a fresh name; the mode given, since a server may give a CREATE without one mode 0 (Linux's does)
            nfs.create(dir, tempName, CreateMode.UNCHECKED, SetAttributes.NONE.withSize(0).withMode(mode));
            created = true;
            long n = filling.fill(temp);
            nfs.rename(temp, target);
            created = false;
            return new Result(target, n);
        } catch (IOException | RuntimeException | Error e) {
            boolean interrupted = Thread.currentThread().isInterrupted();
            if (created) {
                removeQuietly(nfs, dir, tempName);
            }
            if (interrupted) {
                throw asInterruption(e);
            }
            if (e instanceof NfsException n) {
                throw remote(target, n);
            }
            throw e;
        }
    }

    /**
     * The failure of a transfer whose thread was interrupted, as an interruption: an interrupt closes the local file's
     * channel, so the copy may fail with a misleading error ("shrank", "closed") rather than an interruption.
     */
    private static IOException asInterruption(Throwable e) {
        if (e instanceof IOException io && Failures.isInterruption(io)) {
            return io;
        }
        InterruptedIOException i = new InterruptedIOException("interrupted");
        i.initCause(e);
        return i;
    }

    /**
     * Copies the remote file {@code remoteSource} to {@code remoteTarget} (a file, or an existing directory to copy
     * into) within the server, with NFSv4.2's COPY: the bytes do not pass through this client. As with
     * {@link #upload}, the copy goes to a hidden temporary name beside the target and is renamed over it when
     * complete, so a failed copy leaves the target as it was, and a copy of a file onto itself leaves it whole.
     * With {@code clone}, NFSv4.2's CLONE instead: the copy shares the source's storage on the server, as
     * {@code cp --reflink} asks (a server whose file system cannot answers NFS4ERR_NOTSUPP).
     *
     * @throws CliException {@link ExitCode#USAGE} when the mount does not speak NFSv4.2, {@link ExitCode#NFS} for the
     *                      server's refusals, naming the path
     */
    public static Result copyWithinServer(NfsMount nfs, String remoteSource, String remoteTarget, boolean clone)
            throws IOException {
        if (!(nfs instanceof Nfs41Client v4) || v4.session().minorVersion() < 2) {
            throw new CliException(ExitCode.USAGE, "a copy within the server needs NFSv4.2, and this mount speaks "
                    + "NFS " + nfs.version() + ": leave ?vers= out of the URL or make it 4.2, or copy with get and "
                    + "put");
        }
        FileAttributes existing = statOrNull(nfs, remoteTarget);
        String target = existing != null && existing.isDirectory()
                ? RemotePaths.child(remoteTarget, RemotePaths.name(remoteSource)) : remoteTarget;
        FileHandle src;
        int sourceMode;
        try {
            src = v4.resolve(remoteSource);
            sourceMode = v4.getattr(src).mode();
        } catch (NfsException e) {
            throw remote(remoteSource, e);
        }
        FileAttributes replaced = target.equals(remoteTarget) ? existing : statOrNull(nfs, target);
        return throughTemporary(nfs, target, modeFor(replaced, sourceMode), temp -> {
            FileHandle dst = v4.resolve(temp);
            try {
                if (clone) {
                    v4.clone(src, 0, dst, 0, 0);
                    return v4.getattr(dst).size();
                }
                return v4.copy(src, 0, dst, 0, 0);
            } finally {
                // both closed before the rename, which replaces the source when it is the target
                closeQuietly(v4, dst);
                closeQuietly(v4, src);
            }
        });
    }

    private static void closeQuietly(Nfs41Client nfs, FileHandle fh) {
        try {
            nfs.close(fh);
        } catch (IOException | RuntimeException e) {
            LOG.debug("CLOSE of {} after a copy: {}", fh, e.toString());
        }
    }

    /** What a transfer wrote: the path (local or remote) and the byte count. */
    public record Result(String path, long bytes) {
    }

    /** GETATTR of a path, with the path in the error. */
    public static FileAttributes stat(NfsMount nfs, String path) throws IOException {
        try {
            return nfs.stat(path);
        } catch (NfsException e) {
            throw remote(path, e);
        }
    }

    private static FileAttributes statOrNull(NfsMount nfs, String path) throws IOException {
        try {
            return nfs.stat(path);
        } catch (NfsException e) {
            if (e.status() == org.rpcrdma4j.nfs.Nfs3Status.NFS3ERR_NOENT) {
                return null;
            }
            throw remote(path, e);
        }
    }

    /** An NFS error about {@code path}, as one line. */
    public static CliException remote(String path, NfsException e) {
        return new CliException(ExitCode.NFS, path + ": " + Failures.describe(e.status()), e);
    }

    private static void move(Path from, Path to) throws IOException {
        try {
            Files.move(from, to, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    private static void deleteQuietly(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException e) {
            LOG.warn("could not remove the partial file {}: {}", p, e.toString());
        }
    }

    /**
     * Removes a command's own remote file (a partial transfer, a benchmark or check file), waiting a bounded time;
     * runs with the interrupt flag cleared (the RPC layer refuses to wait otherwise) and restores it. A failure is
     * only logged.
     */
    public static void removeQuietly(NfsMount nfs, FileHandle dir, String name) {
        boolean interrupted = Thread.interrupted();
        try {
            CompletableFuture<Void> f = nfs.async().remove(dir, name);
            f.get(CLEANUP_SECONDS, TimeUnit.SECONDS);
        } catch (Exception e) {
            LOG.warn("could not remove the remote file {}: {}", name, e.toString());
            if (e instanceof InterruptedException) {
                interrupted = true;
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
