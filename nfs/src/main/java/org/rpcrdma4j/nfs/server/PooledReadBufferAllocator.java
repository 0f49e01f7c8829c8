package org.rpcrdma4j.nfs.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import org.dcache.oncrpc4j.rpc.RpcCall;

/** READ buffers from a Netty pooled allocator (direct memory by default), for stream transports. */
public final class PooledReadBufferAllocator implements ReadBufferAllocator {
    private final ByteBufAllocator allocator;

    public PooledReadBufferAllocator(ByteBufAllocator allocator) {
        this.allocator = allocator;
    }

    public PooledReadBufferAllocator() {
        this(PooledByteBufAllocator.DEFAULT);
    }

    @Override
    public ByteBuf allocate(RpcCall call, int length) {
        return allocator.directBuffer(length, length);
    }
}
