package org.rpcrdma4j.verbs.ffm.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import org.rpcrdma4j.verbs.VerbsException;

/**
 * libibverbs' verbs as downcalls. The exported ones are linked by name; the four the header makes inline
 * ({@code ibv_post_send}, {@code ibv_post_recv}, {@code ibv_poll_cq}, {@code ibv_req_notify_cq}) are called through
 * the provider's function table in the device context ({@link IbvAbi#CONTEXT_OPS_POST_SEND} and the others), as the
 * header's inline functions do. Failures are {@link org.rpcrdma4j.verbs.ffm.FfmVerbsException}s naming the verb.
 */
public final class Ibv {
    private static final Linker LINKER = Linker.nativeLinker();
    /** {@code int (*)(void *, void *, void *)}: post_send and post_recv, called at an address. */
    private static final MethodHandle POST = LINKER.downcallHandle(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    /** {@code int (*)(struct ibv_cq *, int, struct ibv_wc *)}. */
    private static final MethodHandle POLL_CQ = LINKER.downcallHandle(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS));
    /** {@code struct ibv_mw *(*)(struct ibv_pd *, enum ibv_mw_type)}, errno captured. */
    private static final MethodHandle ALLOC_MW = LINKER.downcallHandle(
            FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT), Errno.CAPTURE);
    /** {@code int (*)(struct ibv_mw *)}. */
    private static final MethodHandle DEALLOC_MW = LINKER.downcallHandle(FunctionDescriptor.of(JAVA_INT, ADDRESS));
    /** {@code int (*)(struct ibv_cq *, int)}. */
    private static final MethodHandle REQ_NOTIFY_CQ = LINKER.downcallHandle(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));

    private final MethodHandle allocPd;
    private final MethodHandle deallocPd;
    private final MethodHandle regMr;
    private final MethodHandle deregMr;
    private final MethodHandle createCq;
    private final MethodHandle destroyCq;
    private final MethodHandle createCompChannel;
    private final MethodHandle destroyCompChannel;
    private final MethodHandle getCqEvent;
    private final MethodHandle ackCqEvents;

    public Ibv(NativeLibrary ibverbs) throws VerbsException {
        allocPd = ibverbs.function("ibv_alloc_pd", FunctionDescriptor.of(ADDRESS, ADDRESS), Errno.CAPTURE);
        deallocPd = ibverbs.function("ibv_dealloc_pd", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        regMr = ibverbs.function("ibv_reg_mr", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT),
                Errno.CAPTURE);
        deregMr = ibverbs.function("ibv_dereg_mr", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        createCq = ibverbs.function("ibv_create_cq",
                FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT), Errno.CAPTURE);
        destroyCq = ibverbs.function("ibv_destroy_cq", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        createCompChannel = ibverbs.function("ibv_create_comp_channel", FunctionDescriptor.of(ADDRESS, ADDRESS),
                Errno.CAPTURE);
        destroyCompChannel = ibverbs.function("ibv_destroy_comp_channel", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        getCqEvent = ibverbs.function("ibv_get_cq_event", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS),
                Errno.CAPTURE);
        ackCqEvents = ibverbs.function("ibv_ack_cq_events", FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT));
    }

    /** {@code ibv_alloc_pd}. */
    public MemorySegment allocPd(MemorySegment context, MemorySegment errno) throws VerbsException {
        MemorySegment pd = call(() -> (MemorySegment) allocPd.invokeExact(errno, context));
        return nonNull(pd, "ibv_alloc_pd", errno, null);
    }

    /** {@code ibv_dealloc_pd}. */
    public void deallocPd(MemorySegment pd) throws VerbsException {
        check("ibv_dealloc_pd", call(() -> (int) deallocPd.invokeExact(pd)), null);
    }

    /** {@code ibv_reg_mr} of {@code length} bytes at {@code address}. */
    public MemorySegment regMr(MemorySegment pd, MemorySegment address, long length, int access, MemorySegment errno)
            throws VerbsException {
        MemorySegment mr = call(() -> (MemorySegment) regMr.invokeExact(errno, pd, address, length, access));
        if (!mr.equals(MemorySegment.NULL)) {
            return mr;
        }
        int e = Errno.of(errno);
        throw Errno.failure("ibv_reg_mr", e, length + " bytes at 0x" + Long.toHexString(address.address())
                + (e == 12 ? "; registered memory is pinned, and pinned memory counts against the process's "
                        + "locked-memory limit (ulimit -l): raise it, e.g. to unlimited" : ""));
    }

    /** {@code ibv_dereg_mr}. */
    public void deregMr(MemorySegment mr) throws VerbsException {
        check("ibv_dereg_mr", call(() -> (int) deregMr.invokeExact(mr)), null);
    }

    /** {@code ibv_create_cq} of {@code entries} entries, without a completion channel. */
    public MemorySegment createCq(MemorySegment context, int entries, MemorySegment errno) throws VerbsException {
        return createCq(context, entries, MemorySegment.NULL, errno);
    }

    /** {@code ibv_create_cq} of {@code entries} entries, its events to {@code channel} (NULL: none). */
    public MemorySegment createCq(MemorySegment context, int entries, MemorySegment channel, MemorySegment errno)
            throws VerbsException {
        return createCq(context, entries, 0, channel, errno);
    }

    /**
     * {@code ibv_create_cq} of {@code entries} entries, its events to {@code channel} (NULL: none), with
     * {@code cqContext} as its {@code cq_context} (what {@link #nextCqEvent} returns for it).
     */
    public MemorySegment createCq(MemorySegment context, int entries, long cqContext, MemorySegment channel,
                                  MemorySegment errno) throws VerbsException {
        MemorySegment cq = call(() -> (MemorySegment) createCq.invokeExact(errno, context, entries,
                MemorySegment.ofAddress(cqContext), channel, 0));
        return nonNull(cq, "ibv_create_cq", errno, entries + " entries");
    }

    /**
     * {@code ibv_get_cq_event} into {@code out} (two pointers: the queue, then its {@code cq_context}), which the
     * caller made once; returns the queue's {@code cq_context}. Blocks unless the channel's descriptor is readable.
     */
    public long nextCqEvent(MemorySegment channel, MemorySegment out, MemorySegment errno) throws VerbsException {
        return nextCqEvent(channel, out.asSlice(0, ADDRESS.byteSize()), out.asSlice(ADDRESS.byteSize(),
                ADDRESS.byteSize()), errno);
    }

    /**
     * {@code ibv_get_cq_event} into {@code cqOut} and {@code contextOut} (a pointer each, made once): returns the
     * queue's {@code cq_context}, or 0 when a non-blocking channel has no event (so no queue may have 0 there).
     * Allocation-free: the device thread takes every completion event this way.
     */
    public long nextCqEvent(MemorySegment channel, MemorySegment cqOut, MemorySegment contextOut,
                            MemorySegment errno) throws VerbsException {
        int rc;
        try {
            rc = (int) getCqEvent.invokeExact(errno, channel, cqOut, contextOut);
        } catch (Throwable t) {
            throw downcallFailure(t);
        }
        if (rc != 0) {
            int e = Errno.of(errno);
            if (e == Libc.EAGAIN) {
                return 0;
            }
            throw Errno.failure("ibv_get_cq_event", e, null);
        }
        return contextOut.get(JAVA_LONG, 0);
    }

    /** The queue {@link #nextCqEvent} last named in {@code out}. */
    public static MemorySegment eventQueue(MemorySegment out) {
        return out.get(ADDRESS, 0);
    }

    /** {@code ibv_create_comp_channel}: a file descriptor ({@link IbvAbi#COMP_CHANNEL_FD}) completion events wake. */
    public MemorySegment createCompChannel(MemorySegment context, MemorySegment errno) throws VerbsException {
        MemorySegment channel = call(() -> (MemorySegment) createCompChannel.invokeExact(errno, context));
        return nonNull(channel, "ibv_create_comp_channel", errno, null);
    }

    /** {@code ibv_destroy_comp_channel}. */
    public void destroyCompChannel(MemorySegment channel) throws VerbsException {
        check("ibv_destroy_comp_channel", call(() -> (int) destroyCompChannel.invokeExact(channel)), null);
    }

    /**
     * {@code ibv_get_cq_event}: blocks until a completion queue armed with {@link #reqNotifyCq} on {@code channel}
     * has a completion, and returns that queue (the event must be acknowledged with {@link #ackCqEvents}).
     */
    public MemorySegment getCqEvent(Arena arena, MemorySegment channel, MemorySegment errno) throws VerbsException {
        MemorySegment out = arena.allocate(ADDRESS.byteSize() * 2, ADDRESS.byteAlignment());
        nextCqEvent(channel, out, errno);
        return eventQueue(out);
    }

    /** {@code ibv_ack_cq_events}: every event taken must be acknowledged before the queue is destroyed. */
    public void ackCqEvents(MemorySegment cq, int events) throws VerbsException {
        try {
            ackCqEvents.invokeExact(cq, events);
        } catch (Throwable t) {
            throw downcallFailure(t);
        }
    }

    /** {@code ibv_destroy_cq}. */
    public void destroyCq(MemorySegment cq) throws VerbsException {
        check("ibv_destroy_cq", call(() -> (int) destroyCq.invokeExact(cq)), null);
    }

    /**
     * {@code ibv_alloc_mw} of {@code type} (2: bound with a work request, invalidated remotely or locally) through the
     * provider's {@code alloc_mw}; a provider without memory windows has none ({@code EOPNOTSUPP}).
     */
    public static MemorySegment allocMw(MemorySegment context, MemorySegment pd, int type, MemorySegment errno)
            throws VerbsException {
        MemorySegment fn = op(context, IbvAbi.CONTEXT_OPS_ALLOC_MW);
        if (fn.equals(MemorySegment.NULL)) {
            throw Errno.failure("ibv_alloc_mw", 95, "the device's provider has no memory windows"); // EOPNOTSUPP
        }
        MemorySegment mw = call(() -> (MemorySegment) ALLOC_MW.invokeExact(fn, errno, pd, type));
        return nonNull(mw, "ibv_alloc_mw", errno, "type " + type).reinterpret(IbvAbi.MW_SIZE);
    }

    /** {@code ibv_dealloc_mw} through the provider's {@code dealloc_mw}. */
    public static void deallocMw(MemorySegment context, MemorySegment mw) throws VerbsException {
        MemorySegment fn = op(context, IbvAbi.CONTEXT_OPS_DEALLOC_MW);
        check("ibv_dealloc_mw", call(() -> (int) DEALLOC_MW.invokeExact(fn, mw)), null);
    }

    /** The provider's function at {@code offset} in {@code context}'s ops table. */
    public static MemorySegment op(MemorySegment context, long offset) {
        return context.reinterpret(IbvAbi.CONTEXT_SIZE).get(ADDRESS, offset);
    }

    /**
     * {@code ibv_post_send} through the provider's {@code post_send}; {@code badWr} receives the failed request. The
     * data path: allocation-free, no lambdas or boxing.
     */
    public static void postSend(MemorySegment postSend, MemorySegment qp, MemorySegment wr, MemorySegment badWr)
            throws VerbsException {
        post("ibv_post_send", postSend, qp, wr, badWr);
    }

    /** {@code ibv_post_recv} through the provider's {@code post_recv}. Allocation-free. */
    public static void postRecv(MemorySegment postRecv, MemorySegment qp, MemorySegment wr, MemorySegment badWr)
            throws VerbsException {
        post("ibv_post_recv", postRecv, qp, wr, badWr);
    }

    private static void post(String verb, MemorySegment function, MemorySegment qp, MemorySegment wr,
                             MemorySegment badWr) throws VerbsException {
        int rc;
        try {
            rc = (int) POST.invokeExact(function, qp, wr, badWr);
        } catch (Throwable t) {
            throw downcallFailure(t);
        }
        check(verb, rc, null);
    }

    /**
     * {@code ibv_poll_cq} through the provider's {@code poll_cq}: how many completions it wrote to {@code wcs}.
     * Allocation-free.
     */
    public static int pollCq(MemorySegment pollCq, MemorySegment cq, int max, MemorySegment wcs)
            throws VerbsException {
        int n;
        try {
            n = (int) POLL_CQ.invokeExact(pollCq, cq, max, wcs);
        } catch (Throwable t) {
            throw downcallFailure(t);
        }
        if (n < 0) {
            throw Errno.failure("ibv_poll_cq", -n, null);
        }
        return n;
    }

    /** {@code ibv_req_notify_cq} through the provider's {@code req_notify_cq}. */
    public static void reqNotifyCq(MemorySegment reqNotifyCq, MemorySegment cq) throws VerbsException {
        int rc;
        try {
            rc = (int) REQ_NOTIFY_CQ.invokeExact(reqNotifyCq, cq, 0);
        } catch (Throwable t) {
            throw downcallFailure(t);
        }
        check("ibv_req_notify_cq", rc, null);
    }

    /** A verb that returns 0 or an error number (libibverbs' convention for int verbs). */
    static void check(String verb, int rc, String context) throws VerbsException {
        if (rc != 0) {
            throw Errno.failure(verb, rc < 0 ? -rc : rc, context);
        }
    }

    static MemorySegment nonNull(MemorySegment result, String verb, MemorySegment errno, String context)
            throws VerbsException {
        if (result.equals(MemorySegment.NULL)) {
            throw Errno.failure(verb, Errno.of(errno), context);
        }
        return result;
    }

    /** A downcall; what it throws besides a verbs error is a bug in the linking, not the device's. */
    static <T> T call(Downcall<T> downcall) throws VerbsException {
        try {
            return downcall.call();
        } catch (Throwable t) {
            throw downcallFailure(t);
        }
    }

    /**
     * What a downcall threw that is not the verb's own error: unchecked ones as they are, anything else (which
     * {@code invokeExact} declares but a linked native function cannot throw) wrapped. For the catch clauses around
     * {@code invokeExact}, so that each names no exception types of its own.
     */
    static VerbsException downcallFailure(Throwable t) {
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return t instanceof VerbsException v ? v : new VerbsException("downcall failed: " + t, t);
    }

    /** A downcall that may throw what {@code invokeExact} may. */
    @FunctionalInterface
    interface Downcall<T> {
        T call() throws Throwable;
    }
}
