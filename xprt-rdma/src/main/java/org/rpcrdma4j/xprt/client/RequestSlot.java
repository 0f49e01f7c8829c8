package org.rpcrdma4j.xprt.client;

import io.netty.buffer.ByteBuf;
import org.rpcrdma4j.codec.RpcRdmaHeader;
import org.rpcrdma4j.codec.RpcRdmaLimits;
import org.rpcrdma4j.registration.InvalidationListener;
import org.rpcrdma4j.registration.RegisteredBuffer;
import org.rpcrdma4j.registration.Registration;
import org.rpcrdma4j.registration.ScatterList;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.xprt.DataItem;
import org.rpcrdma4j.xprt.UpperLayerBinding;
import org.rpcrdma4j.xprt.internal.DataItemCut;
import org.rpcrdma4j.xprt.internal.InlineThresholds;
import org.rpcrdma4j.xprt.internal.Mailbox;
import org.rpcrdma4j.xprt.internal.RpcHeader;
import org.rpcrdma4j.xprt.internal.SlotQueue;
import org.rpcrdma4j.xprt.internal.StreamLayout;

/**
 * One request slot: everything one RPC needs from marshaling to completion, made once when the transport starts and
 * reused for every call (Linux's {@code rpcrdma_req}). There are as many slots as credits the client asks for, plus
 * one reserved for the keep-alive probe.
 * <p>
 * <b>Send buffer layout.</b> The transport header is written right-aligned just before {@link #RESERVE}, so that it
 * and an RPC message copied at {@code RESERVE} form one contiguous SGE:
 * <pre>
 *  0                 RESERVE - hdr   RESERVE
 *  |      unused      | transport hdr | head (message ...) | pad | tail |
 * </pre>
 * <b>The call</b> is described as three parts of registered memory: <em>head</em> (the RPC message up to and including
 * the DDP-eligible item's length word, or the whole message when there is no item), <em>item</em> (the item's bytes,
 * optional; the caller's payload or a part of a copied message), and <em>tail</em> (the item's XDR pad, then the rest
 * of the message). Re-marshaling after a reconnect only needs these parts (and planning the reply again when the new
 * connection negotiated other inline thresholds).
 * <p>
 * <b>Ownership.</b> A slot belongs to one thread at a time: the caller that took it from the free pool (marshaling,
 * which may block), then the agent (queued, on the wire, completing), possibly the recovery thread (re-marshaling after
 * a reconnect), then the agent again, which returns it to the pool. Hand-offs go through queues.
 */
final class RequestSlot implements InvalidationListener, SlotQueue.Entry<RequestSlot>, Mailbox.Linked<RequestSlot> {
    /** Bytes kept in front of the message for the transport header. */
    static final int RESERVE = 1024;

    enum State {
        /** In the free pool. */
        FREE,
        /** Owned by a caller or the recovery thread. */
        MARSHALING,
        /** In the agent's send queue: waiting for a credit or a connection. */
        QUEUED,
        /** On the wire, awaiting its reply. */
        SENT,
        /** Replied or failed; waiting for its Send completion and the invalidation of its handles. */
        COMPLETING,
        /** Waiting for the invalidation of its handles before going to the recovery thread. */
        RECOVERING
    }

    /** What the agent should do with a slot handed to it. */
    enum Command { SEND, FAIL }

    /** How the reply comes back. */
    enum ReplyPlan { INLINE, WRITE_CHUNK, REPLY_CHUNK }

    final int index;
    final ClientAgent agent;
    final RegisteredBuffer sendBuffer;
    /** A second view of the send buffer for bindings (indexes set per use). */
    final ByteBuf argsView;
    final RpcRdmaHeader header;
    final Registration registration;
    final ScatterList itemList;
    final ScatterList sinkList;
    final ScatterList bodyList;
    final SendWorkRequest sendWr;
    final RpcHeader callHeader = new RpcHeader();
    final RpcHeader replyHeader = new RpcHeader();
    /** The call cut around its DDP-eligible argument. */
    final DataItemCut callCut = new DataItemCut();
    /** Where a reduced reply's data item belongs, and the reply rebuilt around it. */
    final DataItem replyItem = new DataItem();
    final StreamLayout replyLayout = new StreamLayout();

    // ---------------------------------------------------------------- the call
    int xid;
    int program;
    int version;
    int procedure;
    UpperLayerBinding binding;
    RegisteredBuffer headBuf;
    int headIndex;
    int headLength;
    RegisteredBuffer itemBuf;
    int itemIndex;
    int itemLength;
    boolean hasItem;
    RegisteredBuffer tailBuf;
    int tailIndex;
    int padLength;
    int tailLength;
    ReplyPlan replyPlan = ReplyPlan.INLINE;
    /** The reply goes into the caller's sink (DDP API): the plan is the caller's, whatever the thresholds. */
    boolean callerSink;
    /**
     * The connection's inline thresholds the reply plan and the marshaling were made for (null: not marshaled yet).
     * A connection with other thresholds needs both made again before the call goes out on it.
     */
    InlineThresholds plannedWith;
    RegisteredBuffer sinkBuf;
    int sinkIndex;
    int sinkLength;
    /** Transport buffers this call holds (a copied message, a reply or write chunk sink); released at completion. */
    RegisteredBuffer ownedCall;
    RegisteredBuffer ownedReply;
    /** Segments of the registration by chunk: [from, to). */
    int writeSegFrom;
    int writeSegTo;
    int replySegFrom;
    int replySegTo;
    int readSegFrom;
    int readSegTo;
    /** Bytes of the RPC call (unreduced). */
    int rpcLength;
    long deadlineNanos;

