package org.rpcrdma4j.xprt.client;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.ref.Cleaner;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;

import org.rpcrdma4j.registration.RegisteredBuffer;
import org.rpcrdma4j.verbs.util.EnumCounters;
import org.rpcrdma4j.xprt.XprtCounter;

/**
 * Lends the registered memory an oncrpc4j reply arrived in to the caller, instead of copying it out. oncrpc4j decodes a
 * reply from one buffer and hands out slices of it ({@code Xdr.xdrDecodeByteBuffer}, an NFS READ's data) that
 * outlive decoding, so the memory may go back to the pool only once the last of them is unreachable.
 * <p>
 * On Java 22 and later a direct view made by {@code MemorySegment.asByteBuffer()} refers to its segment, and so do
 * all its duplicates and slices; a {@link Cleaner} watching the segment gives the buffer back once they are all gone.
 * No restricted method is used. Before Java 22 a slice of a direct buffer refers only to the root buffer (the pool's
 * memory), nothing tells when the caller is done, and every reply is copied.
 * <p>
 * Lent bytes are bounded ({@code RdmaClientConfig.lentReplyBytes}): a caller that keeps slices cannot take the pool
 * from the calls; past the bound replies are copied again until memory comes back.
 */
final class LentReplies {
    private static final MethodHandle OF_BUFFER;
    private static final MethodHandle AS_BYTE_BUFFER;
    private static final Cleaner CLEANER;

    static {
        MethodHandle of = null;
        MethodHandle as = null;
        Cleaner cleaner = null;
        if (Runtime.version().feature() >= 22) {
            try {
                Class<?> segment = Class.forName("java.lang.foreign.MemorySegment");
                MethodHandles.Lookup lookup = MethodHandles.publicLookup();
                of = lookup.findStatic(segment, "ofBuffer", MethodType.methodType(segment, Buffer.class))
                        .asType(MethodType.methodType(Object.class, ByteBuffer.class));
                as = lookup.findVirtual(segment, "asByteBuffer", MethodType.methodType(ByteBuffer.class))
                        .asType(MethodType.methodType(ByteBuffer.class, Object.class));
                cleaner = Cleaner.create(r -> {
                    Thread t = new Thread(r, "rpcrdma-lent-replies");
                    t.setDaemon(true);
                    return t;
                });
            } catch (ReflectiveOperationException | RuntimeException e) {
                of = null;
                as = null;
            }
        }
        OF_BUFFER = of;
        AS_BYTE_BUFFER = as;
        CLEANER = cleaner;
    }

    private final long limit;
    private final EnumCounters<XprtCounter> counters;
    private final AtomicLong outstanding = new AtomicLong();
    /** What is lent now: given back at once when the transport closes. */
    private final java.util.Set<Return> lent = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** @param limit bytes that may be lent at once; 0 copies every reply */
    LentReplies(long limit, EnumCounters<XprtCounter> counters) {
        this.limit = supported() ? limit : 0;
        this.counters = counters;
    }

    /** Whether this runtime can lend at all (Java 22 or later). */
    static boolean supported() {
        return AS_BYTE_BUFFER != null;
    }

    /** Whether replies may be lent: supported and a bound above 0. */
    boolean enabled() {
        return limit > 0;
    }

    /** Bytes lent now and not yet given back. */
    long outstanding() {
        return outstanding.get();
    }

    /**
     * A view of {@code length} bytes of {@code buffer} at {@code index}, which owns one reference of {@code buffer}
     * from now and releases it once the view and everything derived from it is unreachable; or null (nothing taken)
     * when lending is off or the bound is reached.
     */
    ByteBuffer lend(RegisteredBuffer buffer, int index, int length) {
        if (limit == 0) {
            return null;
        }
        long was = outstanding.getAndAdd(length);
        if (was + length > limit) {
            outstanding.getAndAdd(-length);
            return null;
        }
        ByteBuffer view;
        Object segment;
        try {
            segment = OF_BUFFER.invokeExact(buffer.nioBuffer(index, length));
            view = (ByteBuffer) AS_BYTE_BUFFER.invokeExact(segment);
        } catch (Throwable e) {
            outstanding.getAndAdd(-length);
            return null;
        }
        Return back = new Return(buffer, length, this);
        lent.add(back);
        CLEANER.register(segment, back);
        counters.add(XprtCounter.LENT_REPLY_BYTES, length);
        return view;
    }

    /**
     * Gives back at once what is still lent, as the transport closes: the pool hands out nothing any more, and the
     * memory stays readable through the views that hold it (it is freed with them).
     */
    void close() {
        for (Return r : lent) {
            r.run();
        }
    }

    /** Gives a lent buffer back, once; holds nothing that could keep the view reachable. */
    private static final class Return implements Runnable {
        private final java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
        private final RegisteredBuffer buffer;
        private final int length;
        private final LentReplies from;

        Return(RegisteredBuffer buffer, int length, LentReplies from) {
            this.buffer = buffer;
            this.length = length;
            this.from = from;
        }

        @Override
        public void run() {
            if (done.compareAndSet(false, true)) {
                from.lent.remove(this);
                from.outstanding.getAndAdd(-length);
                buffer.release();
            }
        }
    }
}
