package org.rpcrdma4j.mount;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.UnresolvedAddressException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

import org.rpcrdma4j.nfs.Nfs3Status;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.nfs.client.MountException;
import org.rpcrdma4j.nfs.client.RpcCallException;
import org.rpcrdma4j.nfs.client.RpcTimeoutException;
import org.rpcrdma4j.verbs.VerbsException;
import picocli.CommandLine;

/**
 * Turns any failure into one line for stderr and an {@link ExitCode}. Commands throw what they get (or a
 * {@link CliException} when they know more); this is the one place that decides how it reads to a user.
 */
public final class Failures {

    /** What the user sees: the exit status and one line. */
    public record Failure(ExitCode exitCode, String message) {
    }

    private Failures() {
    }

    /** Classifies {@code t} (wrappers such as {@link CompletionException} are looked through). */
    public static Failure classify(Throwable t) {
        Throwable e = unwrap(t);
        if (e instanceof CommandLine.ParameterException p) {
            return new Failure(ExitCode.USAGE, p.getMessage());
        }
        if (isInterruption(e)) { // before any explanation of the failure: the user stopped it
            return new Failure(ExitCode.INTERRUPTED, "interrupted");
        }
        if (e instanceof CliException c) {
            return new Failure(c.exitCode(), c.getMessage());
        }
        if (e instanceof NfsException n) {
            return new Failure(ExitCode.NFS, describe(n.status()) + " (" + n.getMessage() + ")");
        }
        if (e instanceof MountException m) {
            String why = switch (m.status()) {
                case MNT3ERR_ACCES -> " (not exported, or not to this host)";
                case MNT3ERR_NOENT -> " (no such directory in the export)";
                case MNT3ERR_NOTDIR -> " (not a directory)";
                default -> "";
            };
            return new Failure(ExitCode.NFS, "mount refused: " + m.getMessage() + why);
        }
        if (e instanceof RpcTimeoutException r) {
            return new Failure(ExitCode.TRANSPORT, "the server did not answer in time: " + r.getMessage()
                    + " (see --timeout)");
        }
        if (e instanceof RpcCallException r) {
            return new Failure(ExitCode.TRANSPORT, r.getMessage());
        }
        if (e instanceof UnknownHostException || e instanceof UnresolvedAddressException) {
            return new Failure(ExitCode.TRANSPORT, "unknown host: " + e.getMessage());
        }
        if (e instanceof ConnectException || e instanceof NoRouteToHostException
                || e instanceof SocketTimeoutException || e instanceof SocketException) {
            return new Failure(ExitCode.TRANSPORT, "cannot reach the server: " + e.getMessage());
        }
        if (e instanceof VerbsException v) {
            return new Failure(ExitCode.PROVIDER, v.getMessage());
        }
        if (e instanceof NoSuchFileException f) {
            return new Failure(ExitCode.LOCAL, f.getFile() + ": no such local file or directory");
        }
        if (e instanceof AccessDeniedException f) {
            return new Failure(ExitCode.LOCAL, f.getFile() + ": permission denied");
        }
        if (e instanceof FileAlreadyExistsException f) {
            return new Failure(ExitCode.LOCAL, f.getFile() + ": local file exists");
        }
        if (e instanceof DirectoryNotEmptyException f) {
            return new Failure(ExitCode.LOCAL, f.getFile() + ": local directory not empty");
        }
        if (e instanceof NotDirectoryException f) {
            return new Failure(ExitCode.LOCAL, f.getFile() + ": not a local directory");
        }
        if (e instanceof FileSystemException f) {
            return new Failure(ExitCode.LOCAL, f.getMessage());
        }
        if (e instanceof IOException) {
            return new Failure(ExitCode.TRANSPORT, e.getMessage() == null ? e.toString() : e.getMessage());
        }
        return new Failure(ExitCode.INTERNAL, "internal error: " + e + " (run with --verbose for the stack trace)");
    }

    /** True when {@code t} (or what it wraps) means the thread was interrupted. */
    public static boolean isInterruption(Throwable t) {
        for (Throwable e = t; e != null; e = e.getCause()) {
            if (e instanceof InterruptedException || e instanceof ClosedByInterruptException
                    || e instanceof InterruptedIOException && !(e instanceof SocketTimeoutException)) {
                return true;
            }
        }
        return false;
    }

    private static Throwable unwrap(Throwable t) {
        Throwable e = t;
        while ((e instanceof CompletionException || e instanceof ExecutionException
                || e instanceof java.io.UncheckedIOException || e instanceof CommandLine.ExecutionException)
                && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }

    /** A few words for an NFS status, as {@code ls} or {@code rm} would say it. */
    public static String describe(Nfs3Status status) {
        return switch (status) {
            case NFS3ERR_PERM -> "operation not permitted";
            case NFS3ERR_NOENT -> "no such file or directory";
            case NFS3ERR_IO -> "I/O error on the server";
            case NFS3ERR_NXIO -> "no such device or address";
            case NFS3ERR_ACCES -> "permission denied";
            case NFS3ERR_EXIST -> "file exists";
            case NFS3ERR_XDEV -> "cross-device link";
            case NFS3ERR_NODEV -> "no such device";
            case NFS3ERR_NOTDIR -> "not a directory";
            case NFS3ERR_ISDIR -> "is a directory";
            case NFS3ERR_INVAL -> "invalid argument";
            case NFS3ERR_FBIG -> "file too large";
            case NFS3ERR_NOSPC -> "no space left on the server";
            case NFS3ERR_ROFS -> "read-only export";
            case NFS3ERR_MLINK -> "too many links";
            case NFS3ERR_NAMETOOLONG -> "file name too long";
            case NFS3ERR_NOTEMPTY -> "directory not empty";
            case NFS3ERR_DQUOT -> "quota exceeded";
            case NFS3ERR_STALE -> "stale file handle";
            case NFS3ERR_NOTSUPP -> "operation not supported by the server";
            case NFS3ERR_SERVERFAULT -> "server fault";
            case NFS3ERR_JUKEBOX -> "the server is busy, try again later";
            default -> "NFS error " + status;
        };
    }
}
