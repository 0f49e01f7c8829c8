package org.rpcrdma4j.xprt.client;

import java.nio.ByteBuffer;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.glassfish.grizzly.memory.ByteBufferWrapper;
import org.rpcrdma4j.registration.RegisteredBuffer;
import org.rpcrdma4j.verbs.util.EnumCounters;
import org.rpcrdma4j.xprt.XprtCounter;
import org.rpcrdma4j.xprt.internal.StreamLayout;

/**
 * An oncrpc4j caller's reply on its way from the connection to the callback thread, where it becomes the {@link Xdr}
 * oncrpc4j decodes (from one buffer). A small reply is a copy already. A large one keeps the transport buffer the server
 * wrote into (its Write chunk or Reply chunk, whose handles are invalid by now): on the callback thread, not on the
 * connection's, which goes on with the next completions, the reply is made whole in that buffer and lent to the caller
 * ({@link LentReplies}), or copied out of it and the buffer released. A Write chunk's sink has room before and after
 * the placed data for the inline parts of the reply around it ({@code CallMarshaler}). Exactly one of
 * {@link #xdr} and {@link #release()} is called.
 */
final class PlainReply {
    private final byte[] copied;
    private final byte[] head;
    private final int position;
    private final RegisteredBuffer sink;
    private final int sinkIndex;
    private final int placed;

    private PlainReply(byte[] copied, byte[] head, int position, RegisteredBuffer sink, int sinkIndex, int placed) {
        this.copied = copied;
        this.head = head;
        this.position = position;
        this.sink = sink;
        this.sinkIndex = sinkIndex;
        this.placed = placed;
    }

    /** A reply copied whole already. */
    static PlainReply of(byte[] flat) {
        return new PlainReply(flat, null, 0, null, 0, 0);
    }

    /**
     * The inline reply {@code head} (its own copy) with {@code placed} bytes of {@code sink} (owned from now) at
     * {@code position}, where the data item's bytes belong, followed by their XDR pad.
     */
    static PlainReply spliced(byte[] head, int position, RegisteredBuffer sink, int sinkIndex, int placed) {
        return new PlainReply(null, head, position, sink, sinkIndex, placed);
    }

    /** A reply that is all in {@code sink} (a Reply chunk, owned from now): {@code length} bytes at its index. */
    static PlainReply inChunk(RegisteredBuffer sink, int sinkIndex, int length) {
        return new PlainReply(null, null, 0, sink, sinkIndex, length);
    }

    /**
     * The reply for oncrpc4j to decode: lent in the transport buffer where {@code lender} allows, else copied out of
     * it (the copy counted as {@link XprtCounter#FIXUP_COPY_COUNT}) and the buffer given back.
     */
    Xdr xdr(LentReplies lender, EnumCounters<XprtCounter> counters) {
        if (copied != null) {
            return new Xdr(copied);
        }
        int start = sinkIndex;
        int length = placed;
        if (head != null) {
            int pad = (4 - (placed & 3)) & 3;
            int tail = head.length - position;
            if (lender.enabled() && sinkIndex >= position && sink.capacity() - sinkIndex - placed >= pad + tail) {
                // made whole in place: the inline parts before and after the placed data, and its pad
                start = sinkIndex - position;
                length = head.length + placed + pad;
                sink.setBytes(start, head, 0, position);
                sink.setZero(sinkIndex + placed, pad);
                sink.setBytes(sinkIndex + placed + pad, head, position, tail);
            } else {
                return new Xdr(spliceCopy(counters));
            }
        }
        ByteBuffer view = lender.lend(sink, start, length);
        if (view != null) {
            return new Xdr(new ByteBufferWrapper(view)); // the view holds the sink's reference now
        }
        try {
            byte[] flat = new byte[length];
            sink.getBytes(start, flat);
            counters.add(XprtCounter.FIXUP_COPY_COUNT, head != null ? placed : length);
            return new Xdr(flat);
        } finally {
            sink.release();
        }
    }

    private byte[] spliceCopy(EnumCounters<XprtCounter> counters) {
        try {
            StreamLayout layout = new StreamLayout();
            layout.layOutReply(head.length, position, placed);
            byte[] flat = new byte[layout.totalLength()];
            ByteBuf target = Unpooled.wrappedBuffer(flat).clear();
            layout.appendTo(target, Unpooled.wrappedBuffer(head), 0, sink, sinkIndex);
            counters.add(XprtCounter.FIXUP_COPY_COUNT, placed);
            return flat;
        } finally {
            sink.release();
        }
    }

    /** Gives the transport buffer back without making the reply (nobody waits for it any more). */
    void release() {
        if (sink != null) {
            sink.release();
        }
    }
}
