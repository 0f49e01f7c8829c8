package org.rpcrdma4j.nfs.server.rdma;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.rpcrdma4j.nfs.server.PooledReadBufferAllocator;
import org.rpcrdma4j.nfs.server.ReadBufferAllocator;
import org.rpcrdma4j.nfs.server.WriteMemorySource;
import org.rpcrdma4j.nfs.vfs.BlockMemory;
import org.rpcrdma4j.nfs.vfs.WriteMemory;
import org.rpcrdma4j.xprt.server.RdmaBufferAllocator;

/**
 * The NFS program's two zero-copy seams on an RDMA server's registered memory ({@link RdmaBufferAllocator}):
 * <ul>
 * <li>READ: data is read into registered memory and RDMA-written into the client's write chunk from there;</li>
 * <li>WRITE: whole blocks of the data the server pulled with RDMA READ are kept by the VFS where they landed, in place
 * of a copy ({@link RdmaBufferAllocator#keep}), when the server allows keeping
 * ({@code RdmaRpcServer.Builder.keptCallMemory}).</li>
 * </ul>
 * Calls over other transports get pooled direct memory for READ and no WRITE offer. The RDMA server is built after
 * the NFS server whose programs it serves, so it is bound late ({@link #bind}); until then the same holds for every
 * call. Thread-safe.
 */
public final class RdmaServerMemory implements ReadBufferAllocator, WriteMemorySource {
    private final ReadBufferAllocator fallback = new PooledReadBufferAllocator();
    private volatile RdmaBufferAllocator allocator;

    /** Uses {@code server}'s memory (borrowed: the server owns it) from now on. */
    public void bind(RdmaBufferAllocator server) {
        this.allocator = server;
    }

    @Override
    public ByteBuf allocate(RpcCall call, int length) {
        RdmaBufferAllocator a = allocator;
        return a == null ? fallback.allocate(call, length) : a.allocate(call, length);
    }

    /**
     * Blocks for a {@code MemoryVfs} in the same registered memory ({@code MemoryVfs(capacity, memory.blocks(size))}):
     * the VFS lends them, so a READ's data is RDMA-written to the client from the file's own blocks, and keeps
     * whole blocks of WRITE data where the server pulled them. Before {@link #bind}, plain direct memory.
     *
     * @param blockSize bytes per block, a power of two from 64 KiB to 16 MiB (the VFS checks)
     */
    public BlockMemory blocks(int blockSize) {
        return new BlockMemory() {
            @Override
            public ByteBuf allocate(int size) {
                RdmaBufferAllocator a = allocator;
                return a == null ? Unpooled.directBuffer(size, size) : a.allocate(size);
            }

            @Override
            public boolean lends() {
                return true;
            }

            @Override
            public int blockSize() {
                return blockSize;
            }
        };
    }

    @Override
    public WriteMemory offer(RpcCall call) {
        RdmaBufferAllocator a = allocator;
        if (a == null || !a.keeps() || !a.isRdma(call)) {
            return WriteMemory.NONE;
        }
        return bytes -> a.keep(call, bytes);
    }
}
