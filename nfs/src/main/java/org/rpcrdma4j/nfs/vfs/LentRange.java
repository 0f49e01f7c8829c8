package org.rpcrdma4j.nfs.vfs;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;

/**
 * Bytes of a file lent by the VFS without a copy ({@link Vfs#lend}), and whether they reach the end of the file.
 * {@code data} holds what the file contained when it was lent (a later write to the same bytes does not change it):
 * a Netty buffer over the VFS's own memory, usually a composite with one component per block, whose reference the
 * borrower owns and releases once it no longer reads it (a server: once the reply that carries it has been sent, or
 * could not be).
 */
public record LentRange(ByteBuf data, boolean eof) {

    /** Bytes lent. */
    public int count() {
        return data.readableBytes();
    }

    /** The bytes as NIO views, one per piece of memory, in order (no copy). */
    public ByteBuffer[] pieces() {
        return data.readableBytes() == 0 ? new ByteBuffer[0] : data.nioBuffers();
    }
}
