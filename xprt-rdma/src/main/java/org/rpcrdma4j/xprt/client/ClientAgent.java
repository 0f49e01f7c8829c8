package org.rpcrdma4j.xprt.client;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

import org.rpcrdma4j.codec.RpcRdmaLimits;
import org.rpcrdma4j.registration.RegisteredBufferPool;
import org.rpcrdma4j.registration.RegistrationPool;
import org.rpcrdma4j.registration.WrIds;
import org.rpcrdma4j.verbs.ConnectException;
import org.rpcrdma4j.verbs.ConnectParameters;
import org.rpcrdma4j.verbs.ConnectionEventType;
import org.rpcrdma4j.verbs.ConnectionInfo;
import org.rpcrdma4j.verbs.DeviceAttributes;
import org.rpcrdma4j.verbs.PostException;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.WcStatus;
import org.rpcrdma4j.verbs.WorkCompletion;
import org.rpcrdma4j.verbs.util.EnumCounters;
import org.rpcrdma4j.xprt.XprtCounter;
import org.rpcrdma4j.xprt.internal.Agent;
import org.rpcrdma4j.xprt.internal.AgentClaim;
import org.rpcrdma4j.xprt.internal.AgentRunner;
import org.rpcrdma4j.xprt.internal.Bindings;
import org.rpcrdma4j.xprt.internal.ConnectionWork;
import org.rpcrdma4j.xprt.internal.InlineSends;
import org.rpcrdma4j.xprt.internal.InlineThresholds;
import org.rpcrdma4j.xprt.internal.Mailbox;
import org.rpcrdma4j.xprt.internal.ProgramTable;
import org.rpcrdma4j.xprt.internal.QueueSet;
import org.rpcrdma4j.xprt.internal.ReceiveRing;
import org.rpcrdma4j.xprt.internal.UnexplainedFlush;
import org.rpcrdma4j.xprt.internal.UnsignaledRun;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connection's agent: the one thread that owns the queue pair, its completion queues, the credits, the receive
 * buffers and every request slot from submission to completion (Linux's xprtrdma connection and reply handling in one
 * owner). Callers and the recovery thread hand it slots through {@link #submit}; completion and connection events only
 * wake it.
 * <p>
 * <b>Life cycle.</b> IDLE (no connection; one is made when a call arrives) -&gt; CONNECTING -&gt; CONNECTED -&gt; on a
 * loss: the queue pair is destroyed, every registration handle with it ({@link RegistrationPool#onDisconnect()}), and
 * every call not yet answered is re-marshaled on the recovery thread and queued again; the first reconnect follows at
 * once, failed attempts back off ({@link RdmaClientConfig#reconnectDelayMin()} doubling to the max). A call that times
 * out on the wire, or an unanswered keep-alive probe, drops the connection (RC has no keep-alive).
 * <p>
 * <b>Credits.</b> At most the last grant of calls are on the wire (a grant of 0 counts as 1; 1 after every connect);
 * one credit is kept for the keep-alive probe when the grant allows. Calls wait for credits in the send queue, in
 * submission order; a call whose deadline passes there leaves it.
 */
final class ClientAgent implements Agent, ConnectionWork {
    private static final Logger LOG = LoggerFactory.getLogger(ClientAgent.class);
    private static final int BATCH = 32;

    enum State { IDLE, CONNECTING, CONNECTED, BACKOFF, CLOSED }

    /** Hands oncrpc4j replies and failures to their handlers, off the agent thread. */
    interface PlainDelivery {
        void deliver(int xid, PlainReply reply, Throwable failure);
    }

    private final RdmaClientConfig config;
    private final InetSocketAddress server;
    private final String name;
    private final RdmaDevice device;
    private final ProtectionDomain pd;
    private final RegistrationPool registrations;
    private final RegisteredBufferPool buffers;
    private final Bindings bindings;
    private final EnumCounters<XprtCounter> counters = new EnumCounters<>(XprtCounter.class);
    private final EnumCounters<ClientCounter> own = new EnumCounters<>(ClientCounter.class);
    private final CallMarshaler marshaler;
    private final ReplyProcessor replies;
    private final ReceiveRing receives;
    private final SlotPool pool;
    private final RequestSlot[] slots;
    private final RequestSlot probe;
    private final Mailbox<RequestSlot> submitted = new Mailbox<>();
    private final AgentClaim claim = new AgentClaim();
    /** The connection an inline round began on: the round stops when it changes ({@link #interrupted()}). */
    private ClientConnection roundConnection;
    /** {@link #inlineRound(long)} as a reused object, so an inline round allocates nothing. */
    private final AgentClaim.InlineRound inlineRound = () -> inlineRound(System.nanoTime());
    private final CreditWindow window;
    private final WorkCompletion[] batch = new WorkCompletion[BATCH];
    private final QueueSet.Sizes sizes;
    private final CallCompletion completion;
    private final Remarshaler recovery;
    private final Runnable wake;
    private final Runnable completionSignal;
    private final boolean inlineWork;
    private final KeepAlive keepAlive;
    private final ReverseServer reverse;
    private final int maxCredits;
    private final ConnectParameters connectParameters;
    private final java.util.concurrent.atomic.AtomicInteger xids;
    private final java.util.function.BooleanSupplier closedCheck = this::closeRequested;
    private final String serverName;
    /**
     * The bound on one connection attempt, from its start to the end of the handshake: the connect timeout, and a
     * tenth of a second in which the device's own timers, whose verdicts say which phase ran out, come first.
     */
    private final long connectTimeoutNanos;

    private volatile AgentRunner runner;
    private volatile State state = State.IDLE;
    private volatile InlineThresholds thresholds = InlineThresholds.V1_DEFAULTS;
    private volatile int resetCount;
    private volatile boolean closeRequested;
    private volatile boolean quiesced;
    private volatile String lossReason;
    private volatile Throwable lastConnectError;
    private volatile InetSocketAddress localAddress;
    private volatile long lastActivity = System.nanoTime();
    private final CompletableFuture<Void> closed = new CompletableFuture<>();

    private ClientConnection conn;
    /** A flush on the current connection with no disconnect reported yet. */
    private final UnexplainedFlush flush = new UnexplainedFlush();
    private int generation;
    private boolean everConnected;
    private long connectStartedNanos;
    private long reconnectAtNanos;
    private long backoffNanos;
    private long nextTimeoutCheck = Long.MAX_VALUE;
    private long nextDeadline = Long.MAX_VALUE;
    private CompletableFuture<Void> firstConnect;
    private boolean forceDisconnect;
    private String forceReason;

    ClientAgent(RdmaClientConfig config, InetSocketAddress server, String name, RdmaDevice device,
                ProtectionDomain pd, RegistrationPool registrations, RegisteredBufferPool buffers,
                PlainDelivery plain, Executor recovery, Executor reverseExecutor,
                java.util.concurrent.atomic.AtomicInteger xids)
            throws VerbsException, InterruptedException {
        this.xids = xids;
        this.config = config;
        this.server = server;
        this.serverName = server.toString();
        this.name = name;
        this.device = device;
        this.pd = pd;
        this.registrations = registrations;
        this.buffers = buffers;
        this.bindings = new Bindings(config.bindings());
        this.wake = this::wake;
        this.completionSignal = this::onCompletionSignal;
        this.inlineWork = config.inlineAgentWork();
        this.maxCredits = config.maxCredits();
        this.connectTimeoutNanos = config.connectTimeout().toNanos() + TimeUnit.MILLISECONDS.toNanos(100);
        DeviceAttributes attributes = device.attributes();
        for (int i = 0; i < BATCH; i++) {
            batch[i] = new WorkCompletion();
        }
        RpcRdmaLimits limits = RpcRdmaLimits.DEFAULT;
        this.marshaler = new CallMarshaler(this, config);
        this.replies = new ReplyProcessor(this, limits, server.toString());
        // RFC 8167: receives of their own for the server's reverse-direction calls, beyond the forward credits
        int receiveCount = maxCredits + config.extraReceives() + ReverseServer.REQUESTS;
        int slotCount = maxCredits + 1;
        this.window = new CreditWindow(maxCredits, slotCount, counters, own);
        this.pool = new SlotPool(this, config, buffers, registrations, limits);
        InlineSends reverseSends;
        try {
            this.receives = ReceiveRing.allocate(buffers, receiveCount, config.inlineReceiveSize());
            try {
                reverseSends = InlineSends.allocate(buffers, ReverseServer.SLOTS, config.inlineSendSize());
            } catch (VerbsException | InterruptedException | RuntimeException e) {
                receives.release();
                throw e;
            }
        } catch (VerbsException | InterruptedException | RuntimeException e) {
            pool.releaseBuffers();
            throw e;
        }
        this.reverse = new ReverseServer(this::wake, name, new ProgramTable(config.reversePrograms(), List.of()),
                reverseExecutor, reverseSends, slotCount, config.inlineReceiveSize(), own);
        this.slots = pool.all();
        this.completion = new CallCompletion(name, pool, plain, counters);
        this.probe = pool.probe();
        this.recovery = new Remarshaler(this, marshaler, recovery);
        this.sizes = ClientConnection.sizes(attributes, slotCount + ReverseServer.SLOTS, receiveCount,
                registrations.maxSegmentsPerRpc(), registrations.maxHandles());
        this.keepAlive = new KeepAlive(config, this, marshaler);
        this.connectParameters = ClientConnection.parameters(config, attributes,
                registrations.mode() == org.rpcrdma4j.registration.RegistrationMode.FRWR);
    }

    // ------------------------------------------------------------------ accessors for the other pieces

    EnumCounters<XprtCounter> counters() {
        return counters;
    }

    EnumCounters<ClientCounter> ownCounters() {
        return own;
    }

    RegisteredBufferPool buffers() {
        return buffers;
    }

    RegistrationPool registrationPool() {
        return registrations;
    }

    ProtectionDomain protectionDomain() {
        return pd;
    }

    Bindings bindings() {
        return bindings;
    }

    CallMarshaler marshaler() {
        return marshaler;
    }

    InlineThresholds thresholds() {
        return thresholds;
    }

    int resetCount() {
        return resetCount;
    }

    State state() {
        return state;
    }

    int granted() {
        return window.granted();
    }

    int inFlight() {
        return window.inFlight();
    }

    InetSocketAddress localAddress() {
        return localAddress;
    }

    int freeSlots() {
        return pool.freeCount();
    }

    boolean isQuiesced() {
        return quiesced;
    }

    // ------------------------------------------------------------------ other threads

    void start(AgentRunner agentRunner, CompletableFuture<Void> connected) {
        this.runner = agentRunner;
        this.firstConnect = connected;
        agentRunner.add(this);
    }

    void wake() {
        AgentRunner r = runner;
        if (r != null) {
            r.wake();
        }
    }

    /** Takes a free slot, waiting in arrival order until {@code deadlineNanos} (0: without end); null on timeout. */
    RequestSlot acquire(long deadlineNanos) throws RdmaConnectionException, InterruptedException {
        try {
            return pool.acquire(deadlineNanos, counters, closedCheck, serverName);
        } catch (RdmaConnectionException closing) {
            // a slot taken as the transport closed went back to the pool: the agent may have counted the free slots
            // without it and wait for nothing else; let it count again, or close() waits out its whole bound
            wake();
            throw closing;
        }
    }

    /**
     * Hands a slot to the agent: to send ({@link RequestSlot.Command#SEND}) or to clean up and fail. Any thread.
     * <p>
     * When the connection is up, the calling thread claims the agent and does this part of its work itself
     * ({@link #runInline}): it takes the calls handed over so far, gives them their credits in submission order and
     * posts their Sends, sparing the runner's wake-up (Linux's xprtrdma posts from the caller's context too).
     */
    void submit(RequestSlot slot) {
        submitted.push(slot);
        runInline();
    }

    /**
     * A completion queue has something (its listener, on the thread that added the completion): polled right here
     * when the agent can be claimed ({@link #runInline}), sparing the runner's wake-up.
     */
    void onCompletionSignal() {
        runInline();
    }

    /**
     * Does an inline round ({@link #inlineRound}) on the calling thread under the agent's claim. When another thread
     * holds the agent, the work is left to it (it does one more round before letting go); when the round leaves
     * work only the runner does (no connection, a new deadline, a failed post), the runner is woken.
     */
    private void runInline() {
        AgentRunner r = runner;
        if (r == null || !inlineWork) {
            wake();
            return;
        }
        claim.runInline(r, inlineRound);
    }

    /**
     * A piece of the agent's work on another thread, under the claim ({@link ConnectionWork#passesUntilIdle}): the
     * calls handed over are queued and sent within the credits, both completion queues are polled (replies checked
     * and completed, Send and registration completions accounted, calls that got a credit sent) and re-armed.
     * Returns whether the runner need not run.
     */
    private boolean inlineRound(long now) {
        ClientConnection c = conn;
        if (state != State.CONNECTED || c == null || closeRequested || forceDisconnect || c.lostBy != null) {
            return false;
        }
        roundConnection = c;
        if (!passesUntilIdle(now)) {
            return false;
        }
        own.increment(ClientCounter.INLINE_ROUNDS);
        // a flush seen here starts the wait for its disconnect, which only the runner watches
        return !interrupted() && state == State.CONNECTED && runnerWakesInTime() && !flush.pending();
    }

    @Override
    public int takeIn(long now) {
        // reverse-direction replies too: one handed back during an inline round goes out in that round, not after the
        // runner's next one
        return drainSubmitted(now) + drainReverseReplies() + pollReceives(now) + pollSends();
    }

    @Override
    public int pollCompletions(long now) {
        return pollReceives(now) + pollSends();
    }

    @Override
    public int postOut(long now) {
        return sendQueued();
    }

    @Override
    public boolean interrupted() {
        return conn != roundConnection || forceDisconnect;
    }

    @Override
    public QueueSet queues() {
        return conn.queues;
    }

    /**
     * Whether the runner, parked until the deadline of its last round, wakes in time for the calls' deadlines (a call
     * queued by another thread may have brought the next timeout check forward).
     */
    private boolean runnerWakesInTime() {
        return nextTimeoutCheck == Long.MAX_VALUE
                || nextDeadline != Long.MAX_VALUE && nextTimeoutCheck - nextDeadline >= 0;
    }

    /** Whether the calling thread runs the agent now (its runner's, or one doing a piece of its work). */
    boolean onAgentThread() {
        AgentRunner r = runner;
        return claim.heldByCurrentThread() || r != null && r.isRunnerThread();
    }

    @Override
    public AgentClaim claim() {
        return claim;
    }

    /** Asks the agent to close: every call still in the transport fails. */
    void requestClose() {
        closeRequested = true;
        wake();
    }

    boolean closeRequested() {
        return closeRequested;
    }

    // ------------------------------------------------------------------ the agent

    @Override
    public String roleName() {
        return name;
    }

    @Override
    public int doWork(long now) {
        int work = 0;
        if (closeRequested && state != State.CLOSED) {
            shutdown();
            work++;
        }
        if (firstConnect != null && state == State.IDLE) {
            startConnect(now);
            work++;
        }
        work += drainSubmitted(now);
        work += drainReverseReplies();
        if (conn != null) {
            work += pollReceives(now);
            work += pollSends();
            work += checkConnection(now);
        }
        if (state == State.CONNECTED && flush.expired(now)) {
            disconnectSoon(flush.reason());
        }
        if (state == State.CONNECTED) {
            work += sendQueued();
            work += keepAlive.check(now);
        }
        work += timers(now);
        if (forceDisconnect) {
            forceDisconnect = false;
            own.increment(ClientCounter.FORCED_DISCONNECTS);
            teardown(forceReason);
            work++;
        }
        if (work == 0 && conn != null) {
            work += rearmAndPoll(now);
        }
        if (state == State.CLOSED && !quiesced && pool.freeCount() == maxCredits) {
            quiesced = true;
        }
        nextDeadline = computeDeadline(now);
        return work;
    }

    @Override
    public long nextDeadlineNanos() {
        return nextDeadline;
    }

    @Override
    public void onClose() {
        try {
            if (state != State.CLOSED) {
                closeRequested = true;
                shutdown();
            }
        } finally {
            closed.complete(null);
        }
    }

    /** Completes once the agent's runner has let go of it. */
    CompletableFuture<Void> closed() {
        return closed;
    }

    long idleSeconds() {
        return TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - lastActivity);
    }

    private long computeDeadline(long now) {
        long d = nextTimeoutCheck;
        if (state == State.BACKOFF) {
            d = Math.min(d, reconnectAtNanos);
        }
        if (state == State.CONNECTING) {
            d = Math.min(d, connectStartedNanos + connectTimeoutNanos);
        }
        if (state == State.CONNECTED) {
            d = flush.deadline(Math.min(d, keepAlive.nextCheck(now)));
        }
        return d;
    }

    // ------------------------------------------------------------------ submissions

    private int drainReverseReplies() {
        ClientConnection c = state == State.CONNECTED ? conn : null;
        try {
            return reverse.drainReturned(c != null ? c.qp : null, c != null ? c.generation : -1, thresholds.send());
        } catch (PostException e) {
            disconnectSoon("posting a reverse-direction reply failed: " + e.getMessage());
            return 1;
        }
    }

    ReverseServer reverse() {
        return reverse;
    }

    private int drainSubmitted(long now) {
        int n = 0;
        RequestSlot next;
        for (RequestSlot slot = submitted.drain(); slot != null; slot = next) {
            next = Mailbox.next(slot);
            n++;
            if (slot.command == RequestSlot.Command.FAIL) {
                fail(slot, slot.failure);
            } else if (state == State.CLOSED) {
                fail(slot, closedException());
            } else if (slot.deadlineNanos != 0 && now - slot.deadlineNanos >= 0) {
                counters.increment(XprtCounter.TIMEOUTS);
                fail(slot, timeout(slot));
            } else if (slot.resetStamp != resetCount || state == State.CONNECTED && plannedForOther(slot)) {
                toRecovery(slot);
            } else {
                window.queue(slot);
                noteDeadline(slot);
                if (state == State.IDLE) {
                    startConnect(now);
                }
            }
        }
        return n;
    }

    private void noteDeadline(RequestSlot slot) {
        if (slot.deadlineNanos != 0 && slot.deadlineNanos - nextTimeoutCheck < 0) {
            nextTimeoutCheck = slot.deadlineNanos;
        }
    }

    /**
     * Posts every call that has a credit, as one chain: the device takes them with one post (a NIC's doorbell; the
     * software device's one gathering write).
     */
    private int sendQueued() {
        int n = 0;
        SendWorkRequest head = null;
        SendWorkRequest tail = null;
        RequestSlot slot;
        while ((slot = window.nextSendable()) != null) {
            if (window.onTheWire(slot.xid)) {
                counters.increment(XprtCounter.FAILED_MARSHAL_COUNT);
                fail(slot, new RdmaMarshalException("xid 0x" + Integer.toHexString(slot.xid)
                        + " is already outstanding on the connection to " + serverName
                        + ": each call needs an xid of its own (RdmaClientTransport.nextXid())"));
                continue;
            }
            SendWorkRequest first = prepare(slot);
            if (head == null) {
                head = first;
            } else {
                tail.next = first;
            }
            tail = slot.sendWr;
            n++;
        }
        if (head != null) {
            postChain(head, n);
        }
        return n;
    }

    /**
     * Posts a slot's pending registrations and its Send. A call without chunks that fits the connection's inline size
     * goes inline and unsignaled (the device copies it at post time, so the call need not wait for the Send's
     * completion), except every {@value UnsignaledRun#SIGNAL_EVERY}-th, whose completion retires the unsignaled
     * ones before it.
     */
    void post(RequestSlot slot) {
        postChain(prepare(slot), 1);
    }

    /** Readies a slot's Send (see {@link #post}) and returns the chain to post: its pending registrations, then it. */
    private SendWorkRequest prepare(RequestSlot slot) {
        ClientConnection c = conn;
        SendWorkRequest wr = slot.sendWr;
        wr.next = null;
        boolean unsignaled = !slot.hasSegments() && c.unsignaled.admits(wr.totalLength());
        if (unsignaled) {
            wr.flags = SendWorkRequest.INLINE;
            wr.wrId = WrIds.of(WrIds.Kind.SEND, c.generation, UnsignaledRun.WR_INDEX);
            c.unsignaled.unsignaled();
            own.increment(ClientCounter.UNSIGNALED_SENDS);
        } else {
            wr.flags = SendWorkRequest.SIGNALED;
            wr.wrId = WrIds.of(WrIds.Kind.SEND, c.generation, slot.index);
            c.unsignaled.signaled();
        }
        slot.state = RequestSlot.State.SENT;
        slot.sendPending = !unsignaled;
        slot.sentGeneration = c.generation;
        window.sent(slot);
        if (window.inFlight() == 1 && !slot.keepAliveProbe) {
            keepAlive.firstCallSent(System.nanoTime());
        }
        lastActivity = System.nanoTime();
        return slot.registration.linkAfterPending(wr);
    }

    /** Posts {@code calls} calls' work requests, chained from {@code head}. */
    private void postChain(SendWorkRequest head, int calls) {
        AgentRunner r = runner;
        if (r != null && !r.isRunnerThread()) {
            own.add(ClientCounter.INLINE_SENDS, calls);
        }
        own.increment(ClientCounter.SEND_POSTS);
        try {
            conn.qp.postSend(head);
        } catch (PostException e) {
            LOG.warn("{}: posting {} call(s) failed: {}", name, calls, e.toString());
            disconnectSoon("posting a Send failed: " + e.getMessage());
        }
    }

    // ------------------------------------------------------------------ completions

    private int pollReceives(long now) {
        ClientConnection c = conn;
        return c == null ? 0 : replies.poll(c, receives, batch, now);
    }

    /** The connection now (null when there is none); agent thread. */
    ClientConnection connection() {
        return conn;
    }

    /** A message arrived on the current connection. */
    void received(long now) {
        own.increment(ClientCounter.RECEIVES);
        lastActivity = now;
        keepAlive.received(now);
    }

    private int pollSends() {
        ClientConnection c = conn;
        int total = 0;
        int n;
        while (c == conn && c != null && (n = c.queues.sendCq().poll(batch)) > 0) {
            total += n;
            for (int i = 0; i < n; i++) {
                onSendCompletion(batch[i], c.generation);
            }
        }
        return total;
    }

    private void onSendCompletion(WorkCompletion wc, int gen) {
        if (wc.status == WcStatus.WR_FLUSH_ERR) {
            flushed("a send queue work request was flushed");
        }
        if (registrations.owns(wc.wrId)) {
            if (!wc.ok() && wc.status != WcStatus.WR_FLUSH_ERR) {
                disconnectSoon("a registration work request failed: " + wc.status);
            }
            registrations.onCompletion(wc);
            return;
        }
        if (WrIds.kind(wc.wrId) != WrIds.Kind.SEND || WrIds.epoch(wc.wrId) != (gen & WrIds.EPOCH_MASK)) {
            return;
        }
        int index = WrIds.index(wc.wrId);
        if (index == UnsignaledRun.WR_INDEX) {
            // completes only when it fails; the call waits for its reply (or is sent again after a reconnect)
            if (wc.status != WcStatus.WR_FLUSH_ERR) {
                disconnectSoon("the Send of a call failed: " + wc.status);
            }
            return;
        }
        if (reverse.ownsSend(index)) {
            if (!wc.ok() && wc.status != WcStatus.WR_FLUSH_ERR) {
                disconnectSoon("the Send of a reverse-direction reply failed: " + wc.status);
            }
            reverse.onSendComplete(index, wc.ok(), String.valueOf(wc.status));
            return;
        }
        if (index < 0 || index >= slots.length) {
            return;
        }
        RequestSlot slot = slots[index];
        if (!slot.sendPending || slot.sentGeneration != gen) {
            return;
        }
        slot.sendPending = false;
        if (!wc.ok() && wc.status != WcStatus.WR_FLUSH_ERR) {
            disconnectSoon("the Send of xid 0x" + Integer.toHexString(slot.xid) + " failed: " + wc.status);
        }
        completion.tryFinish(slot);
    }

    // ------------------------------------------------------------------ replies (from ReplyProcessor)

    /** Takes the slot of a call on the wire by xid (null when there is none): it is answered now. */
    RequestSlot takeSent(int xid) {
        RequestSlot slot = window.take(xid);
        if (slot != null) {
            slot.state = RequestSlot.State.COMPLETING;
            if (slot.keepAliveProbe) {
                keepAlive.probeAnswered();
            }
        }
        return slot;
    }

    /** Applies a credit grant: 0 counts as 1, more than requested is clamped. */
    void grant(int credits) {
        window.grant(credits);
    }

    /** A reply (or a bad one) arrived for {@code slot}: invalidate its handles, then complete it. */
    void replied(RequestSlot slot, WorkCompletion wc, Throwable failure) {
        completion.replied(slot, wc, failure);
    }

    /** From the registration pool: every handle of the slot is invalid. Agent thread. */
    void onInvalidated(RequestSlot slot) {
        slot.invalidating = false;
        if (slot.state == RequestSlot.State.RECOVERING) {
            recovery.dispatch(slot);
        } else {
            completion.tryFinish(slot);
        }
    }

    private void fail(RequestSlot slot, Throwable failure) {
        window.remove(slot);
        completion.fail(slot, failure);
    }

    // ------------------------------------------------------------------ timeouts

    private int timers(long now) {
        int work = 0;
        if (now - nextTimeoutCheck >= 0) {
            nextTimeoutCheck = Long.MAX_VALUE;
            for (int i = 0; i < maxCredits; i++) {
                RequestSlot slot = slots[i];
                long deadline = slot.deadlineNanos;
                if (deadline == 0) {
                    continue;
                }
                RequestSlot.State s = slot.state;
                if (s != RequestSlot.State.QUEUED && s != RequestSlot.State.SENT) {
                    continue;
                }
                if (now - deadline < 0) {
                    if (deadline - nextTimeoutCheck < 0) {
                        nextTimeoutCheck = deadline;
                    }
                    continue;
                }
                work++;
                if (s == RequestSlot.State.QUEUED) {
                    counters.increment(XprtCounter.TIMEOUTS);
                    fail(slot, timeout(slot));
                } else if (!slot.timedOut) {
                    counters.increment(XprtCounter.TIMEOUTS);
                    slot.timedOut = true;
                    disconnectSoon("call xid 0x" + Integer.toHexString(slot.xid) + " got no reply in time");
                }
            }
        }
        if (state == State.BACKOFF && now - reconnectAtNanos >= 0) {
            startConnect(now);
            work++;
        }
        if (state == State.CONNECTING && now - connectStartedNanos >= connectTimeoutNanos) {
            // the device bounds each phase (reaching the listener, the handshake); this bounds them together
            connectFailed(now, new ConnectException(ConnectionEventType.CONNECT_ERROR, "no connection to " + server
                    + " within the connect timeout of " + config.connectTimeout().toMillis() + " ms", null, null));
            work++;
        }
        return work;
    }

    Throwable timeout(RequestSlot slot) {
        return CallFailures.timeout(slot, server, state == State.CONNECTED, everConnected, lossReason,
                lastConnectError);
    }

    private RdmaConnectionException closedException() {
        return new RdmaConnectionException("the RDMA transport to " + server + " was closed");
    }

    // ------------------------------------------------------------------ keep-alive probe

    /** Whether a credit is free for the keep-alive probe and its slot is free. */
    boolean probeAllowed() {
        return probe.state == RequestSlot.State.FREE && window.creditFree();
    }

    RequestSlot probeSlot() {
        return probe;
    }

    /** Whether the keep-alive probe is on the wire, unanswered. */
    boolean probeOnTheWire() {
        return window.probeOnTheWire();
    }

    /** Remembers the program a caller used last: the keep-alive probe calls its NULL procedure. */
    void noteProgram(int program, int version) {
        keepAlive.noteProgram(program, version);
    }

    int nextXid() {
        return xids.incrementAndGet();
    }

    /**
     * The next xid of the transport's counter that no call on the wire has: callers choose their own xids (an
     * oncrpc4j {@code RpcCall}'s come from oncrpc4j's counter), and the keep-alive probe must not take one of theirs.
     */
    int freeXid() {
        int xid;
        do {
            xid = nextXid();
        } while (window.onTheWire(xid));
        return xid;
    }

    int regularInFlight() {
        return window.callsInFlight();
    }

    void keepAliveFailed(String reason) {
        own.increment(ClientCounter.KEEPALIVE_FAILURES);
        disconnectSoon(reason);
    }

    // ------------------------------------------------------------------ connection life cycle

    private void startConnect(long now) {
        generation++;
        connectStartedNanos = now;
        state = State.CONNECTING;
        try {
            conn = ClientConnection.open(device, pd, registrations, generation, sizes, wake, completionSignal, receives, server,
                    connectParameters);
        } catch (VerbsException | RuntimeException e) {
            connectFailed(now, e);
        }
    }

    private int checkConnection(long now) {
        ClientConnection c = conn;
        if (state == State.CONNECTING && c.connecting != null && c.connecting.isDone()) {
            ConnectionInfo info;
            try {
                info = c.connecting.join();
            } catch (RuntimeException e) {
                connectFailed(now, e.getCause() != null ? e.getCause() : e);
                return 1;
            }
            connected(now, info);
            return 1;
        }
        if (c.lostBy != null && conn == c) {
            Throwable cause = c.lostCause;
            String reason = forceDisconnect ? forceReason : "the connection ended (" + c.lostBy
                    + (cause != null ? ": " + cause.getMessage() : "") + ")";
            forceDisconnect = false;
            teardown(reason);
            return 1;
        }
        return 0;
    }

    private void connected(long now, ConnectionInfo info) {
        conn.info = info;
        own.add(ClientCounter.CONNECT_TIME_MILLIS, TimeUnit.NANOSECONDS.toMillis(now - connectStartedNanos));
        thresholds = InlineThresholds.negotiate(info.privateData(), config.inlineSendSize(),
                config.inlineReceiveSize());
        localAddress = info.localAddress();
        window.reset();
        state = State.CONNECTED;
        backoffNanos = 0;
        lastConnectError = null;
        keepAlive.connected(now);
        counters.increment(XprtCounter.CONNECTS);
        if (everConnected) {
            counters.increment(XprtCounter.RECONNECTS);
        }
        everConnected = true;
        replanQueued();
        LOG.debug("{}: connected to {} from {}, inline {}/{}{}", name, info.remoteAddress(), info.localAddress(),
                thresholds.send(), thresholds.receive(), thresholds.peerPrivateData() ? "" : " (no private data)");
        if (firstConnect != null) {
            firstConnect.complete(null);
            firstConnect = null;
        }
    }

    /** Whether {@code slot} was marshaled for inline thresholds other than this connection's. */
    private boolean plannedForOther(RequestSlot slot) {
        return slot.plannedWith != null && !slot.plannedWith.equals(thresholds);
    }

    /**
     * Calls queued while there was no connection were marshaled for the previous one: those whose thresholds differ
     * from the new connection's are planned and marshaled again (recovery thread) before they go out.
     */
    private void replanQueued() {
        for (RequestSlot slot : slots) {
            if (slot != probe && slot.state == RequestSlot.State.QUEUED && plannedForOther(slot)) {
                window.remove(slot);
                toRecovery(slot);
            }
        }
    }

    private void connectFailed(long now, Throwable error) {
        counters.increment(XprtCounter.CONNECT_FAILURES);
        own.add(ClientCounter.CONNECT_TIME_MILLIS, TimeUnit.NANOSECONDS.toMillis(now - connectStartedNanos));
        lastConnectError = error;
        LOG.debug("{}: connecting to {} failed: {}", name, server, error.toString());
        destroyConnection();
        if (firstConnect != null) {
            firstConnect.completeExceptionally(error);
            firstConnect = null;
            state = State.IDLE;
            return;
        }
        long min = config.reconnectDelayMin().toNanos();
        backoffNanos = backoffNanos == 0 ? min : Math.min(config.reconnectDelayMax().toNanos(), backoffNanos * 2);
        reconnectAtNanos = now + backoffNanos;
        state = State.BACKOFF;
        if (!resendAll()) {
            state = State.IDLE; // nothing waits: the next call connects
        }
    }

    /**
     * A work request of the current connection was flushed: its queue pair is in error. The disconnect that explains
     * it normally follows at once; without one the connection is dropped after {@link UnexplainedFlush#GRACE_NANOS}.
     */
    void flushed(String what) {
        if (state == State.CONNECTED && !forceDisconnect) {
            flush.flushed(what, System.nanoTime());
        }
    }

    /** Drops the connection at the end of this round (the first reason given is kept). */
    void disconnectSoon(String reason) {
        if (!forceDisconnect) {
            forceDisconnect = true;
            forceReason = reason;
        }
    }

    /**
     * The connection is gone (or is being dropped): destroys its queue pair and every registration handle, finishes
     * what was answered, fails what timed out, and sends the rest to be marshaled again for the next connection.
     */
    private void teardown(String reason) {
        if (conn == null) {
            return;
        }
        lossReason = reason;
        LOG.info("{}: connection to {} lost: {}", name, server, reason);
        destroyConnection();
        boolean pending = resendAll();
        if (state == State.CLOSED) {
            return;
        }
        if (pending) {
            startConnect(System.nanoTime());
        } else {
            state = State.IDLE;
        }
    }

    /** Destroys the queue pair, CQs and every handle; completes or releases what depended on them. */
    private void destroyConnection() {
        ClientConnection c = conn;
        conn = null;
        flush.reset();
        window.reset();
        keepAlive.reset();
        // the handles go before the queue pair, as xprtrdma destroys its MRs before the endpoint: a memory window
        // bound through a queue pair holds it (rxe waits up to 50 s in the queue pair's destruction while one is
        // still bound), and a peer that still holds one of our STags loses its access first
        try {
            registrations.onDisconnect();
        } catch (VerbsException e) {
            LOG.warn("{}: the registration pool could not be rebuilt fully: {}", name, e.toString());
        }
        if (c != null) {
            c.close();
        }
        reverse.connectionLost();
        receives.reset();
        for (RequestSlot slot : slots) {
            slot.sendPending = false;
        }
        resetCount++;
        for (RequestSlot slot : slots) {
            if (slot.state == RequestSlot.State.COMPLETING) {
                completion.tryFinish(slot);
            }
        }
    }

    /** Sends every call that was queued or on the wire to be marshaled again; fails those that timed out. */
    private boolean resendAll() {
        boolean pending = false;
        for (RequestSlot slot : slots) {
            if (slot == probe) {
                if (slot.state == RequestSlot.State.SENT || slot.state == RequestSlot.State.QUEUED) {
                    completion.fail(slot, null);
                }
                continue;
            }
            if (slot.state == RequestSlot.State.SENT || slot.state == RequestSlot.State.QUEUED) {
                window.remove(slot);
                if (slot.timedOut || state == State.CLOSED) {
                    fail(slot, state == State.CLOSED ? closedException() : timeout(slot));
                } else {
                    toRecovery(slot);
                    pending = true;
                }
            } else if (slot.state == RequestSlot.State.RECOVERING || slot.state == RequestSlot.State.MARSHALING) {
                pending = true;
            }
        }
        return pending || !submitted.isEmpty();
    }

    private void toRecovery(RequestSlot slot) {
        slot.state = RequestSlot.State.RECOVERING;
        slot.invalidating = true;
        if (slot.registration.invalidate(slot)) {
            recovery.dispatch(slot);
        }
    }

    private void shutdown() {
        state = State.CLOSED;
        lossReason = "the transport was closed";
        if (conn != null) {
            destroyConnection();
        }
        resendAll();
        if (firstConnect != null) {
            firstConnect.completeExceptionally(closedException());
            firstConnect = null;
        }
    }

    /** Releases the slots' and receives' buffers. After the agent was removed from its runner. */
    void releaseBuffers() {
        receives.release();
        reverse.release();
        pool.releaseBuffers();
    }
}
