package org.rpcrdma4j.verbs.disni;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.rpcrdma4j.verbs.VerbsException;

/**
 * Turns what DiSNI throws into {@link VerbsException}s that say which verb failed and what to do about it. Pure.
 * <p>
 * DiSNI reports native failures as {@link java.io.IOException}s with short texts ("Polling CQ failed", "Memory
 * registration failed with ..."), and trouble with its native library as {@link LinkageError}s: an
 * {@link UnsatisfiedLinkError} the first time, a {@link NoClassDefFoundError} ("Could not initialize class
 * ...NativeDispatcher") every time after, and an {@link IllegalAccessError} from {@code MemoryUtils} when the JVM lacks
 * {@code --add-exports java.base/sun.nio.ch=ALL-UNNAMED}. The linkage errors become the same one-line explanation
 * {@link DisniAvailability} gives; an errno found in a message is named.
 */
final class DisniErrors {
    private static final Pattern ERRNO = Pattern.compile("(?:errno|error|failed with|ret(?:urn)?)[\\s:=]*-?(\\d{1,3})\\b",
            Pattern.CASE_INSENSITIVE);

    private static final int ECONNREFUSED = 111;

    private DisniErrors() {
    }

    /** A {@link VerbsException} for a failed DiSNI call; linkage errors get the library/JVM-option explanation. */
    static VerbsException failure(String verb, Throwable cause) {
        if (cause instanceof VerbsException) {
            return (VerbsException) cause;
        }
        return new VerbsException(verb + " failed: " + describe(cause), cause);
    }

    /** What went wrong, in words: the linkage explanation, or the message with its errno named. */
    static String describe(Throwable cause) {
        String linkage = linkageProblem(cause);
        if (linkage != null) {
            return linkage;
        }
        String message = cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
        int errno = errno(message);
        String name = errno > 0 ? errnoName(errno) : null;
        return name == null ? message : message + " (" + name + ")";
    }

    /**
     * The explanation for a DiSNI linkage failure (missing libdisni, DiSNI's class initialisation failed earlier,
     * missing {@code --add-exports}), or null when {@code t} is not one.
     */
    static String linkageProblem(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof IllegalAccessError && String.valueOf(c.getMessage()).contains("sun.nio.ch")) {
                return DisniAvailability.MISSING_EXPORTS;
            }
            if (c instanceof UnsatisfiedLinkError || (c instanceof NoClassDefFoundError
                    && String.valueOf(c.getMessage()).contains("NativeDispatcher"))) {
                return DisniAvailability.describe(DisniAvailability.classify(c), c.getMessage(),
                        System.getProperty("java.library.path", ""));
            }
        }
        return null;
    }

    /**
     * Whether a DiSNI call failed because the peer refused the connection (ECONNREFUSED): libdisni appends
     * {@code strerror(errno)} to its messages ("j2c::connect: rdma_connect failed: Connection refused").
     */
    static boolean connectionRefused(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            String message = c.getMessage();
            if (message != null && (message.contains("Connection refused") || message.contains("ECONNREFUSED")
                    || errno(message) == ECONNREFUSED)) {
                return true;
            }
        }
        return false;
    }

    /** The first errno-like number in a message, or -1. */
    static int errno(String message) {
        if (message == null) {
            return -1;
        }
        Matcher m = ERRNO.matcher(message);
        return m.find() ? Integer.parseInt(m.group(1)) : -1;
    }

    /** The Linux name and meaning of the errno values RDMA verbs return, or null for others. */
    static String errnoName(int errno) {
        switch (errno) {
            case 1: return "EPERM: not permitted (memlock limit? see ulimit -l)";
            case 2: return "ENOENT: no such object";
            case 5: return "EIO: I/O error";
            case 11: return "EAGAIN: resource temporarily unavailable";
            case 12: return "ENOMEM: out of memory or queue full (or the locked-memory limit, ulimit -l)";
            case 13: return "EACCES: permission denied";
            case 14: return "EFAULT: bad address";
            case 16: return "EBUSY: resource busy";
            case 19: return "ENODEV: no such device";
            case 22: return "EINVAL: invalid argument (an attribute beyond the device's limits?)";
            case 28: return "ENOSPC: no space left";
            case 38: return "ENOSYS: not implemented by this device";
            case 95: return "EOPNOTSUPP: not supported by this device";
            case 98: return "EADDRINUSE: address in use";
            case 99: return "EADDRNOTAVAIL: address not available";
            case 101: return "ENETUNREACH: network unreachable";
            case 104: return "ECONNRESET: connection reset";
            case 110: return "ETIMEDOUT: timed out";
            case 111: return "ECONNREFUSED: connection refused";
            case 113: return "EHOSTUNREACH: no route to host";
            default: return null;
        }
    }
}
