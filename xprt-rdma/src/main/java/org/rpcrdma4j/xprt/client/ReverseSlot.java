package org.rpcrdma4j.xprt.client;

import java.io.IOException;
import java.nio.channels.CompletionHandler;
import java.util.concurrent.atomic.AtomicReference;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.rpcrdma4j.xprt.internal.CallScreen;
import org.rpcrdma4j.xprt.internal.CallStream;
import org.rpcrdma4j.xprt.internal.Mailbox;
import org.rpcrdma4j.xprt.internal.RpcDispatch;
import org.rpcrdma4j.xprt.internal.RpcReplies;
import org.rpcrdma4j.xprt.internal.Xdrs;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One reverse-direction call (RFC 8167) the client serves: its bytes, copied out of the receive buffer; the screen and
 * dispatch on the reverse executor; and the place its reply is copied to before the agent sends it. Made once per
 * reverse credit, reused. The oncrpc4j call is bound to a {@link ReverseCallTransport} of its own, which holds the
 * call's right to this slot's reply ({@link #send}).
 * <p>
 * Ownership moves with the state: FREE and SENDING belong to the agent, DISPATCHING to the reverse executor (and the
 * program, until it replies); the hand-overs go through the executor and the {@link ReverseServer}'s mailbox, which
 * order the writes. A slot is pushed to the mailbox once per call: by the screen's verdict, or by the one reply the
 * call's right lets through.
 */
final class ReverseSlot implements Runnable, Mailbox.Linked<ReverseSlot> {
    private static final Logger LOG = LoggerFactory.getLogger(ReverseSlot.class);

    static final int FREE = 0;
    static final int DISPATCHING = 1;
    static final int SENDING = 2;

    final int index;
    private final ReverseServer server;
    private final byte[] call;
    private final ByteBuf callView;
    final byte[] reply;
    private final ByteBuf replyView;
    private final CallScreen screen = new CallScreen();
    /**
     * The transport of the dispatched call that may still reply; taken (set to null) by its one reply. A reply through
     * any other transport (a second reply, or a late one to a call this slot carried before) finds it gone.
     */
    private final AtomicReference<ReverseCallTransport> replyRight = new AtomicReference<>();
    private ReverseSlot mailboxNext;
    /**
     * The dispatched call's stream, over {@link #call}, until its reply is taken ({@link CallStream}): detached then by
     * the thread that took the reply right, before the hand-back.
     */
    private final CallStream stream = new CallStream();

    volatile int state = FREE;
    int callLength;
    int generation;
    /** Bytes of the reply in {@link #reply}; -1: the call gets no reply. */
    int replyLength;
    private CompletionHandler<Integer, Object> handler;
    private Object attachment;

    ReverseSlot(ReverseServer server, int index, int maxCall, int maxReply) {
        this.server = server;
        this.index = index;
        this.call = new byte[maxCall];
        this.callView = Unpooled.wrappedBuffer(call);
        this.reply = new byte[maxReply];
        this.replyView = Unpooled.wrappedBuffer(reply);
    }

    int callCapacity() {
        return call.length;
    }

    /** Agent: takes the call in {@code buf[at, at + length)} (copied; the receive buffer goes back at once). */
    void take(ByteBuf buf, int at, int length, int connection) {
        buf.getBytes(at, call, 0, length);
        callLength = length;
        generation = connection;
        replyLength = -1;
        handler = null;
        attachment = null;
        state = DISPATCHING;
    }

    /** Reverse executor: screens the call, then dispatches it or answers the refusal. */
    @Override
    public void run() {
        CallScreen.Verdict verdict = screen.screen(callView, 0, callLength, server.programs);
        switch (verdict) {
            case DISPATCH -> {
                ReverseCallTransport transport = new ReverseCallTransport(this, callView.getInt(0));
                replyRight.set(transport);
                Xdr xdr = stream.over(call, callLength);
                try {
                    RpcDispatch.dispatch(screen.entry(), xdr, transport, server.name);
                } catch (RuntimeException | Error e) {
                    answerSystemErr(transport, e);
                }
            }
            case DROP, DROP_BACKCHANNEL_REPLY -> server.handBack(this);
            default -> {
                server.own.increment(ClientCounter.REVERSE_CALLS_REFUSED);
                replyLength = screen.writeRefusal(replyView, 0);
                server.handBack(this);
            }
        }
    }

    // ------------------------------------------------------------------ the program's reply

    /**
     * The reply to the call of {@code transport}: copied into this slot and handed to the agent, which sends it
     * inline; the handler hears of the Send's completion. Taken once, and only while this slot still carries that
     * call: a second reply, or one that comes after the slot moved on to another call, is not sent (its handler fails)
     * and is logged. A reply larger than an inline message is not sent either: the handler fails and the server gets
     * SYSTEM_ERR instead (its caller fails at once rather than waiting for a reply that cannot come).
     */
    @SuppressWarnings("unchecked")
    <A> void send(ReverseCallTransport transport, Xdr xdr, A attachment,
                  CompletionHandler<Integer, ? super A> handler) {
        if (!replyRight.compareAndSet(transport, null)) {
            LOG.warn("{}: a second reply to reverse-direction call xid 0x{} dropped: the call was answered already",
                    server.name, Integer.toHexString(transport.xid));
            handler.failed(new IllegalStateException("reverse-direction call xid 0x"
                    + Integer.toHexString(transport.xid) + " has been answered already"), attachment);
            return;
        }
        int length = Xdrs.length(xdr);
        if (length > reply.length) {
            server.own.increment(ClientCounter.REVERSE_CALLS_REFUSED);
            replyLength = RpcReplies.accepted(replyView, 0, transport.xid, RpcReplies.SYSTEM_ERR);
            this.handler = null;
            this.attachment = null;
            handler.failed(new IOException("the reply of " + length + " bytes to reverse-direction call xid 0x"
                    + Integer.toHexString(transport.xid) + " exceeds the " + reply.length + " bytes an inline "
                    + "message holds; SYSTEM_ERR sent instead"), attachment);
        } else {
            replyLength = Xdrs.copyTo(xdr, replyView.clear());
            this.handler = (CompletionHandler<Integer, Object>) handler;
            this.attachment = attachment;
        }
        stream.detach();
        server.handBack(this);
    }

    /**
     * The program failed and not even the failure reply oncrpc4j makes could be sent (it allocates, and encodes what
     * the program's exception carries): SYSTEM_ERR is written in the slot's own memory, so that the call is answered
     * and the slot comes back, unless a reply got through meanwhile.
     */
    private void answerSystemErr(ReverseCallTransport transport, Throwable cause) {
        LOG.error("{}: reverse-direction call xid 0x{} could not be answered; SYSTEM_ERR sent instead", server.name,
                Integer.toHexString(transport.xid), cause);
        if (!replyRight.compareAndSet(transport, null)) {
            return;
        }
        stream.detach();
        server.own.increment(ClientCounter.REVERSE_CALLS_REFUSED);
        replyLength = RpcReplies.accepted(replyView, 0, transport.xid, RpcReplies.SYSTEM_ERR);
        handler = null;
        attachment = null;
        server.handBack(this);
    }

    /** Agent: the call taken could not be dispatched (the reverse executor refused it): SYSTEM_ERR in its place. */
    void refused() {
        server.own.increment(ClientCounter.REVERSE_CALLS_REFUSED);
        replyLength = RpcReplies.accepted(replyView, 0, callView.getInt(0), RpcReplies.SYSTEM_ERR);
        server.handBack(this);
    }

    /** Whether the call of {@code transport} still awaits its reply: this slot carries it and it has not replied. */
    boolean awaitsReply(ReverseCallTransport transport) {
        return replyRight.get() == transport && state == DISPATCHING;
    }

    /**
     * Agent: a reply no longer fitting the connection's negotiated inline threshold ({@code maxMessage} bytes of RPC
     * message) is replaced by SYSTEM_ERR, and its handler fails.
     */
    void fitTo(int maxMessage) {
        if (replyLength <= maxMessage) {
            return;
        }
        server.own.increment(ClientCounter.REVERSE_CALLS_REFUSED);
        int length = replyLength;
        replyLength = RpcReplies.accepted(replyView, 0, callView.getInt(0), RpcReplies.SYSTEM_ERR);
        CompletionHandler<Integer, Object> h = handler;
        Object a = attachment;
        handler = null;
        attachment = null;
        if (h != null) {
            server.notify(() -> h.failed(new IOException("the reply of " + length + " bytes exceeds the "
                    + maxMessage + " bytes the connection's inline threshold allows; SYSTEM_ERR sent instead"), a));
        }
    }

    /** Agent: the reply's Send is over ({@code failure} null: completed), or it was never sent. The slot is free. */
    void sendDone(IOException failure) {
        CompletionHandler<Integer, Object> h = handler;
        Object a = attachment;
        int length = replyLength;
        handler = null;
        attachment = null;
        state = FREE;
        if (h != null) {
            server.notify(failure == null ? () -> h.completed(length, a) : () -> h.failed(failure, a));
        }
    }

    /** The forward direction (this client's transport), whose addresses and reply queue reverse calls share. */
    RpcTransport forward() {
        return server.forward();
    }

    @Override
    public ReverseSlot mailboxNext() {
        return mailboxNext;
    }

    @Override
    public void mailboxNext(ReverseSlot next) {
        mailboxNext = next;
    }

    @Override
    public String toString() {
        return "reverse-direction call slot " + index + " of " + server.name;
    }
}
