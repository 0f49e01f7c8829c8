package org.rpcrdma4j.xprt.client;

import java.io.EOFException;
import java.net.SocketAddress;
import java.nio.channels.CompletionHandler;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.dcache.oncrpc4j.rpc.ReplyQueue;
import org.dcache.oncrpc4j.rpc.RpcReply;
import org.dcache.oncrpc4j.rpc.RpcTransport;

/**
 * oncrpc4j's xid-to-handler map, with the timeouts taken over by the transport: {@code RpcCall} registers a handler
 * with its timeout and then sends; the timeout is remembered here and picked up by the send, so that the connection's
 * agent times the call out (and, when the call was on the wire, drops the connection) instead of oncrpc4j's timer
 * thread. Registering on a closed transport fails with {@link EOFException}, as oncrpc4j expects of a disconnected one.
 */
final class ClientReplyQueue extends ReplyQueue {
    private final ConcurrentHashMap<Integer, Long> deadlines = new ConcurrentHashMap<>();
    private volatile String closed;

    @Override
    public void registerKey(int xid, SocketAddress addr, CompletionHandler<RpcReply, RpcTransport> callback,
                            long timeout, TimeUnit timeoutUnits) throws EOFException {
        if (closed != null) {
            throw new EOFException(closed);
        }
        if (timeout > 0 && timeoutUnits != null) {
            long deadline = System.nanoTime() + timeoutUnits.toNanos(timeout);
            deadlines.put(xid, deadline == 0 ? 1 : deadline);
        } else {
            deadlines.remove(xid);
        }
        super.registerKey(xid, addr, callback, 0, null);
    }

    @Override
    public CompletionHandler<RpcReply, RpcTransport> get(int xid) {
        deadlines.remove(xid);
        return super.get(xid);
    }

    /** The deadline ({@link System#nanoTime()}) registered for {@code xid}, or 0 for none; forgets it. */
    long takeDeadline(int xid) {
        Long d = deadlines.remove(xid);
        return d == null ? 0 : d;
    }

    void close(String why) {
        closed = why;
    }
}