    /**
     * The DDP caller's payload and sink, retained from submission until the call is done and every handle over them
     * is invalid: a caller that lets go of its own reference early (an interrupted wait) cannot return memory the
     * server may still read or write to the pool.
     */
    RegisteredBuffer pinnedPayload;
    RegisteredBuffer pinnedSink;

    // ---------------------------------------------------------------- completion targets (one of them)
    RdmaCall ddpCall;
    boolean plain;
    boolean keepAliveProbe;

    // ---------------------------------------------------------------- agent state
    volatile State state = State.FREE;
    Command command = Command.SEND;
    /** The agent's reset count when marshaling began: a later reset means the handles are gone. */
    int resetStamp;
    boolean sendPending;
    boolean invalidating;
    boolean timedOut;
    boolean creditWaitCounted;
    boolean everSent;
    Throwable failure;
    /** Reply bytes for an oncrpc4j call (a flat message), set by the reply processing. */
    PlainReply plainReply;
    /** The connection generation the Send went out on. */
    int sentGeneration;

    // ---------------------------------------------------------------- intrusive links
    private final SlotQueue.Links<RequestSlot> queueLinks = new SlotQueue.Links<>();
    private RequestSlot mailboxNext;

    RequestSlot(int index, ClientAgent agent, RegisteredBuffer sendBuffer, Registration registration,
                RpcRdmaLimits limits, int maxPieces) {
        this.index = index;
        this.agent = agent;
        this.sendBuffer = sendBuffer;
        this.argsView = sendBuffer.duplicate();
        this.header = new RpcRdmaHeader(limits);
        this.registration = registration;
        this.itemList = new ScatterList(maxPieces);
        this.sinkList = new ScatterList(maxPieces);
        this.bodyList = new ScatterList(maxPieces * 2 + 8);
        this.sendWr = new SendWorkRequest(4);
    }

    /** Room for the message parts in the send buffer. */
    int room() {
        return sendBuffer.capacity() - RESERVE;
    }

    /** Forgets the call; releases the transport buffers it held. The registration must be idle. */
    void clearCall() {
        xid = 0;
        program = version = procedure = 0;
        binding = null;
        headBuf = itemBuf = tailBuf = sinkBuf = null;
        headIndex = headLength = itemIndex = itemLength = tailIndex = padLength = tailLength = 0;
        sinkIndex = sinkLength = 0;
        hasItem = false;
        replyPlan = ReplyPlan.INLINE;
        callerSink = false;
        plannedWith = null;
        if (ownedCall != null) {
            ownedCall.release();
            ownedCall = null;
        }
        if (ownedReply != null) {
            ownedReply.release();
            ownedReply = null;
        }
        unpin();
        writeSegFrom = writeSegTo = replySegFrom = replySegTo = readSegFrom = readSegTo = 0;
        rpcLength = 0;
        deadlineNanos = 0;
        ddpCall = null;
        plain = false;
        keepAliveProbe = false;
        command = Command.SEND;
        sendPending = invalidating = timedOut = creditWaitCounted = everSent = false;
        failure = null;
        if (plainReply != null) {
            plainReply.release(); // nobody took it
            plainReply = null;
        }
        itemList.clear();
        sinkList.clear();
        bodyList.clear();
        sendWr.reset();
    }

    /** Retains the caller's payload and sink of a DDP call until {@link #clearCall()}. */
    void pin(RdmaCall call) {
        if (call.payload() != null) {
            call.payload().retain();
            pinnedPayload = call.payload();
        }
        if (call.sink() != null) {
            call.sink().retain();
            pinnedSink = call.sink();
        }
    }

    /** Holds {@code retained} (a reference the caller took for this call) until {@link #clearCall()}. */
    void pinPayload(RegisteredBuffer retained) {
        if (pinnedPayload != null) {
            throw new IllegalStateException("a payload is pinned already");
        }
        pinnedPayload = retained;
    }

    private void unpin() {
        if (pinnedPayload != null) {
            pinnedPayload.release();
            pinnedPayload = null;
        }
        if (pinnedSink != null) {
            pinnedSink.release();
            pinnedSink = null;
        }
    }

    /** Whether the handles of this call are exposed on the current connection (some segment has a handle). */
    boolean hasSegments() {
        return registration.segmentCount() > 0;
    }

    @Override
    public SlotQueue.Links<RequestSlot> queueLinks() {
        return queueLinks;
    }

    @Override
    public RequestSlot mailboxNext() {
        return mailboxNext;
    }

    @Override
    public void mailboxNext(RequestSlot next) {
        mailboxNext = next;
    }

    @Override
    public void onInvalidated(Registration r) {
        agent.onInvalidated(this);
    }

    @Override
    public String toString() {
        return "RequestSlot[" + index + " " + state + ", xid=0x" + Integer.toHexString(xid) + "]";
    }
}
