package org.rpcrdma4j.nfs.server;

import io.netty.buffer.ByteBuf;
import org.dcache.oncrpc4j.rpc.RpcCall;

/**
 * Where the NFS server gets the memory a READ's data goes into: the zero-copy seam of the READ path. The VFS reads
 * file data straight into the buffer, and the reply references it ({@code xdrEncodeShallowByteBuffer}) instead of
 * copying it into the reply's XDR stream.
 * <p>
 * Over TCP the default ({@link PooledReadBufferAllocator}) hands out pooled direct memory that the socket writes
 * from. An RDMA server supplies its own allocator that returns slices of registered memory for calls arriving on
 * its connections (it recognises them by {@link RpcCall#getTransport()}), so that the data it pushes into the
 * client's write chunk with RDMA WRITE is the very memory the file was read into.
 * <p>
 * Called from the server's worker threads concurrently.
 */
public interface ReadBufferAllocator {

    /**
     * A buffer of exactly {@code length} bytes' capacity for the data of {@code call}'s READ reply. The reference
     * passes to the caller, who releases it after the reply has been sent.
     */
    ByteBuf allocate(RpcCall call, int length);
}
