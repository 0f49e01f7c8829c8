package org.rpcrdma4j.xprt.server;

import java.nio.ByteBuffer;

import org.dcache.oncrpc4j.grizzly.GrizzlyMemoryManager;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.memory.ByteBufferArray;
import org.glassfish.grizzly.memory.Buffers;
import org.glassfish.grizzly.memory.BuffersBuffer;
import org.glassfish.grizzly.memory.MemoryManager;

/**
 * The server's bridge to the Grizzly buffers under oncrpc4j's {@link Xdr}: decoding streams over memory the server
 * owns (a call slot's array, a registered buffer holding a call pulled with RDMA READ), and the pieces of an encoded
 * reply. The only class of the server that sees Grizzly types (the transports' shared {@code Xdrs} plays the same
 * role for copying).
 */
final class GrizzlyBytes {
    private static final MemoryManager MEMORY = GrizzlyMemoryManager.getDefaultMemoryManager();

    private GrizzlyBytes() {
    }

    /** Receives the pieces of an encoded reply, in order. */
    interface PieceSink {
        /** The reply is one heap array range (the common case: nothing shallow was encoded). */
        void heap(byte[] array, int offset, int length);

        /** One piece of a reply made of several buffers (or of one direct buffer); the view is the sink's to keep. */
        void piece(ByteBuffer view);
    }

    /** A decoding stream over {@code array[0, length)}: borrows the array (the reply will be encoded into it too). */
    static Xdr over(byte[] array, int length) {
        return new Xdr(Buffers.wrap(MEMORY, array, 0, length), MEMORY);
    }

    /**
     * A decoding stream over {@code buffer}'s position..limit; borrows the memory. The buffer is wrapped in a
     * composite: oncrpc4j encodes the reply into the call's stream, and Grizzly can grow a composite (it appends heap
     * memory) but not a plain wrapper of a direct buffer.
     */
    static Xdr over(ByteBuffer buffer) {
        return new Xdr(BuffersBuffer.create(MEMORY, Buffers.wrap(MEMORY, buffer)), MEMORY);
    }

    /**
     * Hands the bytes of an encoded message ({@code Xdr.asBuffer()}, position to limit) to {@code sink}, without
     * copying: one heap range, or one view per underlying buffer (shallow buffers from
     * {@code xdrEncodeShallowByteBuffer} appear as their own pieces, at their own addresses).
     *
     * @return the message length
     */
    static int pieces(Xdr xdr, PieceSink sink) {
        Buffer buffer = xdr.asBuffer();
        int length = buffer.remaining();
        if (!buffer.isComposite() && buffer.hasArray()) {
            sink.heap(buffer.array(), buffer.arrayOffset() + buffer.position(), length);
            return length;
        }
        ByteBufferArray array = buffer.toByteBufferArray();
        try {
            ByteBuffer[] views = array.getArray();
            for (int i = 0; i < array.size(); i++) {
                if (views[i].hasRemaining()) {
                    sink.piece(views[i].slice());
                }
            }
        } finally {
            array.restore();
            array.recycle();
        }
        return length;
    }
}
