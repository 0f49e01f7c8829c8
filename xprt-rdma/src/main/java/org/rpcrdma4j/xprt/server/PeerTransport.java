package org.rpcrdma4j.xprt.server;

import java.io.EOFException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.channels.CompletionHandler;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.Unpooled;
import org.dcache.oncrpc4j.rpc.ReplyQueue;
import org.dcache.oncrpc4j.rpc.RpcAuthError;
import org.dcache.oncrpc4j.rpc.RpcAuthException;
import org.dcache.oncrpc4j.rpc.RpcAuthStat;
import org.dcache.oncrpc4j.rpc.RpcReply;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.rpcrdma4j.xprt.internal.Xdrs;

/**
 * The reverse direction of one client connection as an oncrpc4j transport (RFC 8167): what
 * {@code getPeerTransport()} of a call served on that connection returns. An unmodified oncrpc4j {@code RpcCall} over
 * it sends a call to the client over the same RDMA connection and gets the client's reply:
 * <pre>
 * RpcCall callback = new RpcCall(program, version, auth, call.getTransport().getPeerTransport());
 * callback.call(procedure, args, result, 5, TimeUnit.SECONDS);
 * </pre>
 * {@link #send} copies the encoded call and queues it ({@link ReverseChannel}); it fails the handler at once with
 * {@link ReverseCallTooLargeException} when the call exceeds the inline threshold, and with an {@link EOFException}
 * once the connection is closing. Replies are matched through this transport's own {@link ReplyQueue} (one per
 * connection: reverse xids are the caller's and independent of the forward direction's); when the connection ends,
 * every caller still waiting gets an {@link EOFException}. A client that serves no reverse-direction program answers
 * PROG_UNAVAIL, which reaches the caller as {@code OncRpcAcceptedException}.
 */
final class PeerTransport implements RpcTransport {
    private final ReverseChannel channel;
    private final PeerReplyQueue replies = new PeerReplyQueue();

    PeerTransport(ReverseChannel channel) {
        this.channel = channel;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <A> void send(Xdr xdr, A attachment, CompletionHandler<Integer, ? super A> handler) {
        int length = Xdrs.length(xdr);
        byte[] message = new byte[Math.min(length, channel.maxCall() + 1)];
        if (length <= channel.maxCall()) {
            Xdrs.copyTo(xdr, Unpooled.wrappedBuffer(message).clear());
        }
        channel.submit(message, length, attachment, (CompletionHandler<Integer, Object>) handler);
    }

    @Override
    public ReplyQueue getReplyQueue() {
        return replies;
    }

    @Override
    public boolean isOpen() {
        return channel.isOpen();
    }

    @Override
    public InetSocketAddress getLocalSocketAddress() {
        return channel.connection().localAddress();
    }

    @Override
    public InetSocketAddress getRemoteSocketAddress() {
        return channel.connection().remoteAddress();
    }

    /**
     * Refused: the forward direction of a server connection only brings calls from the client, and each of those has
     * its own transport (the one this transport was obtained from).
     */
    @Override
    public RpcTransport getPeerTransport() {
        throw new UnsupportedOperationException("the forward direction of " + getRemoteSocketAddress()
                + " has no transport of its own to send from; reply through the served call's transport");
    }

    /** Refused: RPC-with-TLS (RFC 9289) is defined for stream transports; RPC-over-RDMA has no TLS. */
    @Override
    public void startTLS() throws RpcAuthException {
        throw new RpcAuthException("TLS is not available over RPC-over-RDMA", new RpcAuthError(RpcAuthStat.AUTH_FAILED));
    }

    @Override
    public boolean isTLS() {
        return false;
    }

    /** The connection ended: every caller waiting for a reply fails, later registrations are refused. */
    void closeReplies() {
        replies.close();
    }

    @Override
    public String toString() {
        return "reverse direction of RDMA connection " + getRemoteSocketAddress();
    }

    /**
     * oncrpc4j's xid-to-handler map with a closed state: registering after the connection ended throws
     * {@link EOFException} (what {@code RpcCall} expects of a disconnected transport), and closing fails every handler
     * still registered, whatever address it was registered with. Timeouts stay oncrpc4j's (its timer thread, started
     * on first use, stopped on close).
     */
    private static final class PeerReplyQueue extends ReplyQueue {
        private final Set<Integer> registered = ConcurrentHashMap.newKeySet();
        private volatile boolean closed;

        @Override
        public void registerKey(int xid, SocketAddress addr, CompletionHandler<RpcReply, RpcTransport> callback,
                                long timeout, TimeUnit timeoutUnits) throws EOFException {
            if (closed) {
                throw closedException();
            }
            registered.add(xid);
            super.registerKey(xid, addr, callback, timeout, timeoutUnits);
            if (closed && get(xid) != null) {
                throw closedException(); // closed while registering: nobody else would fail it
            }
        }

        @Override
        public CompletionHandler<RpcReply, RpcTransport> get(int xid) {
            registered.remove(xid);
            return super.get(xid);
        }

        void close() {
            closed = true;
            EOFException eof = closedException();
            for (Integer xid : registered) {
                CompletionHandler<RpcReply, RpcTransport> h = get(xid);
                if (h != null) {
                    h.failed(eof, null);
                }
            }
            shutdown();
        }

        private static EOFException closedException() {
            return new EOFException("the RDMA connection is closed; reverse-direction calls cannot be sent or answered");
        }
    }
}
