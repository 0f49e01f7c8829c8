package org.rpcrdma4j.xprt.internal;

import java.nio.ByteBuffer;

import io.netty.buffer.ByteBuf;
import org.dcache.oncrpc4j.grizzly.GrizzlyMemoryManager;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.memory.ByteBufferArray;
import org.glassfish.grizzly.memory.Buffers;
import org.glassfish.grizzly.memory.BuffersBuffer;
import org.glassfish.grizzly.memory.CompositeBuffer;
import org.glassfish.grizzly.memory.HeapBuffer;
import org.glassfish.grizzly.memory.MemoryManager;

/**
 * The transports' bridge to oncrpc4j's {@link Xdr} and the Grizzly buffers under it: copying an encoded message into a
 * Netty {@link ByteBuf}, decoding streams over memory a transport owns, and the pieces of an encoded message without a
 * copy. The only place in the transports that sees Grizzly types.
 */
public final class Xdrs {
    private static final MemoryManager MEMORY = GrizzlyMemoryManager.getDefaultMemoryManager();

    private Xdrs() {
    }

    /** Receives the pieces of an encoded message, in order ({@link #pieces}). */
    public interface PieceSink {
        /** The message is one heap array range (the common case: nothing shallow was encoded). */
        void heap(byte[] array, int offset, int length);

        /** One piece of a message made of several buffers (or of one direct buffer); the view is the sink's to keep. */
        void piece(ByteBuffer view);
    }

    /** Bytes of an encoded message (after {@code endEncoding()}): from the buffer's position to its limit. */
    public static int length(Xdr xdr) {
        return xdr.asBuffer().remaining();
    }

    /**
     * Appends the encoded message to {@code dst} (borrowed) without moving the Xdr's own position.
     *
     * @return the number of bytes copied
     */
    public static int copyTo(Xdr xdr, ByteBuf dst) {
        Buffer buffer = xdr.asBuffer();
        int length = buffer.remaining();
        if (buffer.hasArray()) {
            dst.writeBytes(buffer.array(), buffer.arrayOffset() + buffer.position(), length);
        } else {
            ByteBuffer view = buffer.toByteBuffer();
            dst.writeBytes(view.duplicate());
        }
        return length;
    }

    /** A decoding stream over a copy of {@code src[index, index + length)}; the Xdr owns its bytes. */
    public static Xdr decodingCopy(ByteBuf src, int index, int length) {
        byte[] bytes = new byte[length];
        src.getBytes(index, bytes);
        return new Xdr(bytes);
    }

    /**
     * A decoding stream over {@code array[0, length)}: borrows the whole array. oncrpc4j encodes a call's reply into
     * the call's stream, and the reply may use all of the array: a reply longer than its call (most are) is then
     * encoded in place rather than into memory the stream grows by reallocating and copying, once or more per call.
     */
    public static Xdr over(byte[] array, int length) {
        return new Xdr(new BorrowedArray(array, length), MEMORY);
    }

    /**
     * A decoding stream over {@code buffer}'s position..limit; borrows the memory. The buffer is wrapped in a
     * composite: oncrpc4j encodes the reply into the call's stream, and Grizzly can grow a composite (it appends heap
     * memory) but not a plain wrapper of a direct buffer.
     */
    public static Xdr over(ByteBuffer buffer) {
        return new Xdr(BuffersBuffer.create(MEMORY, Buffers.wrap(MEMORY, buffer)), MEMORY);
    }

    /**
     * Makes a stream from {@link #over(ByteBuffer)}, once decoded, encode its reply into {@code spare} (borrowed;
     * oncrpc4j grows the stream on the heap beyond it) instead of over the bytes it decoded: a program keeps some of
     * those bytes past its reply. The stream has nothing left to decode afterwards.
     *
     * @throws IllegalStateException when {@code xdr} was not made by {@link #over(ByteBuffer)}
     */
    public static void encodeElsewhere(Xdr xdr, byte[] spare) {
        if (!(xdr.asBuffer() instanceof CompositeBuffer stream)) {
            throw new IllegalStateException("not a stream over a transport's buffer: " + xdr.asBuffer());
        }
        stream.removeAll();
        stream.append(Buffers.wrap(MEMORY, spare));
        stream.limit(0); // nothing left to decode: a further decode fails instead of reading the spare's bytes
    }

    /**
     * Lets a stream from {@link #over(byte[], int)} or {@link #over(ByteBuffer)} go of the memory it borrows, once
     * the transport has taken the reply encoded into it: oncrpc4j encodes every reply of a call into the call's
     * stream, so a program that replies again, or late, would otherwise write over what that memory carries by then
     * (the reply in flight, or the next call of the slot). A later encode grows on the heap instead, and nothing is
     * left to decode. Any other stream is left as it is.
     */
    public static void detach(Xdr xdr) {
        Buffer buffer = xdr.asBuffer();
        if (buffer instanceof BorrowedArray array) {
            array.detach();
        } else if (buffer instanceof CompositeBuffer stream) {
            stream.removeAll();
        }
    }

    /** A heap stream's buffer over an array it borrows, until {@link #detach}. */
    private static final class BorrowedArray extends HeapBuffer {
        private static final byte[] NONE = new byte[0];

        BorrowedArray(byte[] array, int length) {
            super(array, 0, array.length);
            lim = length;
        }

        void detach() {
            heap = NONE;
            offset = 0;
            cap = 0;
            pos = 0;
            lim = 0;
            mark = -1;
            byteBuffer = null;
        }
    }

    /**
     * Hands the bytes of an encoded message ({@code Xdr.asBuffer()}, position to limit) to {@code sink}, without
     * copying: one heap range, or one view per underlying buffer (shallow buffers from
     * {@code xdrEncodeShallowByteBuffer} appear as their own pieces, at their own addresses).
     *
     * @return the message length
     */
    public static int pieces(Xdr xdr, PieceSink sink) {
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
