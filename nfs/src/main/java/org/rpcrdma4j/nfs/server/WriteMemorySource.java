package org.rpcrdma4j.nfs.server;

import org.dcache.oncrpc4j.rpc.RpcCall;
import org.rpcrdma4j.nfs.vfs.WriteMemory;

/**
 * Where the NFS server finds the memory a WRITE's data arrived in, for the VFS to keep instead of copying: the
 * zero-copy seam of the WRITE path, the counterpart of {@link ReadBufferAllocator}. Over TCP there is none
 * ({@link #NONE}, the default): the data is in the socket's receive buffer and the VFS copies it. An RDMA server
 * offers the registered memory it pulled the WRITE's read chunk into (it recognises its calls by
 * {@link RpcCall#getTransport()}), so the file's blocks become the memory the client's NIC wrote.
 * <p>
 * Called from the server's worker threads concurrently.
 */
@FunctionalInterface
public interface WriteMemorySource {

    /** Offers nothing. */
    WriteMemorySource NONE = call -> WriteMemory.NONE;

    /**
     * The memory {@code call}'s WRITE data (decoded as a view of the call's arguments) arrived in, offered for the VFS
     * to keep; {@link WriteMemory#NONE} when there is none. Asked once the arguments are decoded; the offer is good
     * until the call is answered.
     */
    WriteMemory offer(RpcCall call);
}
