package org.rpcrdma4j.xprt.internal;

import java.nio.ByteBuffer;

import io.netty.buffer.ByteBuf;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.glassfish.grizzly.Buffer;

/**
 * Moves bytes between oncrpc4j's {@link Xdr} (a Grizzly buffer underneath) and Netty {@link ByteBuf}s. The only place
 * in the transports that sees Grizzly types.
 */
public final class Xdrs {
    private Xdrs() {
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
}
