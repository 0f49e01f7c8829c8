package org.rpcrdma4j.nfs.server.rdma;

import io.netty.buffer.ByteBuf;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.rpcrdma4j.nfs.server.PooledReadBufferAllocator;
import org.rpcrdma4j.nfs.server.ReadBufferAllocator;
import org.rpcrdma4j.nfs.server.WriteMemorySource;
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

    @Override
    public WriteMemory offer(RpcCall call) {
        RdmaBufferAllocator a = allocator;
        if (a == null || !a.keeps() || !a.isRdma(call)) {
            return WriteMemory.NONE;
        }
        return bytes -> a.keep(call, bytes);
    }
}
