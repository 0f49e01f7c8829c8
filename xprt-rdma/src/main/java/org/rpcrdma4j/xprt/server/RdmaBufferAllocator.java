package org.rpcrdma4j.xprt.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.nio.ByteBuffer;

import org.dcache.oncrpc4j.rpc.RpcCall;
import org.rpcrdma4j.registration.RegisteredBuffer;
import org.rpcrdma4j.registration.RegisteredBufferPool;
import org.rpcrdma4j.xprt.internal.DelegatingTransport;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * The zero-copy seam for replies: hands a program memory for a reply's DDP-eligible result. For a call that arrived
 * on this server's RDMA connections the memory comes from the server's registered buffer pool, so the reply's
 * result is RDMA-written into the client's write chunk straight from it; for any other call (the same program object
 * registered with an oncrpc4j TCP service, say) it is pooled direct memory, as a stream transport wants.
 * <p>
 * What it hands out is a Netty {@link ByteBuf}, the one type memory lent between the layers has: reference counted
 * and watched by Netty's leak detector. The program fills it, encodes it by reference with
 * {@code Xdr.xdrEncodeShallowByteBuffer(buffer.nioBuffer())} and releases it in a send listener
 * ({@code call.registerSendOnceListener}), which the server calls once the reply's Send has completed. The NFS
 * server's {@code ReadBufferAllocator} is this method:
 * <pre>{@code
 * ReadBufferAllocator readBuffers = server.bufferAllocator()::allocate;
 * }</pre>
 * The same seam runs the other way for calls: {@link #keep} lets a program keep a call's bulk arguments where they
 * landed instead of copying them.
 * <p>
 * Never blocks: when the pool has no room the buffer is plain direct memory and the reply is copied into
 * registered memory instead (counted as {@link ServerCounter#COPIED_REPLY_BYTES}). Thread-safe.
 */
public final class RdmaBufferAllocator {
    private final RdmaRpcServer server;

    RdmaBufferAllocator(RdmaRpcServer server) {
        this.server = server;
    }

    /**
     * A buffer of exactly {@code length} bytes' capacity (writer index 0) for the reply to {@code call}, owned by the
     * caller, who releases it once: registered when the call came over this server's RDMA connections and the pool
     * has room, else pooled direct memory.
     */
    public ByteBuf allocate(RpcCall call, int length) {
        if (isRdma(call)) {
            return allocate(length);
        }
        return direct(length);
    }

    /** A buffer of exactly {@code length} bytes' capacity, registered if the server's pool has room now. */
    public ByteBuf allocate(int length) {
        if (length < 0) {
            throw new IllegalArgumentException("negative length " + length);
        }
        RegisteredBufferPool pool = server.bufferPool;
        if (length > 0 && pool != null && length <= pool.config().arenaSize()) {
            try {
                RegisteredBuffer buffer = pool.tryAllocate(length);
                if (buffer != null) {
                    server.memoryIndex.record(buffer);
                    return buffer;
                }
            } catch (VerbsException | IllegalStateException e) {
                // closed or exhausted: plain memory below
            }
        }
        return direct(length);
    }

    /** Whether {@code buffer} is registered with this server's device (RDMA moves it without a copy). */
    public boolean isRegistered(ByteBuf buffer) {
        return buffer instanceof RegisteredBuffer r && r.registeredWith(server.pd);
    }

    /**
     * The zero-copy seam for a call's bulk arguments: keeps {@code bytes}, a view of {@code call}'s decoded arguments
     * that arrived through a read chunk (e.g. NFS WRITE data), past the reply, in the registered memory the server
     * pulled them into, so that the program need not copy them out. Call it on the program's thread once the
     * arguments are decoded and before the call is answered (the call's stream cannot be decoded further after a
     * keep); the kept view is {@code bytes}' position..limit.
     * <p>
     * Keeping pins the call's whole buffer (its arguments, a page at most more) until every kept piece is released,
     * and is bounded: the server keeps at most {@link RdmaRpcServer.Builder#keptCallMemory} bytes of such buffers
     * (default 0: nothing is kept) and refuses beyond it ({@link ServerCounter#KEEPS_REFUSED}).
     *
     * @return the kept bytes (readable, capacity = their length), a reference owned by the caller, who releases it
     *         once; null when they cannot be kept (the call came over another
     *         transport or inline, {@code bytes} is not in its read-chunk memory, the call was answered, keeping is
     *         off or its budget spent): the program then copies them
     */
    public ByteBuf keep(RpcCall call, ByteBuffer bytes) {
        if (DelegatingTransport.underlying(call.getTransport()) instanceof CallTransport t
                && t.slot.connection.server == server) {
            return t.slot.keep(t, call, bytes);
        }
        return null;
    }

    /** Whether this server lets programs keep call memory at all ({@link RdmaRpcServer.Builder#keptCallMemory}). */
    public boolean keeps() {
        return server.keeps();
    }

    /** Whether {@code call} arrived on one of this server's RDMA connections. */
    public boolean isRdma(RpcCall call) {
        return DelegatingTransport.underlying(call.getTransport()) instanceof CallTransport t
                && t.slot.connection.server == server;
    }

    private static ByteBuf direct(int length) {
        return PooledByteBufAllocator.DEFAULT.directBuffer(length, length);
    }
}
