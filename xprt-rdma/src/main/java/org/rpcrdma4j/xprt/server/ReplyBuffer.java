package org.rpcrdma4j.xprt.server;

import java.nio.ByteBuffer;

/**
 * Memory a program fills with a reply's bulk result (e.g. NFS READ data) and encodes by reference
 * ({@code Xdr.xdrEncodeShallowByteBuffer}), from {@link RdmaBufferAllocator}. When it is registered memory and the
 * call came over RDMA, the server RDMA-writes the result into the client's write chunk straight from it.
 * <p>
 * Ownership: the program owns it from {@code allocate} and gives it back with {@link #release()} exactly once, after
 * the reply's send completed (its completion handler, e.g. an {@code RpcCall.registerSendOnceListener}) or failed.
 * The server reads it until then.
 */
public interface ReplyBuffer {

    /** The memory: position 0, limit = the length asked for, direct. The same view on every call. */
    ByteBuffer buffer();

    /** Whether the memory is registered with the server's device (so RDMA can use it without a copy). */
    boolean isRegistered();

    /** Gives the memory back. Further calls do nothing. */
    void release();
}
