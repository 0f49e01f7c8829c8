package org.rpcrdma4j.xprt.client;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

import io.netty.buffer.ByteBuf;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.rpcrdma4j.codec.RpcRdmaHeader;
import org.rpcrdma4j.codec.RpcRdmaProc;
import org.rpcrdma4j.registration.WrIds;
import org.rpcrdma4j.verbs.PostException;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.util.EnumCounters;
import org.rpcrdma4j.xprt.internal.InlineSends;
import org.rpcrdma4j.xprt.internal.Mailbox;
import org.rpcrdma4j.xprt.internal.ProgramTable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client's side of the reverse direction (RFC 8167): calls the server sends on this transport's connection,
 * served by the programs registered with {@link RdmaClientConfig.Builder#reverseProgram} and answered on the same
 * connection.
 * <p>
 * As Linux does it (PROTOCOLS.md A.9): a reverse call is an RDMA_MSG whose RPC msg_type is CALL, with empty chunk
 * lists (one with chunks is dropped); its reply goes back the same way, inline only. The reverse direction has its
 * own credits and buffers: {@link #REQUESTS} calls at once, each with a receive of its own (the transport posts that
 * many receives beyond the forward credits) and a {@link ReverseSlot} (the call's bytes, the reply's send buffer;
 * {@link #SLOTS} of them).
 * A call beyond them is dropped and counted. Without registered programs, every call is answered PROG_UNAVAIL, so a
 * server's caller fails at once instead of timing out.
 * <p>
 * Threads: the connection's agent takes calls in ({@link #onCall}), posts replies and sees their Send completions; a
 * call is screened and run on the reverse executor, never on the agent and never on the thread that delivers replies
 * to this side's own calls. Slots come back to the agent through a {@link Mailbox}.
 */
final class ReverseServer {
    private static final Logger LOG = LoggerFactory.getLogger(ReverseServer.class);

    /** Reverse-direction credits: calls the server may have outstanding (Linux's client posts 2 backchannel receives). */
    static final int REQUESTS = 2;
    /**
     * Slots: twice the credits. A slot stays busy until its reply's Send completes, and the server may send its next
     * call as soon as it has the reply, before that completion is seen here.
     */
    static final int SLOTS = 2 * REQUESTS;

    final String name;
    final ProgramTable programs;
    final Executor executor;
    final EnumCounters<ClientCounter> own;
    /** Wakes the agent, which drains the handed-back slots. */
    private final Runnable wakeAgent;
    private final InlineSends sends;
    private final int wrIndexBase;
    private final ReverseSlot[] slots;
    private final Mailbox<ReverseSlot> returned = new Mailbox<>();
    private volatile RpcTransport forward;

    /**
     * @param wakeAgent   wakes the connection's agent (any thread)
     * @param sends       the reply buffers, one per slot (owned: released by {@link #release()})
     * @param wrIndexBase Sends of replies carry index {@code wrIndexBase + slot}, above the request slots
     */
    ReverseServer(Runnable wakeAgent, String name, ProgramTable programs, Executor executor, InlineSends sends,
                  int wrIndexBase, int maxCall, EnumCounters<ClientCounter> own) {
        this.wakeAgent = wakeAgent;
        this.name = name;
        this.programs = programs;
        this.executor = executor;
        this.sends = sends;
        this.wrIndexBase = wrIndexBase;
        this.own = own;
        this.slots = new ReverseSlot[SLOTS];
        for (int i = 0; i < SLOTS; i++) {
            slots[i] = new ReverseSlot(this, i, maxCall, sends.maxMessage());
        }
    }

    /** Sets the forward direction (the client's transport), which reverse calls see as their peer transport. */
    void forward(RpcTransport transport) {
        forward = transport;
    }

    RpcTransport forward() {
        return forward;
    }

    /** Whether the RPC message {@code buf[at, at + length)} is a call (RFC 8167: msg_type after the xid). */
    static boolean isCall(RpcRdmaHeader header, ByteBuf buf, int at, int length) {
        return header.proc() == RpcRdmaProc.RDMA_MSG && length >= 8 && buf.getInt(at + 4) == 0;
    }

    // ------------------------------------------------------------------ agent

    /**
     * A reverse-direction call arrived on connection {@code generation}: copied into a free slot and handed to the
     * reverse executor, or dropped (chunks, no free slot).
     */
    void onCall(RpcRdmaHeader header, ByteBuf buf, int at, int length, int generation) {
        if (header.readChunkCount() != 0 || header.writeChunkCount() != 0 || header.hasReplyChunk()) {
            drop(header, "it has chunks (reverse-direction messages are inline only)");
            return;
        }
        ReverseSlot slot = null;
        for (ReverseSlot s : slots) {
            if (s.state == ReverseSlot.FREE) {
                slot = s;
                break;
            }
        }
        if (slot == null) {
            drop(header, "all " + SLOTS + " reverse-direction slots are in use (the server exceeds its "
                    + REQUESTS + " credits)");
            return;
        }
        if (length > slot.callCapacity()) {
            drop(header, "its " + length + " bytes exceed the inline threshold");
            return;
        }
        own.increment(ClientCounter.REVERSE_CALLS_RECEIVED);
        slot.take(buf, at, length, generation);
        try {
            executor.execute(slot);
        } catch (RejectedExecutionException e) {
            // the executor is full or shut down: the server hears SYSTEM_ERR at once rather than waiting out its
            // callback's timeout (and dropping the connection)
            LOG.warn("{}: the reverse executor refused call xid 0x{}; SYSTEM_ERR sent instead: {}", name,
                    Integer.toHexString(header.xid()), e.toString());
            slot.refused();
        }
    }

    private void drop(RpcRdmaHeader header, String why) {
        own.increment(ClientCounter.BACKCHANNEL_CALLS_DROPPED);
        LOG.debug("{}: dropped reverse-direction call xid 0x{}: {}", name, Integer.toHexString(header.xid()), why);
    }

    /**
     * Posts the replies handed back since the last round on {@code qp} (connection {@code generation}); replies to
     * calls of an earlier connection are not sent. {@code qp} null: no connection now. {@code inlineSend}: the
     * connection's negotiated inline send threshold (a longer reply is replaced by SYSTEM_ERR).
     * <p>
     * A post that fails ends the connection, but not the round: every slot drained is dealt with, or it would stay
     * DISPATCHING for ever. The failed one stays SENDING, to be freed by {@link #connectionLost()} once the agent
     * drops the connection; those after it are not posted and are lost as on no connection.
     *
     * @return slots handled
     * @throws PostException the first post that failed, after the whole round (the agent drops the connection)
     */
    int drainReturned(QueuePair qp, int generation, int inlineSend) throws PostException {
        int n = 0;
        PostException failed = null;
        ReverseSlot next;
        for (ReverseSlot slot = returned.drain(); slot != null; slot = next) {
            next = Mailbox.next(slot);
            n++;
            if (slot.replyLength < 0) {
                slot.state = ReverseSlot.FREE; // nothing to answer
                continue;
            }
            if (qp == null || slot.generation != generation) {
                own.increment(ClientCounter.REVERSE_REPLIES_LOST);
                slot.sendDone(new IOException("the connection the call came on was lost; its reply was not sent"));
                continue;
            }
            if (failed != null) {
                own.increment(ClientCounter.REVERSE_REPLIES_LOST);
                slot.sendDone(new IOException("the connection is being dropped (posting a reply failed: "
                        + failed.getMessage() + "); this reply was not sent"));
                continue;
            }
            slot.fitTo(inlineSend - InlineSends.HEADER_LENGTH);
            sends.load(slot.index, slot.reply, slot.replyLength, REQUESTS);
            slot.state = ReverseSlot.SENDING;
            try {
                sends.post(qp, slot.index, WrIds.of(WrIds.Kind.SEND, generation, wrIndexBase + slot.index));
            } catch (PostException e) {
                failed = e; // nothing was posted, so no completion comes: connectionLost() frees this slot
            }
        }
        if (failed != null) {
            throw failed;
        }
        return n;
    }

    /** Whether a Send completion with {@code index} is a reverse reply's. */
    boolean ownsSend(int index) {
        return index >= wrIndexBase && index < wrIndexBase + SLOTS;
    }

    /** A reply's Send completed or flushed. */
    void onSendComplete(int index, boolean ok, String status) {
        ReverseSlot slot = slots[index - wrIndexBase];
        if (slot.state != ReverseSlot.SENDING) {
            return;
        }
        own.increment(ok ? ClientCounter.REVERSE_REPLIES_SENT : ClientCounter.REVERSE_REPLIES_LOST);
        slot.sendDone(ok ? null : new IOException("the Send of the reply failed: " + status));
    }

    /** The connection is gone: replies posted on it never complete. Agent thread. */
    void connectionLost() {
        for (ReverseSlot slot : slots) {
            if (slot.state == ReverseSlot.SENDING) {
                own.increment(ClientCounter.REVERSE_REPLIES_LOST);
                slot.sendDone(new IOException("the connection was lost before the reply's Send completed"));
            }
        }
    }

    // ------------------------------------------------------------------ from the reverse executor

    /** A slot is answered (or needs no answer): back to the agent. Any thread. */
    void handBack(ReverseSlot slot) {
        returned.push(slot);
        wakeAgent.run();
    }

    /** Runs a notification off the agent. */
    void notify(Runnable task) {
        try {
            executor.execute(task);
        } catch (RejectedExecutionException e) {
            task.run();
        }
    }

    /** Slots in use (for the transport's close and for tests). */
    int busy() {
        int n = 0;
        for (ReverseSlot s : slots) {
            if (s.state != ReverseSlot.FREE) {
                n++;
            }
        }
        return n;
    }

    List<ReverseSlot> slots() {
        return List.of(slots);
    }

    void release() {
        sends.release();
    }
}
