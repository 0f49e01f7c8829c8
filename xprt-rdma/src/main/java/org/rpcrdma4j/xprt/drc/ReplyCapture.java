package org.rpcrdma4j.xprt.drc;

import java.net.InetSocketAddress;
import java.nio.channels.CompletionHandler;

import org.dcache.oncrpc4j.rpc.ReplyQueue;
import org.dcache.oncrpc4j.rpc.RpcAuthException;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.rpcrdma4j.xprt.internal.DelegatingTransport;

/**
 * The transport a cached procedure's {@code RpcCall} is bound to while it executes: {@link #send} copies the reply
 * into the cache, then forwards the very same stream to the call's real transport (which may be gone by now: the
 * client reconnected; it then fails the handler as it would have), and answers the retransmissions parked meanwhile.
 * Everything else is the real transport's, so a program sees the peer's addresses, reply queue and TLS state as
 * without the cache.
 * <p>
 * One per executed call; borrows the real transport.
 */
final class ReplyCapture implements DelegatingTransport {
    private final DuplicateRequestCache cache;
    private final CacheEntry entry;
    private final RpcTransport transport;

    ReplyCapture(DuplicateRequestCache cache, CacheEntry entry, RpcTransport transport) {
        this.cache = cache;
        this.entry = entry;
        this.transport = transport;
    }

    /** The real transport of the call. */
    RpcTransport transport() {
        return transport;
    }

    @Override
    public RpcTransport delegate() {
        return transport;
    }

    @Override
    public <A> void send(Xdr xdr, A attachment, CompletionHandler<Integer, ? super A> handler) {
        byte[] reply = CallBytes.copy(xdr);
        if (!cache.answered(entry, reply, transport, xdr, attachment, handler)) {
            handler.failed(new IllegalStateException("xid 0x" + Integer.toHexString(entry.xid)
                    + " has been answered already"), attachment);
        }
    }

    @Override
    public ReplyQueue getReplyQueue() {
        return transport.getReplyQueue();
    }

    @Override
    public boolean isOpen() {
        return transport.isOpen();
    }

    @Override
    public InetSocketAddress getLocalSocketAddress() {
        return transport.getLocalSocketAddress();
    }

    @Override
    public InetSocketAddress getRemoteSocketAddress() {
        return transport.getRemoteSocketAddress();
    }

    @Override
    public RpcTransport getPeerTransport() {
        return transport.getPeerTransport();
    }

    @Override
    public void startTLS() throws RpcAuthException, IllegalStateException {
        transport.startTLS();
    }

    @Override
    public boolean isTLS() {
        return transport.isTLS();
    }

    @Override
    public String toString() {
        return "ReplyCapture[" + entry + " over " + transport + "]";
    }
}
