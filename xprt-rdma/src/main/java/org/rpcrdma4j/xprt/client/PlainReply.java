package org.rpcrdma4j.xprt.client;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import org.rpcrdma4j.registration.RegisteredBuffer;
import org.rpcrdma4j.xprt.internal.StreamLayout;

/**
 * An oncrpc4j caller's reply on its way from the connection to the callback thread, where it is made flat (oncrpc4j
 * decodes from one heap array). A small reply is a copy already. A large one keeps the transport buffer the server
 * wrote into (its Write chunk or Reply chunk, whose handles are invalid by now) and is copied out of it on the
 * callback thread, not on the connection's, which goes on with the next completions; that buffer is released then.
 * Exactly one of {@link #flatten()} and {@link #release()} is called.
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

    /** The reply as one array; gives the transport buffer back. */
    byte[] flatten() {
        if (copied != null) {
            return copied;
        }
        try {
            if (head == null) {
                byte[] flat = new byte[placed];
                sink.getBytes(sinkIndex, flat);
                return flat;
            }
            StreamLayout layout = new StreamLayout();
            layout.layOutReply(head.length, position, placed);
            byte[] flat = new byte[layout.totalLength()];
            ByteBuf target = Unpooled.wrappedBuffer(flat).clear();
            layout.appendTo(target, Unpooled.wrappedBuffer(head), 0, sink, sinkIndex);
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
