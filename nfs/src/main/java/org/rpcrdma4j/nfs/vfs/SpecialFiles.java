package org.rpcrdma4j.nfs.vfs;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.rpcrdma4j.nfs.FileType;
import org.rpcrdma4j.nfs.Nfs3Status;
import org.rpcrdma4j.nfs.NfsException;

/**
 * FIFOs, sockets and devices on the host's file system, for {@link LocalVfs}. The JDK cannot make a FIFO or a device,
 * and it sets a file's mode without following a link, and its times, through a descriptor it opens for reading:
 * opening a FIFO blocks until a writer comes, so a SETATTR of a FIFO would never return. So:
 * <ul>
 * <li>FIFOs and devices are made by the host's {@code mkfifo} and {@code mknod} commands, with their mode; a socket
 * by binding a UNIX domain socket to the path;</li>
 * <li>a special file's times are set by {@code touch -h}, which sets them by name without opening (utimensat with
 * AT_SYMLINK_NOFOLLOW);</li>
 * <li>its mode by chmod(2) of the path. That follows a symbolic link: the caller has just seen a special file there,
 * under the VFS's hold on names, so only a local process that puts a link in its place in between could redirect
 * it.</li>
 * </ul>
 * A host without these commands answers {@code NFS3ERR_NOTSUPP}.
 */
final class SpecialFiles {
    /** The longest path, in bytes, the JDK binds a UNIX domain socket to on Linux (measured: 107 is refused). */
    static final int MAX_SOCKET_PATH = 106;
    private static final long COMMAND_SECONDS = 10;

    private SpecialFiles() {
    }

    /** Makes {@code p} (which must not exist) of {@code type}, with {@code mode} when not null. */
    static void make(Path p, FileType type, int major, int minor, Integer mode) throws IOException {
        switch (type) {
            case SOCKET -> {
                bindSocket(p);
                if (mode != null) {
                    setMode(p, mode);
                }
            }
            case FIFO -> run(p, withMode(List.of("mkfifo"), mode, List.of("--", p.toString())));
            case CHAR_DEVICE, BLOCK_DEVICE -> run(p, withMode(List.of("mknod"), mode, List.of("--", p.toString(),
                    type == FileType.CHAR_DEVICE ? "c" : "b", Integer.toUnsignedString(major),
                    Integer.toUnsignedString(minor))));
            default -> throw new NfsException(Nfs3Status.NFS3ERR_BADTYPE, "MKNOD of " + type);
        }
    }

    /**
     * Leaves a socket named {@code p} behind. A path too long for a socket address is reached through a symbolic link
     * to its directory in a fresh private temporary directory (the kernel follows links in the directories of the
     * path it binds to).
     */
    private static void bindSocket(Path p) throws IOException {
        if (bytes(p) <= MAX_SOCKET_PATH) {
            bind(p);
            return;
        }
        Path via = Files.createTempDirectory("rpcrdma4j-socket");
        try {
            Path dir = Files.createSymbolicLink(via.resolve("d"), p.getParent());
            Path shorter = dir.resolve(p.getFileName().toString());
            if (bytes(shorter) > MAX_SOCKET_PATH) {
                throw new NfsException(Nfs3Status.NFS3ERR_NAMETOOLONG, "a socket's name of "
                        + bytes(p.getFileName()) + " bytes: this host's socket addresses take at most "
                        + MAX_SOCKET_PATH + " bytes with their directory");
            }
            bind(shorter);
        } finally {
            Files.deleteIfExists(via.resolve("d"));
            Files.deleteIfExists(via);
        }
    }

    private static void bind(Path p) throws IOException {
        try (ServerSocketChannel bound = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            bound.bind(UnixDomainSocketAddress.of(p)); // leaves the socket's name behind when closed
        }
    }

    private static int bytes(Path p) {
        return p.toString().getBytes(StandardCharsets.UTF_8).length;
    }

    /** chmod(2) of the special file at {@code p}: the whole mode, setuid, setgid and sticky too. */
    static void setMode(Path p, int mode) throws IOException {
        Files.setAttribute(p, "unix:mode", mode & 07777); // by path: see the class comment
    }

    /** Sets the times given (null: left alone) of the special file at {@code p}, without opening it. */
    static void setTimes(Path p, FileTime atime, FileTime mtime) throws IOException {
        if (atime != null && atime.equals(mtime)) {
            run(p, List.of("touch", "-h", "-c", "-d", "@" + seconds(atime.toInstant()), "--", p.toString()));
            return;
        }
        if (atime != null) {
            run(p, List.of("touch", "-h", "-c", "-a", "-d", "@" + seconds(atime.toInstant()), "--", p.toString()));
        }
        if (mtime != null) {
            run(p, List.of("touch", "-h", "-c", "-m", "-d", "@" + seconds(mtime.toInstant()), "--", p.toString()));
        }
    }

    /** {@code t} as seconds since the epoch with nine decimals, as {@code touch -d @...} reads it. */
    static String seconds(Instant t) {
        long s = t.getEpochSecond();
        int n = t.getNano();
        if (s < 0 && n > 0) {
            return "-" + (-s - 1) + "." + String.format("%09d", 1_000_000_000 - n);
        }
        return s + "." + String.format("%09d", n);
    }

    private static List<String> withMode(List<String> command, Integer mode, List<String> rest) {
        List<String> all = new ArrayList<>(command);
        if (mode != null) {
            all.add("-m");
            all.add(Integer.toOctalString(mode & 07777));
        }
        all.addAll(rest);
        return all;
    }

    /**
     * Runs {@code command} about {@code p}; a failure becomes the exception its message names (the text after its last
     * ": ", the C library's description of the error, which {@link IoErrors} maps).
     */
    private static void run(Path p, List<String> command) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().put("LC_ALL", "C");
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new NfsException(Nfs3Status.NFS3ERR_NOTSUPP, "this host has no " + command.get(0) + " command to "
                    + "make or change a special file: " + e.getMessage(), e);
        }
        String output;
        try {
            process.getOutputStream().close();
            output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!process.waitFor(COMMAND_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IOException(command.get(0) + " did not finish within " + COMMAND_SECONDS + " s");
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while " + command.get(0) + " ran", e);
        }
        if (process.exitValue() != 0) {
            int colon = output.lastIndexOf(": ");
            String reason = colon < 0 ? output : output.substring(colon + 2);
            throw new FileSystemException(p.toString(), null, reason.isEmpty() ? command.get(0) + " failed with "
                    + "status " + process.exitValue() : reason);
        }
    }
}
