package org.rpcrdma4j.xprt.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import org.rpcrdma4j.codec.RpcRdmaDecodeException;
import org.rpcrdma4j.codec.RpcRdmaDecoder;
import org.rpcrdma4j.codec.RpcRdmaHeader;
import org.rpcrdma4j.codec.RpcRdmaProc;
import org.rpcrdma4j.registration.RegisteredBuffer;
import org.rpcrdma4j.registration.RegistrationPool;
import org.rpcrdma4j.registration.WrIds;
import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.ConnectionEvent;
import org.rpcrdma4j.verbs.ConnectionInfo;
import org.rpcrdma4j.verbs.PostException;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.WcStatus;
import org.rpcrdma4j.verbs.WorkCompletion;
import org.rpcrdma4j.verbs.util.EnumCounters;
import org.rpcrdma4j.xprt.internal.Agent;
import org.rpcrdma4j.xprt.internal.AgentClaim;
import org.rpcrdma4j.xprt.internal.AgentRunner;
import org.rpcrdma4j.xprt.internal.ConnectionWork;
import org.rpcrdma4j.xprt.internal.Mailbox;
import org.rpcrdma4j.xprt.internal.QueueSet;
import org.rpcrdma4j.xprt.internal.ReceiveRing;
import org.rpcrdma4j.xprt.internal.RpcReplies;
import org.rpcrdma4j.xprt.internal.UnexplainedFlush;
import org.rpcrdma4j.xprt.internal.UnsignaledRun;
import org.rpcrdma4j.xprt.internal.WarningLimiter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection of an {@link RdmaRpcServer}: the agent that owns its queue pair, completion queues, receive
 * buffers, call slots, credits and send-queue budget. Every one of those is touched only from {@link #doWork}; other
 * threads hand slots back through a {@link Mailbox} and {@link AgentRunner#wake()}. The agent never blocks.
 *
 * <h2>Receive path</h2>
 * A receive completion is decoded ({@link RpcRdmaDecoder}) in place. Messages that need no answer (RDMA_DONE, a
 * client's RDMA_ERROR) are dropped; a message too short for an xid drops the connection. Every other message is a
 * call: it counts against the client's credits (received and not yet answered; one more than granted drops the
 * connection), takes a free slot (or waits, holding its receive buffer, until one frees), has its inline bytes
 * copied into the slot, and its receive buffer goes back to the queue pair at the end of the round (receives are
 * replenished in batches). Chunk lists are checked ({@link org.rpcrdma4j.xprt.internal.StreamLayout}) before any
 * RDMA READ; a call with read chunks then goes to an io thread for its sink, and comes back to have its READs posted
 * within the connection's ORD.
 *
 * <h2>Send path</h2>
 * A reply marshaled by the program's thread arrives in the mailbox; the agent posts its RDMA WRITEs unsignaled and
 * its Send signaled behind them, within the send queue's budget (replies that do not fit wait, in order). The Send's
 * completion calls the reply's completion handler and frees the slot. A reply of one small Send (no WRITEs, at most
 * the queue pair's inline size) goes inline and unsignaled instead, except every
 * {@value UnsignaledRun#SIGNAL_EVERY}-th: the handler is called and the slot freed as soon as it is posted
 * ({@link WorkPoster}).
 *
 * <h2>Closing</h2>
 * A drop or the client's disconnect moves the queue pair to error; the agent then waits (bounded) until every posted
 * work request has completed or flushed, closes the registration pool (which wakes an io thread waiting for
 * handles), marks calls still with their program as dead (their later {@code send} fails and frees their memory),
 * waits for slots that are between threads to come back, and releases everything.
 */
final class Connection implements Agent, ConnectionWork {
    private static final Logger LOG = LoggerFactory.getLogger(Connection.class);

    /** How long a closing connection waits for its work requests to flush before it gives up on them. */
    private static final long FLUSH_WAIT_NANOS = TimeUnit.SECONDS.toNanos(5);
    private final long reverseReplyTimeoutNanos;
    private static final int POLL_BATCH = 16;
    private static final int WR_BATCH = 16;

    final RdmaRpcServer server;
    final int credits;
    final int inlineSend;
    final int inlineReceive;
    final int headerArea;
    final int maxSendSge;
    final boolean sendWithInvalidate;
    final boolean readWithInvalidate;

    private final AgentRunner runner;
    private final ConnectionResources resources;
    private final QueuePair qp;
    private final QueueSet queues;
    private final CompletionQueue sendCq;
    private final CompletionQueue recvCq;
    private final RegistrationPool registrations;
    private final ReceiveRing receives;
    private final WorkPoster poster;
    private final CallSlot[] slots;
    private final ByteBuf[] slotMemory;
    private final int[] freeSlots;
    private int freeCount;
    /** Slots in use (calls received and not yet completely answered), for the server's drain; written by the agent. */
    private volatile int busySlots;
    private final WorkCompletion[] batch;
    private final RpcRdmaHeader scratch;
    final EnumCounters<ServerCounter> counters = new EnumCounters<>(ServerCounter.class);
    private final Mailbox<CallSlot> mailbox = new Mailbox<>();
    private final AgentClaim claim = new AgentClaim();
    /** {@link #inlineRound()} as a reused object, so an inline round allocates nothing. */
    private final AgentClaim.InlineRound inlineRound = this::inlineRound;
    private final boolean inlineWork;
    /** Calls run on the thread that took them off the connection ({@code sameThreadDispatch}). */
    private final boolean sameThreadDispatch;
    private final ReverseChannel reverse;
    private int inFlight;
    /** Whether the current inline round posted a reverse-direction call (whose reply deadline is the runner's). */
    private boolean reverseCallsPosted;

    private volatile InetSocketAddress localAddress;
    private volatile InetSocketAddress remoteAddress;
    private volatile boolean disconnectedEvent;
    private volatile ServerCounter closeRequest;
    private volatile boolean closing;
    private ServerCounter closeReason;
    private long flushDeadline;
    /** How often a closing connection whose slots other threads still hold looks at them again. */
    private static final long CLOSE_RECHECK_NANOS = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(20);
    /** The first flushed work request seen while no close was under way, for the drop it may cause. */
    private final UnexplainedFlush flush = new UnexplainedFlush();
    private ServerCounter flushReason;
    private boolean finalStage;
    private volatile boolean closed;

    Connection(RdmaRpcServer server, ConnectionResources r, AgentRunner runner) {
        this.server = server;
        this.resources = r;
        this.runner = runner;
        this.credits = r.credits;
        this.inlineSend = r.inlineSend;
        this.inlineReceive = r.inlineReceive;
        this.headerArea = r.inlineSend;
        this.maxSendSge = r.maxSendSge;
        this.sendWithInvalidate = r.sendWithInvalidate;
        this.readWithInvalidate = r.registrations.readWithInvalidate();
        this.queues = r.queues;
        this.qp = r.queues.qp();
        this.sendCq = r.queues.sendCq();
        this.recvCq = r.queues.recvCq();
        this.registrations = r.registrations;
        this.localAddress = r.localAddress;
        this.remoteAddress = r.remoteAddress;
        this.receives = r.receives;
        this.poster = new WorkPoster(qp, maxSendSge, WR_BATCH, r.ord, r.sqBudget, r.replyInline,
                UnsignaledRun.SIGNAL_EVERY);
        RegisteredBuffer slotRegion = r.memory;
        int slotBase = r.layout.slotOffset();
        int n = r.slotCount;
        slots = new CallSlot[n];
        slotMemory = new ByteBuf[n];
        freeSlots = new int[n];
        int slotSize = 2 * headerArea;
        for (int i = 0; i < n; i++) {
            // a buffer object of its own per slot: slots are written by different threads at once, and a derived
            // buffer (slice) would share the region's internal NIO buffer between them
            ByteBuf memory = Unpooled.wrappedBuffer(slotRegion.nioBuffer(slotBase + i * slotSize, slotSize));
            slotMemory[i] = memory;
            slots[i] = new CallSlot(i, this, new RpcRdmaHeader(server.config.limits()),
                    new RpcRdmaHeader(server.config.limits()), inlineReceive, memory, slotRegion.lkey(),
                    slotRegion.address(slotBase + i * slotSize), headerArea, registrations.newRegistration());
            freeSlots[freeCount++] = n - 1 - i;
        }
        batch = new WorkCompletion[POLL_BATCH];
        for (int i = 0; i < batch.length; i++) {
            batch[i] = new WorkCompletion();
        }
        scratch = new RpcRdmaHeader(server.config.limits());
        // replies to reverse calls are delivered on the connection threads: the dispatch threads may all be waiting
        // for them, and the io threads for memory
        reverse = new ReverseChannel(this, r.reverseSends, n, server.connectionExecutor);
        reverseReplyTimeoutNanos = server.config.reverseReplyTimeout().toNanos();
        inlineWork = server.config.inlineAgentWork();
        sameThreadDispatch = server.config.sameThreadDispatch();
        r.queues.wakeOnCompletion(this::onCompletionSignal);
    }

    /** Posts every receive buffer; before the connection is accepted. */
    void postAllReceives() throws PostException {
        receives.postAll(qp, 0);
    }

    // ------------------------------------------------------------------ events (device thread)

    /** Connection events: wake the agent, which acts on them. */
    void onEvent(ConnectionEvent event) {
        switch (event.type()) {
            case ESTABLISHED -> {
                ConnectionInfo info = event.queuePair().connectionInfo();
                if (info != null) {
                    localAddress = info.localAddress();
                    remoteAddress = info.remoteAddress();
                }
            }
            default -> disconnectedEvent = true;
        }
        runner.wake();
    }

    /** Asks the agent to close the connection (any thread). */
    void requestClose(ServerCounter reason) {
        closeRequest = reason;
        runner.wake();
    }

    /** Wakes the agent: reverse-direction calls were queued (any thread). */
    void wakeAgent() {
        runner.wake();
    }

    /** The reverse direction of this connection (RFC 8167): calls to the client. */
    PeerTransport peerTransport() {
        return reverse.transport();
    }

    /**
     * Hands a slot to the agent (any thread). When no other thread runs the agent, the calling thread (the program's,
     * with a reply; an io thread, with prepared READs) claims it and does the round's work itself: its reply is
     * posted at once instead of waiting for the agent thread to wake.
     */
    void submit(CallSlot slot) {
        mailbox.push(slot);
        if (closed) {
            endHandedOverLate(); // a forced close went before: no agent takes the mailbox any more
            return;
        }
        runInline();
    }

    /** A completion queue has something (its listener, on the thread that added the completion). */
    private void onCompletionSignal() {
        runInline();
    }

    /**
     * Claims the agent and runs an inline round; when another thread holds the agent the work is left to it (it does
     * one more round before letting go); when a round leaves work only the runner does, the runner is woken.
     */
    private void runInline() {
        if (!inlineWork) {
            runner.wake();
            return;
        }
        claim.runInline(runner, inlineRound);
    }

    /**
     * A round of the agent's work on another thread, under the claim: the mailbox, both completion queues, held
     * calls, reverse-direction calls waiting for a credit, READs and replies waiting for room, receives reposted
     * ({@link ConnectionWork#passesUntilIdle}); the queues are re-armed before it ends. Closing and deadlines are the
     * runner's: returns false (the runner is woken) when either needs it, e.g. after a reverse call was posted (its
     * reply deadline).
     */
    private boolean inlineRound() {
        if (closed || closing || closeRequest != null || disconnectedEvent) {
            return false;
        }
        reverseCallsPosted = false;
        if (!passesUntilIdle(0)) {
            return false;
        }
        count(ServerCounter.INLINE_ROUNDS);
        // a reverse call posted here starts a reply deadline the runner has to watch, a flush the wait for its disconnect
        return !closing && closeRequest == null && !disconnectedEvent && !reverseCallsPosted && !flush.pending();
    }

    @Override
    public int takeIn(long nowNanos) {
        return drainMailbox() + pollSend() + pollReceive();
    }

    @Override
    public int pollCompletions(long nowNanos) {
        return pollSend() + pollReceive();
    }

    @Override
    public int postOut(long nowNanos) {
        // a reverse reply polled by takeIn may have freed a reverse credit for a waiting reverse call
        int reverseCalls = postReverseCalls();
        reverseCallsPosted |= reverseCalls > 0;
        int n = reverseCalls + serveHeld() + postReads() + postWaitingReplies();
        repostReceives();
        return n;
    }

    @Override
    public boolean interrupted() {
        return closing;
    }

    @Override
    public QueueSet queues() {
        return queues;
    }

    @Override
    public AgentClaim claim() {
        return claim;
    }

    // ------------------------------------------------------------------ the agent

    @Override
    public String roleName() {
        return "rpcrdma-server " + remoteAddress;
    }

    @Override
    public int doWork(long nowNanos) {
        if (closed) {
            return 0;
        }
        int work = 0;
        // completions first: an error completion explains a disconnect reported at the same time
        work += drainMailbox();
        work += pollSend();
        work += pollReceive();
        if (!closing) {
            ServerCounter request = closeRequest;
            if (request != null) {
                drop(request, "requested");
            } else if (disconnectedEvent) {
                beginClose(ServerCounter.CLOSED_BY_PEER);
            } else if (flush.expired(nowNanos)) {
                drop(flushReason, flush.reason());
            }
        }
        if (!closing) {
            work += serveHeld();
            work += postReads();
            work += postWaitingReplies();
            work += postReverseCalls();
            checkReverseReplies(nowNanos);
            repostReceives();
        }
        if (closing) {
            work += advanceClose(nowNanos);
        }
        if (work == 0 && !closed) {
            work += rearmAndPoll(nowNanos);
        }
        return work;
    }

    @Override
    public long nextDeadlineNanos() {
        if (closed) {
            return Long.MAX_VALUE;
        }
        if (closing) {
            // past the flush wait, the close waits for slots other threads still hold (a reply being marshaled,
            // perhaps waiting for memory): they wake the agent when they hand their slot back; look again now and
            // then rather than at once, which spun the agent's thread
            return finalStage ? System.nanoTime() + CLOSE_RECHECK_NANOS : flushDeadline;
        }
        long oldest = reverse.oldestUnansweredNanos();
        long deadline = oldest == Long.MAX_VALUE ? Long.MAX_VALUE : oldest + reverseReplyTimeoutNanos;
        return flush.deadline(deadline);
    }

    @Override
    public void onClose() {
        if (!closed) {
            // the runner stopped under us (server stop): release what can be released
            forceRelease();
        }
    }

    // ------------------------------------------------------------------ receive path

    private int pollReceive() {
        int total = 0;
        int n;
        while ((n = recvCq.poll(batch)) > 0) {
            for (int i = 0; i < n; i++) {
                onReceive(batch[i]);
            }
            total += n;
        }
        return total;
    }

    private void onReceive(WorkCompletion wc) {
        receives.completed();
        int index = WrIds.index(wc.wrId);
        if (!wc.ok()) {
            if (wc.status != WcStatus.WR_FLUSH_ERR) {
                drop(ServerCounter.DROPPED_RECEIVE_FAILED, "receive failed: " + wc);
            } else {
                flushed(ServerCounter.DROPPED_RECEIVE_FAILED, "a receive was flushed");
            }
            return;
        }
        if (closing) {
            return;
        }
        arrive(index, wc.byteLen);
    }

    /**
     * A message arrived in receive buffer {@code index}. Its transport header is decoded once: into the header of the
     * slot that will serve it when one is free and no call is held before it, else into {@link #scratch} (the call is
     * held and decoded again when a slot frees up).
     */
    private void arrive(int index, int length) {
        if (length < 4) {
            drop(ServerCounter.DROPPED_GARBAGE, "a " + length + "-byte message cannot carry an xid");
            return;
        }
        // the slot takeSlot() will give, when the call can be served at once
        CallSlot next = receives.heldCount() == 0 ? nextFreeSlot() : null;
        RpcRdmaHeader header = next != null ? next.call : scratch;
        int headerLength = -1;
        RpcRdmaDecodeException refused = null;
        try {
            headerLength = RpcRdmaDecoder.decodeAt(receives.buffer(index), receives.offset(index), length, header);
        } catch (RpcRdmaDecodeException e) {
            if (e.response() == RpcRdmaDecodeException.Response.DROP) {
                if (!e.hasXid()) {
                    drop(ServerCounter.DROPPED_GARBAGE, e.getMessage());
                } else {
                    count(ServerCounter.MESSAGES_DROPPED);
                    LOG.debug("{}: dropped: {}", this, e.getMessage());
                    recycle(index);
                }
                return;
            }
            refused = e;
        }
        if (headerLength >= 0 && reverse.takeReply(header, receives.buffer(index), receives.offset(index)
                + headerLength, length - headerLength)) {
            recycle(index); // RFC 8167: a reply to a reverse-direction call; it uses none of the forward credits
            return;
        }
        if (server.stopping()) {
            // the stop waits for the calls it found, not for a client that goes on sending: it sends this one again
            // on its next connection
            count(ServerCounter.MESSAGES_DROPPED);
            LOG.debug("{}: a call arrived while the server stops: left unanswered", this);
            recycle(index);
            return;
        }
        inFlight++;
        add(ServerCounter.CALLS_IN_FLIGHT, 1);
        if (inFlight > credits) {
            count(ServerCounter.CREDIT_VIOLATIONS);
            drop(ServerCounter.DROPPED_CREDIT_VIOLATION, inFlight + " calls in flight, " + credits + " granted");
            return;
        }
        count(ServerCounter.CALLS);
        if (next == null) {
            receives.hold(index, length);
            return;
        }
        serve(index, length, takeSlot(), headerLength, refused);
    }

    private int serveHeld() {
        int served = 0;
        while (receives.heldCount() > 0 && freeCount > 0 && !closing) {
            int index = receives.heldIndexAtHead();
            int length = receives.heldLengthAtHead();
            receives.dropHead();
            CallSlot slot = takeSlot();
            int headerLength = -1;
            RpcRdmaDecodeException refused = null;
            try {
                headerLength = RpcRdmaDecoder.decodeAt(receives.buffer(index), receives.offset(index), length,
                        slot.call);
            } catch (RpcRdmaDecodeException e) {
                refused = e;
            }
            serve(index, length, slot, headerLength, refused);
            served++;
        }
        return served;
    }

    /**
     * A call in receive buffer {@code index} gets slot {@code slot}, whose header holds the call's transport header
     * ({@code headerLength} bytes), or was refused by the decoder ({@code refused}: answered RDMA_ERROR).
     */
    private void serve(int index, int length, CallSlot slot, int headerLength, RpcRdmaDecodeException refused) {
        slot.begin();
        int offset = receives.offset(index);
        if (refused != null) {
            recycle(index);
            ReplyMarshaler.Kind kind = refused.response() == RpcRdmaDecodeException.Response.ERR_VERS
                    ? ReplyMarshaler.Kind.ERR_VERS : ReplyMarshaler.Kind.ERR_CHUNK;
            LOG.debug("{}: {}", this, refused.getMessage());
            slot.marshaler.error(refused.xid(), credits, kind, refused.getMessage());
            postReply(slot);
            return;
        }
        RpcRdmaHeader call = slot.call;
        int inlineLength = call.proc() == RpcRdmaProc.RDMA_MSG ? length - headerLength : 0;
        String invalid = slot.layout.layOutCall(call, inlineLength, server.config.maxReadChunks(),
                server.config.maxReadChunkBytes(), server.config.maxCallSize());
        if (invalid != null) {
            recycle(index);
            LOG.debug("{}: ERR_CHUNK for xid 0x{}: {}", this, Integer.toHexString(call.xid()), invalid);
            slot.marshaler.errChunk(call, credits, invalid);
            postReply(slot);
            return;
        }
        receives.buffer(index).getBytes(offset + headerLength, slot.inline, 0, inlineLength);
        slot.inlineLength = inlineLength;
        recycle(index);
        if (!slot.layout.needsRead()) {
            slot.callLength = slot.layout.totalLength();
            dispatch(slot);
            return;
        }
        slot.state.set(CallSlot.PREPARING);
        try {
            server.ioExecutor.execute(slot.prepareTask);
        } catch (RejectedExecutionException e) {
            freeSlot(slot, true);
            drop(ServerCounter.DROPPED_SERVER_STOP, "server stopping");
        }
    }

    private void dispatch(CallSlot slot) {
        slot.setDispatchQueued();
        if (sameThreadDispatch) {
            slot.dispatchHere(); // its reply is queued to the mailbox, which this round drains before it ends
            return;
        }
        add(ServerCounter.DISPATCH_QUEUE_DEPTH, 1);
        try {
            server.dispatchExecutor.execute(slot);
        } catch (RejectedExecutionException e) {
            add(ServerCounter.DISPATCH_QUEUE_DEPTH, -1);
            count(ServerCounter.DISPATCH_REJECTED);
            warn(ServerCounter.DISPATCH_REJECTED, "dispatch executor refused a call; answering SYSTEM_ERR",
                    "xid 0x" + Integer.toHexString(slot.call.xid()));
            slot.state.set(CallSlot.MARSHALING);
            int length = RpcReplies.accepted(slotMemory[slot.index], headerArea, slot.call.xid(),
                    RpcReplies.SYSTEM_ERR);
            slot.replyBytes.loadInSlot(length);
            try {
                slot.marshaler.marshal(slot.call, slot.replyBytes, null, 0, 0, inlineSend, credits,
                        sendWithInvalidate);
            } catch (Exception impossible) {
                slot.marshaler.errChunk(slot.call, credits, impossible.toString());
            }
            postReply(slot);
        }
    }

    /** A dispatch task started running (any thread). */
    void dispatchStarted() {
        add(ServerCounter.DISPATCH_QUEUE_DEPTH, -1);
    }

    private void recycle(int index) {
        receives.recycle(index);
    }

    private void repostReceives() {
        try {
            receives.repost(qp, 0);
        } catch (PostException e) {
            drop(ServerCounter.DROPPED_INTERNAL_ERROR, "posting receives failed: " + e.getMessage());
        }
    }

    // ------------------------------------------------------------------ the mailbox

    private int drainMailbox() {
        int n = 0;
        CallSlot next;
        for (CallSlot slot = mailbox.drain(); slot != null; slot = next) {
            next = Mailbox.next(slot);
            n++;
            int state = slot.state.get();
            if (state == CallSlot.READ_QUEUED) {
                readsPrepared(slot);
            } else if (state == CallSlot.REPLY_QUEUED) {
                if (closing) {
                    slot.replyDone(false, closedException());
                    freeSlot(slot, false);
                } else {
                    postReply(slot);
                }
            } else {
                LOG.error("{}: slot in state {} in the mailbox", this, state);
            }
        }
        return n;
    }

    // ------------------------------------------------------------------ RDMA READ

    private void readsPrepared(CallSlot slot) {
        if (closing) {
            slot.releaseCallMemory();
            freeSlot(slot, true);
            return;
        }
        Throwable failure = slot.prepareFailure;
        if (failure != null) {
            // as Linux svcrdma, which answers ERR_CHUNK only for chunk lists it cannot honour (those were refused
            // before any READ) and otherwise closes the connection: a Linux client turns RDMA_ERROR into EIO, while a
            // closed connection makes it send the call again. The handles a mapping took, perhaps half-way, go with
            // the connection's registration pool
            slot.releaseCallMemory();
            freeSlot(slot, true);
            String why = "the RDMA READs of xid 0x" + Integer.toHexString(slot.call.xid()) + " could not be prepared: "
                    + failure;
            drop(failure instanceof VerbsException || failure instanceof InterruptedException
                    ? ServerCounter.DROPPED_NO_RESOURCES : ServerCounter.DROPPED_INTERNAL_ERROR, why);
            return;
        }
        slot.state.set(CallSlot.READING);
        poster.queueReads(slot);
    }

    private int postReads() {
        try {
            int n = poster.postReads();
            if (n > 0) {
                add(ServerCounter.RDMA_READS, n);
            }
            return n;
        } catch (PostException e) {
            drop(ServerCounter.DROPPED_INTERNAL_ERROR, "posting RDMA READs failed: " + e.getMessage());
            return 0;
        }
    }

    private void onReadComplete(WorkCompletion wc) {
        CallSlot slot = slots[WrIds.index(wc.wrId)];
        poster.readCompleted();
        ReadOps reads = slot.reads;
        reads.outstanding--;
        if (!wc.ok()) {
            reads.failed = true;
            if (wc.status != WcStatus.WR_FLUSH_ERR) {
                drop(ServerCounter.DROPPED_READ_FAILED, "RDMA READ of xid 0x" + Integer.toHexString(slot.call.xid())
                        + " failed: " + wc);
            } else {
                flushed(ServerCounter.DROPPED_READ_FAILED, "the RDMA READ of xid 0x"
                        + Integer.toHexString(slot.call.xid()) + " was flushed");
            }
        }
        if (reads.outstanding > 0 || reads.posted < reads.count()) {
            return;
        }
        if (reads.failed || closing) {
            // the connection goes (a failed READ drops it, a flushed one means it is gone): the sink stays READING
            // until the final stage frees it after closing the registrations. On iWARP a READ's sink is remotely
            // writable, and its handle, which the peer saw, must not outlive the memory it names
            return;
        }
        reads.reportInvalidated(slot.sinkRegistration);
        count(ServerCounter.READ_CHUNKS, slot.layout.chunkCount());
        count(ServerCounter.READ_CHUNK_BYTES, slot.layout.remoteBytes());
        if (slot.sinkRegistration.invalidate(slot)) {
            readsInvalidated(slot);
        } else {
            count(ServerCounter.SINK_LOCAL_INVALIDATIONS);
        }
    }

    /** Agent: the call's sink is no longer reachable by the client; dispatch it. */
    void readsInvalidated(CallSlot slot) {
        if (closing) {
            slot.releaseCallMemory();
            freeSlot(slot, true);
            return;
        }
        slot.callLength = slot.layout.totalLength();
        dispatch(slot);
    }

    // ------------------------------------------------------------------ send path

    private void postReply(CallSlot slot) {
        if (slot.noReply) {
            slot.releaseCallMemory();
            freeSlot(slot, true);
            return;
        }
        if (slot.unsendable) {
            // no memory for the reply now: the connection goes (as Linux svcrdma closes it when a reply cannot be
            // built), and the client sends the call again on its next one instead of failing it
            int xid = slot.call.xid();
            Throwable why = slot.replyFailure();
            slot.replyDone(false, why);
            freeSlot(slot, true);
            drop(ServerCounter.DROPPED_NO_RESOURCES, "the reply of xid 0x" + Integer.toHexString(xid)
                    + " could not be made: " + why);
            return;
        }
        if (slot.marshaler.writes().count() + 1 > poster.maxReplyEntries()) {
            slot.replaceWithErrChunk(slot.marshaler.writes().count()
                    + " RDMA WRITEs for one reply exceed the send queue's share");
        }
        if (!poster.canPost(slot)) {
            poster.queue(slot);
            return;
        }
        post(slot);
    }

    private int postWaitingReplies() {
        int n = 0;
        CallSlot slot;
        while (!closing && (slot = poster.nextWaitingReply()) != null) {
            post(slot);
            n++;
        }
        return n;
    }

    /**
     * Posts a reply; the call leaves the client's credits. Counted first: the client may read the counters as soon
     * as it has the reply.
     */
    private void post(CallSlot slot) {
        slot.state.set(CallSlot.SENDING);
        inFlight--;
        add(ServerCounter.CALLS_IN_FLIGHT, -1);
        slot.countReply();
        if (poster.goesUnsignaled(slot)) {
            count(ServerCounter.UNSIGNALED_REPLIES);
        }
        boolean done;
        try {
            done = poster.post(slot);
        } catch (PostException e) {
            drop(ServerCounter.DROPPED_INTERNAL_ERROR, "posting a reply failed: " + e.getMessage());
            return;
        }
        if (done) {
            // inline and unsignaled: the device has copied the bytes, nothing of the slot's is on the wire
            slot.replyDone(true, null);
            freeSlot(slot, false);
        }
    }

    private int pollSend() {
        int total = 0;
        int n;
        while ((n = sendCq.poll(batch)) > 0) {
            for (int i = 0; i < n; i++) {
                onSendQueueCompletion(batch[i]);
            }
            total += n;
        }
        return total;
    }

    private void onSendQueueCompletion(WorkCompletion wc) {
        if (registrations.owns(wc.wrId)) {
            if (!wc.ok() && wc.status != WcStatus.WR_FLUSH_ERR) {
                drop(ServerCounter.DROPPED_INTERNAL_ERROR, "registration work request failed: " + wc);
            }
            registrations.onCompletion(wc);
            return;
        }
        switch (WrIds.kind(wc.wrId)) {
            case SEND -> onSendComplete(wc);
            case RDMA_READ -> onReadComplete(wc);
            case RDMA_WRITE -> {
                if (wc.status != WcStatus.WR_FLUSH_ERR) {
                    drop(ServerCounter.DROPPED_SEND_FAILED, "RDMA WRITE failed: " + wc);
                } else {
                    flushed(ServerCounter.DROPPED_SEND_FAILED, "an RDMA WRITE was flushed");
                }
            }
            default -> LOG.warn("{}: unexpected completion {}", this, wc);
        }
    }

    /** Drops the connection when a reverse-direction call has gone unanswered for the reverse reply timeout. */
    private void checkReverseReplies(long nowNanos) {
        long oldest = reverse.oldestUnansweredNanos();
        if (oldest != Long.MAX_VALUE && nowNanos - oldest >= reverseReplyTimeoutNanos) {
            drop(ServerCounter.DROPPED_REVERSE_TIMEOUT, "a reverse-direction call went unanswered for "
                    + TimeUnit.NANOSECONDS.toMillis(reverseReplyTimeoutNanos) + " ms");
        }
    }

    private int postReverseCalls() {
        try {
            return reverse.post(qp);
        } catch (PostException e) {
            drop(ServerCounter.DROPPED_INTERNAL_ERROR, "posting a reverse-direction call failed: " + e.getMessage());
            return 0;
        }
    }

    private void onSendComplete(WorkCompletion wc) {
        int index = WrIds.index(wc.wrId);
        if (index == UnsignaledRun.WR_INDEX) {
            // an unsignaled reply completes only when it fails; its slot was freed when it was posted
            if (wc.status != WcStatus.WR_FLUSH_ERR) {
                drop(ServerCounter.DROPPED_SEND_FAILED, "reply Send failed: " + wc);
            } else {
                flushed(ServerCounter.DROPPED_SEND_FAILED, "a reply Send was flushed");
            }
            return;
        }
        if (reverse.ownsSend(index)) {
            if (!wc.ok() && wc.status != WcStatus.WR_FLUSH_ERR) {
                drop(ServerCounter.DROPPED_SEND_FAILED, "reverse-direction call Send failed: " + wc);
            }
            reverse.onSendComplete(index, wc);
            return;
        }
        CallSlot slot = slots[index];
        if (slot.state.get() != CallSlot.SENDING) {
            LOG.error("{}: Send completion for {}", this, slot);
            return;
        }
        poster.sendCompleted(slot);
        if (wc.ok()) {
            slot.replyDone(true, null);
        } else {
            if (wc.status != WcStatus.WR_FLUSH_ERR) {
                drop(ServerCounter.DROPPED_SEND_FAILED, "reply Send failed: " + wc);
            } else {
                flushed(ServerCounter.DROPPED_SEND_FAILED, "a reply Send was flushed");
            }
            slot.replyDone(false, new IOException("reply Send failed: " + wc.status));
        }
        freeSlot(slot, false);
    }

    // ------------------------------------------------------------------ slots

    private CallSlot takeSlot() {
        busySlots = slots.length - freeCount + 1;
        return slots[freeSlots[--freeCount]];
    }

    /** The slot {@link #takeSlot()} gives next, without taking it; null when none is free. */
    private CallSlot nextFreeSlot() {
        return freeCount > 0 ? slots[freeSlots[freeCount - 1]] : null;
    }

    /** Returns a slot; {@code unanswered}: the call got no reply, so it leaves the client's credits now. */
    private void freeSlot(CallSlot slot, boolean unanswered) {
        if (unanswered) {
            inFlight--;
            add(ServerCounter.CALLS_IN_FLIGHT, -1);
        }
        slot.state.set(CallSlot.FREE);
        freeSlots[freeCount++] = slot.index;
        busySlots = slots.length - freeCount;
    }

    ByteBuf slotMemory(CallSlot slot) {
        return slotMemory[slot.index];
    }

    // ------------------------------------------------------------------ closing

    /**
     * A work request was flushed: the queue pair is in error. Unless a close is under way or a disconnect follows
     * soon ({@link UnexplainedFlush}), the connection is dropped for {@code reason}.
     */
    private void flushed(ServerCounter reason, String what) {
        if (!closing && !flush.pending()) {
            flushReason = reason;
            flush.flushed(what, System.nanoTime());
        }
    }

    /**
     * Drops the connection for {@code reason}, e.g. on hostile input. Agent thread. When the client's disconnect
     * was seen first, the error that caused it (a failed RDMA READ or WRITE completing just after) becomes the reason.
     */
    private void drop(ServerCounter reason, String why) {
        if (closing) {
            if (closeReason == ServerCounter.CLOSED_BY_PEER && reason != ServerCounter.DROPPED_SERVER_STOP) {
                warn(reason, "the connection ended", why);
                closeReason = reason;
            }
            return;
        }
        if (reason != ServerCounter.DROPPED_SERVER_STOP) {
            warn(reason, "dropping the connection", why);
        }
        beginClose(reason);
    }

    /**
     * Logs why the connection goes: a warning at most once per {@code reason} per the server's warning interval
     * (a client can provoke these at will), debug otherwise.
     */
    private void warn(ServerCounter reason, String what, String why) {
        long held = server.warnings.permit(reason);
        if (held >= 0) {
            LOG.warn("{}: {}: {}{}", this, what, why, WarningLimiter.suffix(held));
        } else {
            LOG.debug("{}: {}: {}", this, what, why);
        }
    }

    private void beginClose(ServerCounter reason) {
        if (closing) {
            return;
        }
        closeReason = reason;
        closing = true;
        reverse.close();
        flushDeadline = System.nanoTime() + FLUSH_WAIT_NANOS;
        qp.disconnect();
    }

    boolean isClosing() {
        return closing;
    }

    private int advanceClose(long nowNanos) {
        if (!finalStage) {
            boolean flushed = disconnectedEvent && receives.posted() == 0 && poster.used() == 0;
            if (!flushed && nowNanos - flushDeadline < 0) {
                return 0;
            }
            finalStage = true;
            registrations.close();
            releaseUncompleted();
        }
        int waiting = 0;
        for (CallSlot slot : slots) {
            int s = slot.state.get();
            if (s == CallSlot.DISPATCH_QUEUED || s == CallSlot.DISPATCHING) {
                if (!slot.state.compareAndSet(s, CallSlot.DEAD)) {
                    waiting++;
                }
            } else if (s == CallSlot.PREPARING || s == CallSlot.MARSHALING || s == CallSlot.READ_QUEUED
                    || s == CallSlot.REPLY_QUEUED) {
                waiting++;
            }
        }
        if (waiting > 0) {
            return 0;
        }
        release();
        return 1;
    }

    /** Everything is back: give the resources back and leave the runner. */
    private void release() {
        closed = true;
        settleGauges();
        resources.close();
        count(closeReason);
        count(ServerCounter.CONNECTIONS_CLOSED);
        server.connectionClosed(this);
        runner.remove(this);
        LOG.debug("{}: closed ({})", this, closeReason);
    }

    private void forceRelease() {
        reverse.close();
        closing = true;
        for (CallSlot slot : slots) {
            int s = slot.state.get();
            if (s == CallSlot.DISPATCH_QUEUED || s == CallSlot.DISPATCHING) {
                slot.state.compareAndSet(s, CallSlot.DEAD); // a program's later reply then frees its memory only
            }
        }
        closed = true;
        settleGauges();
        resources.close(); // the registrations and the queue pair first
        releaseUncompleted();
        endHandedOverLate();
        count(closeReason != null ? closeReason : ServerCounter.DROPPED_SERVER_STOP);
        count(ServerCounter.CONNECTIONS_CLOSED);
        server.connectionClosed(this);
    }

    /**
     * Ends the replies and READs the device never completed (a device that does not flush, a failed post, a runner
     * that stopped): their handlers run, their memory goes back. Only once the registrations are closed: a READ's sink
     * is remotely writable on iWARP.
     */
    private void releaseUncompleted() {
        for (CallSlot slot : slots) {
            int s = slot.state.get();
            if (s == CallSlot.SENDING) {
                slot.replyDone(false, closedException());
                freeSlot(slot, false);
            } else if (s == CallSlot.READING) {
                slot.releaseCallMemory();
                freeSlot(slot, true);
            }
        }
        for (CallSlot slot = poster.abandonReply(); slot != null; slot = poster.abandonReply()) {
            slot.replyDone(false, closedException());
            freeSlot(slot, false);
        }
    }

    /**
     * After a forced close ({@link #forceRelease}): the slots handed over since the close began, or handed over later
     * by the threads that still had them (a reply marshaled, READs prepared), end here, since no agent takes the
     * mailbox any more: a reply's handler hears it was not sent and its memory goes back; a call's sink goes back. Any
     * thread; each drain takes slots of its own.
     */
    private void endHandedOverLate() {
        CallSlot next;
        for (CallSlot slot = mailbox.drain(); slot != null; slot = next) {
            next = Mailbox.next(slot);
            int s = slot.state.get();
            if (s == CallSlot.REPLY_QUEUED) {
                slot.replyDone(false, closedException());
            } else {
                slot.releaseCallMemory();
            }
            slot.state.set(CallSlot.DEAD);
        }
    }

    /** The connection's calls no longer count as in flight server-wide. */
    private void settleGauges() {
        long left = counters.get(ServerCounter.CALLS_IN_FLIGHT);
        add(ServerCounter.CALLS_IN_FLIGHT, -left);
        inFlight = 0;
    }

    private IOException closedException() {
        return new IOException("connection " + remoteAddress + " is closed");
    }

    // ------------------------------------------------------------------ accessors, counters

    /** The connection's queue pair (diagnostics and fault injection in tests). */
    QueuePair queuePair() {
        return qp;
    }

    InetSocketAddress localAddress() {
        return localAddress;
    }

    InetSocketAddress remoteAddress() {
        return remoteAddress;
    }

    /** Calls received whose reply has not completed yet, held receives included (for the server's drain). */
    int busy() {
        return busySlots + (int) counters.get(ServerCounter.CALLS_IN_FLIGHT);
    }

    boolean isClosed() {
        return closed;
    }

    void count(ServerCounter counter) {
        counters.increment(counter);
        server.counters.increment(counter);
    }

    void count(ServerCounter counter, long n) {
        add(counter, n);
    }

    private void add(ServerCounter counter, long n) {
        counters.add(counter, n);
        server.counters.add(counter, n);
    }

    /** A one-line view of the agent's state for diagnostics (read racily from any thread). */
    String describe() {
        StringBuilder sb = new StringBuilder(toString()).append(": closing=").append(closing)
                .append(" final=").append(finalStage).append(" inFlight=").append(inFlight)
                .append(" held=").append(receives.heldCount()).append(" free=").append(freeCount)
                .append(" postedReceives=").append(receives.posted()).append(" sendQueue=").append(poster.used())
                .append(" reads=").append(poster.readsOutstanding())
                .append(" readQueue=").append(poster.hasQueuedReads())
                .append(" waiting=").append(poster.hasQueuedReplies())
                .append(" slots=");
        for (CallSlot slot : slots) {
            int s = slot.state.get();
            if (s != CallSlot.FREE) {
                sb.append(slot.index).append(':').append(s).append(' ');
            }
        }
        return sb.toString();
    }

    @Override
    public String toString() {
        return "RDMA connection " + remoteAddress;
    }
}
