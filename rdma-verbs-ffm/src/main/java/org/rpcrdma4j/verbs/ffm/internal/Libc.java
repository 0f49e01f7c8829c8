package org.rpcrdma4j.verbs.ffm.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import org.rpcrdma4j.verbs.VerbsException;

/**
 * The few C library calls a device thread needs to wait on several file descriptors at once (rdma_cm's event channel,
 * the completion channel, a wake-up {@code eventfd}) with a timeout: {@code poll}, {@code eventfd}, {@code read},
 * {@code write}, {@code close}, and {@code fcntl} to make a channel's descriptor non-blocking.
 */
public final class Libc {
    /** {@code struct pollfd}: int fd, short events, short revents. */
    public static final long POLLFD_SIZE = 8;
    public static final long POLLFD_FD = 0;
    public static final long POLLFD_EVENTS = 4;
    public static final long POLLFD_REVENTS = 6;
    public static final short POLLIN = 1;
    /** {@code EFD_NONBLOCK | EFD_CLOEXEC}. */
    public static final int EFD_FLAGS = 04000 | 02000000;
    private static final int EINTR = 4;
    /** {@code EAGAIN}: a non-blocking descriptor had nothing to read. */
    public static final int EAGAIN = 11;
    private static final int F_GETFL = 3;
    private static final int F_SETFL = 4;
    private static final int O_NONBLOCK = 04000;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle POLL = handle("poll", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG,
            JAVA_INT));
    private static final MethodHandle EVENTFD = handle("eventfd", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle READ = handle("read", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS,
            JAVA_LONG));
    private static final MethodHandle WRITE = handle("write", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS,
            JAVA_LONG));
    private static final MethodHandle CLOSE = handle("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    private static final MethodHandle FCNTL = LINKER.downcallHandle(LINKER.defaultLookup().find("fcntl")
            .orElseThrow(), FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT),
            Linker.Option.firstVariadicArg(2), Errno.CAPTURE);

    private Libc() {
    }

    private static MethodHandle handle(String name, FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(LINKER.defaultLookup().find(name).orElseThrow(), descriptor, Errno.CAPTURE);
    }

    /** Sets entry {@code i} of a {@code pollfd} array to wait for input on {@code fd}. */
    public static void watch(MemorySegment pollfds, int i, int fd) {
        pollfds.set(JAVA_INT, i * POLLFD_SIZE + POLLFD_FD, fd);
        pollfds.set(JAVA_SHORT, i * POLLFD_SIZE + POLLFD_EVENTS, POLLIN);
    }

    /** Whether {@code poll} found input (or an error, which the read then reports) on entry {@code i}. */
    public static boolean ready(MemorySegment pollfds, int i) {
        return pollfds.get(JAVA_SHORT, i * POLLFD_SIZE + POLLFD_REVENTS) != 0;
    }

    /** {@code poll}: waits up to {@code timeoutMillis} for one of {@code n} descriptors; an interrupted wait is 0. */
    public static int poll(MemorySegment pollfds, int n, int timeoutMillis, MemorySegment errno)
            throws VerbsException {
        int rc;
        try {
            rc = (int) POLL.invokeExact(errno, pollfds, (long) n, timeoutMillis); // the device thread's wait: no lambda
        } catch (Throwable t) {
            throw Ibv.downcallFailure(t);
        }
        if (rc < 0) {
            int e = Errno.of(errno);
            if (e == EINTR) {
                return 0;
            }
            throw Errno.failure("poll", e, null);
        }
        return rc;
    }

    /** A non-blocking {@code eventfd}: written to wake a thread in {@link #poll}. */
    public static int eventfd(MemorySegment errno) throws VerbsException {
        int fd = Ibv.call(() -> (int) EVENTFD.invokeExact(errno, 0, EFD_FLAGS));
        if (fd < 0) {
            throw Errno.failure("eventfd", Errno.of(errno), null);
        }
        return fd;
    }

    /** Adds one to an eventfd's counter ({@code scratch}: 8 bytes). */
    public static void signal(int eventfd, MemorySegment scratch, MemorySegment errno) throws VerbsException {
        scratch.set(JAVA_LONG, 0, 1L);
        Ibv.call(() -> (long) WRITE.invokeExact(errno, eventfd, scratch, 8L));
    }

    /** Resets an eventfd's counter; nothing happens when it was zero. */
    public static void drain(int eventfd, MemorySegment scratch, MemorySegment errno) throws VerbsException {
        try {
            long read = (long) READ.invokeExact(errno, eventfd, scratch, 8L);
        } catch (Throwable t) {
            throw Ibv.downcallFailure(t);
        }
    }

    /**
     * Makes {@code fd} non-blocking. A channel whose pending event can vanish between {@code poll} and the read (the
     * kernel drops the events of a completion queue or an identifier destroyed meanwhile) must be read this way, or the
     * read waits for the next event of any other queue or identifier.
     */
    public static void nonBlocking(int fd, MemorySegment errno) throws VerbsException {
        int flags = Ibv.call(() -> (int) FCNTL.invokeExact(errno, fd, F_GETFL, 0));
        if (flags < 0) {
            throw Errno.failure("fcntl(F_GETFL)", Errno.of(errno), null);
        }
        int rc = Ibv.call(() -> (int) FCNTL.invokeExact(errno, fd, F_SETFL, flags | O_NONBLOCK));
        if (rc < 0) {
            throw Errno.failure("fcntl(F_SETFL)", Errno.of(errno), null);
        }
    }

    /** {@code close}. */
    public static void close(int fd, MemorySegment errno) throws VerbsException {
        Ibv.call(() -> (int) CLOSE.invokeExact(errno, fd));
    }
}
