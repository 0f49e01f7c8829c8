package org.rpcrdma4j.xprt.server;

import java.io.EOFException;
import java.io.IOException;
import java.nio.channels.CompletionHandler;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

import io.netty.buffer.ByteBuf;
import org.dcache.oncrpc4j.rpc.OncRpcAcceptedException;
import org.dcache.oncrpc4j.rpc.OncRpcRejectedException;
import org.dcache.oncrpc4j.rpc.RpcAccepsStatus;
import org.dcache.oncrpc4j.rpc.RpcReply;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.rpcrdma4j.codec.RpcRdmaHeader;
import org.rpcrdma4j.codec.RpcRdmaProc;
import org.rpcrdma4j.registration.WrIds;
import org.rpcrdma4j.verbs.PostException;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.WcStatus;
import org.rpcrdma4j.verbs.WorkCompletion;
import org.rpcrdma4j.xprt.internal.InlineSends;
import org.rpcrdma4j.xprt.internal.RpcHeader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reverse direction of one connection (RFC 8167): calls from this server to the client, sent through
 * {@link PeerTransport} (what a served call's {@code getPeerTransport()} returns), and the matching of the client's
 * replies to them.
 * <p>
 * As Linux does it (PROTOCOLS.md A.9): reverse calls and replies are RDMA_MSG with empty chunk lists, inline only;
 * a call larger than the inline threshold is refused before sending ({@link ReverseCallTooLargeException}). The
 * reverse direction has its own credits: {@link #REQUESTS} calls on the wire at once, each with a send buffer of its
 * own ({@link InlineSends}) and a receive of its own for its reply (the connection posts that many receives beyond
 * the forward credits); more calls wait here, in order. Xids are the caller's (oncrpc4j's {@code RpcCall} picks them),
 * independent of the forward direction's; the reply is told from a forward call by its msg_type (REPLY) and matched
 * by xid among the calls on the wire. A call holds its credit until its reply comes, whatever its caller's own
 * timeout; one unanswered for the server's reverse reply timeout makes the connection drop itself
 * ({@link #oldestUnansweredNanos()}), which frees the credits and fails every caller still waiting.
 * <p>
 * Threads: {@link PeerTransport#send} runs on any thread and only queues; the connection's agent posts, sees Send
 * completions and replies; reply handlers and send notifications run on the server's connection executor, never on
 * the agent, never on the dispatch threads (which may all be blocked in programs waiting for those very replies) and
 * never behind calls waiting for memory.
 * Handlers must be short and must not block, as with oncrpc4j's own transports, whose replies arrive on I/O threads.
 */
final class ReverseChannel {
    private static final Logger LOG = LoggerFactory.getLogger(ReverseChannel.class);

    /** Reverse-direction calls on the wire at once (Linux allows 2 backchannel requests). */
    static final int REQUESTS = 2;

    /** A call handed to {@link PeerTransport#send}, waiting for a reverse credit. */
    private record Pending(byte[] message, int length, int xid, Object attachment,
                           CompletionHandler<Integer, Object> handler) {
    }

    private final Connection connection;
    private final InlineSends sends;
    private final int wrIndexBase;
    private final Executor executor;
    private final ConcurrentLinkedQueue<Pending> queued = new ConcurrentLinkedQueue<>();
    private final PeerTransport transport;
    private volatile boolean closed;

    // ---- agent-owned state of the calls on the wire, one per reverse credit
    private final Pending[] onWire = new Pending[REQUESTS];
    private final boolean[] sendPending = new boolean[REQUESTS];
    private final boolean[] answered = new boolean[REQUESTS];
    private final long[] postedAt = new long[REQUESTS];

    /**
     * @param sends       the connection's reverse send buffers (borrowed; released with the connection)
     * @param wrIndexBase Send work requests of this channel carry index {@code wrIndexBase + credit}, above the
     *                    connection's call slots
     */
    ReverseChannel(Connection connection, InlineSends sends, int wrIndexBase, Executor executor) {
        this.connection = connection;
        this.sends = sends;
        this.wrIndexBase = wrIndexBase;
        this.executor = executor;
        this.transport = new PeerTransport(this);
    }

    PeerTransport transport() {
        return transport;
    }

    Connection connection() {
        return connection;
    }

    /** The longest RPC call that can be sent in the reverse direction. */
    int maxCall() {
        return sends.maxMessage();
    }

    // ------------------------------------------------------------------ any thread

    /** Queues an encoded call (its bytes, copied) for the agent; fails it at once when it cannot be sent. */
    void submit(byte[] message, int length, Object attachment, CompletionHandler<Integer, Object> handler) {
        if (length > maxCall()) {
            connection.count(ServerCounter.REVERSE_CALLS_REFUSED);
            handler.failed(new ReverseCallTooLargeException(length, maxCall()), attachment);
            return;
        }
        if (length < 8) {
            handler.failed(new IOException("a " + length + "-byte message is not an RPC call"), attachment);
            return;
        }
        if (closed) {
            connection.count(ServerCounter.REVERSE_CALLS_REFUSED);
            handler.failed(closedException(), attachment);
            return;
        }
        int xid = ((message[0] & 0xFF) << 24) | ((message[1] & 0xFF) << 16) | ((message[2] & 0xFF) << 8)
                | (message[3] & 0xFF);
        queued.add(new Pending(message, length, xid, attachment, handler));
        connection.count(ServerCounter.REVERSE_QUEUE_DEPTH, 1);
        if (closed) {
            failQueued(); // the agent may have finished closing before the call was queued
        } else {
            connection.wakeAgent();
        }
    }

    boolean isOpen() {
        return !closed;
    }

    // ------------------------------------------------------------------ agent

    /** Posts queued calls while reverse credits are free. @return calls posted */
    int post(QueuePair qp) throws PostException {
        int posted = 0;
        for (int r = 0; r < REQUESTS && !queued.isEmpty(); r++) {
            if (onWire[r] != null) {
                continue;
            }
            Pending call = queued.poll();
            if (call == null) {
                break;
            }
            connection.count(ServerCounter.REVERSE_QUEUE_DEPTH, -1);
            onWire[r] = call;
            sendPending[r] = true;
            answered[r] = false;
            postedAt[r] = System.nanoTime();
            sends.load(r, call.message, call.length, REQUESTS);
            connection.count(ServerCounter.REVERSE_CALLS_SENT);
            sends.post(qp, r, WrIds.of(WrIds.Kind.SEND, 0, wrIndexBase + r));
            posted++;
        }
        return posted;
    }

    /**
     * When the oldest reverse call still waiting for its reply was posted ({@link System#nanoTime()}), or
     * {@link Long#MAX_VALUE} when none waits. Agent thread.
     */
    long oldestUnansweredNanos() {
        long oldest = Long.MAX_VALUE;
        for (int r = 0; r < REQUESTS; r++) {
            if (onWire[r] != null && !answered[r] && (oldest == Long.MAX_VALUE || postedAt[r] - oldest < 0)) {
                oldest = postedAt[r];
            }
        }
        return oldest;
    }

    /** Whether a Send completion with {@code index} belongs to this channel. */
    boolean ownsSend(int index) {
        return index >= wrIndexBase && index < wrIndexBase + REQUESTS;
    }

    /** The Send of a reverse call completed (or flushed). */
    void onSendComplete(int index, WorkCompletion wc) {
        int r = index - wrIndexBase;
        Pending call = onWire[r];
        if (call == null || !sendPending[r]) {
            return; // closed already: its caller has been told
        }
        sendPending[r] = false;
        if (wc.ok()) {
            notifySent(call);
        } else {
            // the reply cannot come: the connection is going down (the agent drops it for any other status)
            answered[r] = true;
            notifyFailed(call, new IOException("the Send of reverse-direction call xid 0x"
                    + Integer.toHexString(call.xid) + " failed: " + wc.status
                    + (wc.status == WcStatus.WR_FLUSH_ERR ? " (connection closing)" : "")));
        }
        if (answered[r]) {
            onWire[r] = null;
        }
    }

    /**
     * Takes the message if it is a reverse-direction reply: an RPC REPLY (msg_type after the xid; RFC 8167, version 1
     * has no direction field) in an RDMA_MSG without chunks, the only form reverse-direction replies take. One that
     * answers no call on the wire is dropped and counted. Agent thread.
     *
     * @param buf borrowed; the RPC message is {@code buf[at, at + length)}
     * @return whether the message was a reply (the caller recycles its receive buffer); false: treat it as a call
     */
    boolean takeReply(RpcRdmaHeader header, ByteBuf buf, int at, int length) {
        if (header.proc() != RpcRdmaProc.RDMA_MSG || length < 8 || header.readChunkCount() != 0
                || header.writeChunkCount() != 0 || header.hasReplyChunk() || buf.getInt(at + 4) != RpcHeader.REPLY) {
            return false;
        }
        if (!onReply(buf, at, length)) {
            connection.count(ServerCounter.MESSAGES_DROPPED);
            LOG.debug("{}: dropped a reply (xid 0x{}) that answers no reverse-direction call", connection,
                    Integer.toHexString(header.xid()));
        }
        return true;
    }

    /**
     * A message whose RPC msg_type is REPLY arrived: the reply to one of the calls on the wire, matched by xid.
     *
     * @param buf    borrowed; the RPC message is {@code buf[at, at + length)}
     * @return false when no reverse call on the wire has that xid (the caller drops the message)
     */
    private boolean onReply(ByteBuf buf, int at, int length) {
        int xid = buf.getInt(at);
        for (int r = 0; r < REQUESTS; r++) {
            Pending call = onWire[r];
            if (call == null || answered[r] || call.xid != xid) {
                continue;
            }
            answered[r] = true;
            if (!sendPending[r]) {
                onWire[r] = null;
            }
            connection.count(ServerCounter.REVERSE_REPLIES);
            byte[] bytes = new byte[length];
            buf.getBytes(at, bytes);
            execute(() -> deliver(xid, bytes));
            return true;
        }
        return false;
    }

    /**
     * The connection is closing: calls on the wire and queued calls fail, later ones are refused at once. Agent
     * thread.
     */
    void close() {
        if (closed) {
            return;
        }
        closed = true;
        List<Pending> unsent = new ArrayList<>(REQUESTS);
        for (int r = 0; r < REQUESTS; r++) {
            if (onWire[r] != null && !answered[r]) {
                connection.count(ServerCounter.REVERSE_CALLS_FAILED);
            }
            if (onWire[r] != null && sendPending[r]) {
                unsent.add(onWire[r]); // its Send never completed, nor will its flush be looked at
            }
            onWire[r] = null;
            sendPending[r] = false;
        }
        // one task, in this order: calls not sent fail through their send handler (oncrpc4j's RpcCall then forgets
        // the xid), then every caller still waiting for a reply gets an EOFException from the reply queue
        execute(() -> {
            for (Pending call : unsent) {
                call.handler.failed(closedException(), call.attachment);
            }
            failQueued();
            transport.closeReplies();
        });
    }

    // ------------------------------------------------------------------ delivery (connection executor)

    /** Hands a reply to the handler oncrpc4j registered for its xid, as oncrpc4j's own protocol filter does. */
    private void deliver(int xid, byte[] bytes) {
        CompletionHandler<RpcReply, RpcTransport> handler = transport.getReplyQueue().get(xid);
        if (handler == null) {
            LOG.debug("{}: reply to reverse-direction call xid 0x{} came after its caller gave up", connection,
                    Integer.toHexString(xid));
            return;
        }
        try {
            Xdr xdr = new Xdr(bytes);
            xdr.beginDecoding();
            xdr.xdrDecodeInt(); // xid
            xdr.xdrDecodeInt(); // REPLY
            RpcReply reply = new RpcReply(xid, xdr, transport);
            if (!reply.isAccepted()) {
                handler.failed(new OncRpcRejectedException(reply.getRejectStatus()), transport);
            } else if (reply.getAcceptStatus() != RpcAccepsStatus.SUCCESS) {
                handler.failed(new OncRpcAcceptedException(reply.getAcceptStatus()), transport);
            } else {
                handler.completed(reply, transport);
            }
        } catch (IOException | RuntimeException e) {
            handler.failed(new IOException("the reply to reverse-direction call xid 0x" + Integer.toHexString(xid)
                    + " does not decode: " + e.getMessage(), e), transport);
        }
    }

    private void notifySent(Pending call) {
        execute(() -> call.handler.completed(call.length, call.attachment));
    }

    private void notifyFailed(Pending call, Throwable why) {
        execute(() -> call.handler.failed(why, call.attachment));
    }

    private void failQueued() {
        Pending call;
        while ((call = queued.poll()) != null) {
            connection.count(ServerCounter.REVERSE_QUEUE_DEPTH, -1);
            connection.count(ServerCounter.REVERSE_CALLS_REFUSED);
            notifyFailed(call, closedException());
        }
    }

    private void execute(Runnable task) {
        try {
            executor.execute(task);
        } catch (RejectedExecutionException e) {
            task.run(); // the server is stopping: run it here rather than lose the caller's answer
        }
    }

    private EOFException closedException() {
        return new EOFException("the RDMA connection " + connection.remoteAddress()
                + " is closed; reverse-direction calls cannot be sent");
    }
}
