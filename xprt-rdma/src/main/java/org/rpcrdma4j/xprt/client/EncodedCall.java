package org.rpcrdma4j.xprt.client;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import org.dcache.oncrpc4j.xdr.Xdr;
import org.rpcrdma4j.xprt.internal.Xdrs;

/**
 * An oncrpc4j call as its encoder left it, read in place: one heap range (the usual case), or the buffers of a
 * composite stream, among them any that the arguments' encoder added by reference
 * ({@code Xdr.xdrEncodeShallowByteBuffer}). {@link #message()} is a view over those bytes, made without copying them:
 * the marshaler copies the call into registered memory once from there, or, when the DDP-eligible argument lies in
 * one piece of registered memory of this transport, sends that piece as a Read chunk where it is.
 */
final class EncodedCall implements Xdrs.PieceSink {
    private final ByteBuf message;
    private final List<ByteBuffer> pieces = new ArrayList<>(4);
    private byte[] array;
    private int offset;
    private int length;

    EncodedCall(Xdr xdr) {
        Xdrs.pieces(xdr, this);
        if (array != null) {
            message = Unpooled.wrappedBuffer(array, offset, length);
        } else {
            message = Unpooled.wrappedBuffer(pieces.size(), pieces.toArray(ByteBuffer[]::new));
        }
    }

    @Override
    public void heap(byte[] array, int offset, int length) {
        this.array = array;
        this.offset = offset;
        this.length = length;
    }

    @Override
    public void piece(ByteBuffer view) {
        pieces.add(view);
    }

    /** The whole call, readable, over the encoder's memory (borrowed: valid while the caller's stream is). */
    ByteBuf message() {
        return message;
    }

    /** Whether some piece is direct memory, which may be registered. */
    boolean hasDirectPiece() {
        for (ByteBuffer piece : pieces) {
            if (piece.isDirect()) {
                return true;
            }
        }
        return false;
    }

    /**
     * A view of bytes {@code [from, from + count)} of the call when they lie in one direct piece, else null.
     */
    ByteBuffer directRange(int from, int count) {
        int start = 0;
        for (ByteBuffer piece : pieces) {
            int end = start + piece.remaining();
            if (from >= start && from + count <= end) {
                if (!piece.isDirect()) {
                    return null;
                }
                int at = piece.position() + (from - start);
                return piece.duplicate().limit(at + count).position(at).slice();
            }
            start = end;
        }
        return null;
    }
}
