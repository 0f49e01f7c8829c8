package org.rpcrdma4j.xprt.client;

import java.net.InetSocketAddress;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

import org.rpcrdma4j.codec.RpcRdmaLimits;
import org.rpcrdma4j.codec.RpcRdmaPrivateData;
import org.rpcrdma4j.registration.RegisteredBufferPool;
import org.rpcrdma4j.registration.RegistrationCounter;
import org.rpcrdma4j.registration.RegistrationPool;
import org.rpcrdma4j.registration.WrIds;
import org.rpcrdma4j.verbs.ConnectParameters;
import org.rpcrdma4j.verbs.ConnectionInfo;
import org.rpcrdma4j.verbs.DeviceAttributes;
import org.rpcrdma4j.verbs.DeviceCapability;
import org.rpcrdma4j.verbs.PostException;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.WcStatus;
import org.rpcrdma4j.verbs.WorkCompletion;
import org.rpcrdma4j.verbs.util.EnumCounters;
import org.rpcrdma4j.xprt.XprtCounter;
import org.rpcrdma4j.xprt.internal.Agent;
import org.rpcrdma4j.xprt.internal.AgentRunner;
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
final class ClientAgent implements Agent {
    private static final Logger LOG = LoggerFactory.getLogger(ClientAgent.class);
    private static final int BATCH = 32;

    enum State { IDLE, CONNECTING, CONNECTED, BACKOFF, CLOSED }

    /** Hands oncrpc4j replies and failures to their handlers, off the agent thread. */
    interface PlainDelivery {
        void deliver(int xid, byte[] reply, Throwable failure);
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
    private final RequestSlot[] slots;
    private final RequestSlot probe;
    private final ArrayBlockingQueue<RequestSlot> free;
    private final ArrayBlockingQueue<RequestSlot> submitted;
    private final SlotList sendQueue = new SlotList();
    private final XidTable onTheWire;
    private final WorkCompletion[] batch = new WorkCompletion[BATCH];
    private final ClientConnection.Sizes sizes;
    private final PlainDelivery plain;
    private final Executor recovery;
    private final Runnable wake;
    private final KeepAlive keepAlive;
    private final int maxCredits;
    private final boolean remoteInvalidation;
    private final java.util.concurrent.atomic.AtomicInteger xids;
    private volatile int lastProgram;
    private volatile int lastVersion;

    private volatile AgentRunner runner;
    private volatile State state = State.IDLE;
    private volatile InlineThresholds thresholds = InlineThresholds.V1_DEFAULTS;
    private volatile int resetCount;
    private volatile boolean closeRequested;
    private volatile boolean quiesced;
    private volatile String lossReason;
    private volatile Throwable lastConnectError;
    private volatile InetSocketAddress localAddress;
    private volatile int granted = 1;
    private volatile int inFlight;
    private volatile long lastActivity = System.nanoTime();
    private final CompletableFuture<Void> closed = new CompletableFuture<>();

    private ClientConnection conn;
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
                PlainDelivery plain, Executor recovery, java.util.concurrent.atomic.AtomicInteger xids)
            throws VerbsException, InterruptedException {
        this.xids = xids;
        this.config = config;
        this.server = server;
        this.name = name;
        this.device = device;
        this.pd = pd;
        this.registrations = registrations;
        this.buffers = buffers;
        this.bindings = new Bindings(config.bindings());
        this.plain = plain;
        this.recovery = recovery;
        this.wake = this::wake;
        this.maxCredits = config.maxCredits();
        DeviceAttributes attributes = device.attributes();
        this.remoteInvalidation = attributes.has(DeviceCapability.REMOTE_INV);
        if (attributes.maxSge() < 4) {
            throw new VerbsException("device " + device.name() + " has " + attributes.maxSge()
                    + " SGEs per work request; the transport needs 4");
        }
        for (int i = 0; i < BATCH; i++) {
            batch[i] = new WorkCompletion();
        }
        RpcRdmaLimits limits = RpcRdmaLimits.DEFAULT;
        this.marshaler = new CallMarshaler(this, config);
        this.replies = new ReplyProcessor(this, limits, server.toString());
        int receiveCount = maxCredits + config.extraReceives();
        int maxPieces = Math.max(config.maxPayloadSize(), config.defaultMaxReplySize()) / 4096 + 4;
        int slotCount = maxCredits + 1;
        this.slots = new RequestSlot[slotCount];
        this.free = new ArrayBlockingQueue<>(maxCredits, true);
        this.submitted = new ArrayBlockingQueue<>(slotCount);
        this.onTheWire = new XidTable(slotCount);
        ReceiveRing ring = null;
        try {
            ring = new ReceiveRing(buffers, receiveCount, config.inlineReceiveSize());
            for (int i = 0; i < slotCount; i++) {
                slots[i] = new RequestSlot(i, this, buffers.allocate(RequestSlot.RESERVE + config.inlineSendSize(),
                        10, TimeUnit.SECONDS), registrations.newRegistration(), limits, maxPieces);
            }
        } catch (VerbsException | InterruptedException | RuntimeException e) {
            if (ring != null) {
                ring.release();
            }
            for (RequestSlot s : slots) {
                if (s != null) {
                    s.sendBuffer.release();
                }
            }
            throw e;
        }
        this.receives = ring;
        this.probe = slots[slotCount - 1];
        for (int i = 0; i < maxCredits; i++) {
            free.add(slots[i]);
        }
        int perRpc = 1 + 2 * registrations.maxSegmentsPerRpc();
        int sendWr = Math.min(attributes.maxQpWr(), slotCount * perRpc);
        // the receive queue gets some slack beyond the receives posted: a device may free a receive's slot a little
        // after its completion is visible, and reposting must not fail then
        this.sizes = new ClientConnection.Sizes(sendWr, receiveCount + 16, 4,
                Math.min(attributes.maxCqe(), sendWr + 16), Math.min(attributes.maxCqe(), receiveCount + 16));
        this.keepAlive = new KeepAlive(config);
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
        return granted;
    }

    int inFlight() {
        return inFlight;
    }

    InetSocketAddress localAddress() {
        return localAddress;
    }

    String lossReason() {
        return lossReason;
    }

    int slotCount() {
        return maxCredits;
    }

    int freeSlots() {
        return free.size();
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

    /**
     * Takes a free slot, waiting (fairly, in arrival order) until {@code deadlineNanos} (0: without end).
     *
     * @return the slot, or null when the deadline passed
     */
    RequestSlot acquire(long deadlineNanos) throws RdmaConnectionException, InterruptedException {
        RequestSlot slot = free.poll();
        if (slot == null) {
            counters.increment(XprtCounter.EMPTY_SENDCTX_Q);
            while (slot == null) {
                checkOpen();
                long wait = TimeUnit.MILLISECONDS.toNanos(50);
                if (deadlineNanos != 0) {
                    long left = deadlineNanos - System.nanoTime();
                    if (left <= 0) {
                        return null;
                    }
                    wait = Math.min(wait, left);
                }
                slot = free.poll(wait, TimeUnit.NANOSECONDS);
            }
        }
        if (closeRequested) {
            free.add(slot);
            checkOpen();
        }
        slot.state = RequestSlot.State.MARSHALING;
        return slot;
    }

    private void checkOpen() throws RdmaConnectionException {
        if (closeRequested) {
            throw new RdmaConnectionException("the RDMA transport to " + server + " is closed");
        }
    }

    /** Hands a slot to the agent: to send ({@link RequestSlot.Command#SEND}) or to clean up and fail. Any thread. */
    void submit(RequestSlot slot) {
        if (!submitted.offer(slot)) {
            throw new IllegalStateException("submission queue overflow: " + slot);
        }
        wake();
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
        if (conn != null) {
            work += pollReceives(now);
            work += pollSends();
            work += checkConnection(now);
        }
        if (state == State.CONNECTED) {
            work += sendQueued();
            work += keepAlive.check(now, this);
        }
        work += timers(now);
        if (forceDisconnect) {
            forceDisconnect = false;
            own.increment(ClientCounter.FORCED_DISCONNECTS);
            teardown(forceReason);
            work++;
        }
        if (work == 0 && conn != null) {
            conn.sendCq.requestNotify();
            conn.recvCq.requestNotify();
            work += pollReceives(now) + pollSends();
        }
        if (state == State.CLOSED && !quiesced && free.size() == maxCredits) {
            quiesced = true;
        }
        nextDeadline = computeDeadline();
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

    private long computeDeadline() {
        long d = nextTimeoutCheck;
        if (state == State.BACKOFF) {
            d = Math.min(d, reconnectAtNanos);
        }
        if (state == State.CONNECTED) {
            d = Math.min(d, keepAlive.nextCheck());
        }
        return d;
    }

    // ------------------------------------------------------------------ submissions

    private int drainSubmitted(long now) {
        int n = 0;
        RequestSlot slot;
        while ((slot = submitted.poll()) != null) {
            n++;
            if (slot.command == RequestSlot.Command.FAIL) {
                fail(slot, slot.failure);
            } else if (state == State.CLOSED) {
                fail(slot, closedException());
            } else if (slot.deadlineNanos != 0 && now - slot.deadlineNanos >= 0) {
                counters.increment(XprtCounter.TIMEOUTS);
                fail(slot, timeout(slot));
            } else if (slot.resetStamp != resetCount) {
                toRecovery(slot);
            } else {
                slot.state = RequestSlot.State.QUEUED;
                sendQueue.addLast(slot);
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

    private int sendQueued() {
        int n = 0;
        RequestSlot slot;
        while ((slot = sendQueue.peekFirst()) != null) {
            int limit = granted > 1 ? granted - 1 : 1;
            if (inFlight >= limit) {
                if (!slot.creditWaitCounted) {
                    slot.creditWaitCounted = true;
                    counters.increment(XprtCounter.CREDIT_WAITS);
                }
                break;
            }
            sendQueue.remove(slot);
            post(slot);
            n++;
            if (conn == null) {
                break; // the post failed and dropped the connection
            }
        }
        return n;
    }

    /** Posts a slot's pending registrations and its Send. */
    void post(RequestSlot slot) {
        slot.sendWr.wrId = WrIds.of(WrIds.Kind.SEND, conn.generation, slot.index);
        slot.sendWr.next = null;
        slot.state = RequestSlot.State.SENT;
        slot.sendPending = true;
        slot.sentGeneration = conn.generation;
        inFlight++;
        if (inFlight == 1 && !slot.keepAliveProbe) {
            keepAlive.firstCallSent(System.nanoTime());
        }
        onTheWire.put(slot.xid, slot);
        own.increment(ClientCounter.SENDS);
        lastActivity = System.nanoTime();
        own.add(ClientCounter.REQUEST_USAGE, inFlight);
        own.add(ClientCounter.BACKLOG_USAGE, sendQueue.size());
        counters.add(XprtCounter.TOTAL_RDMA_REQUEST, slot.rpcLength);
        if (slot.everSent) {
            counters.increment(XprtCounter.RETRANSMITS);
        }
        slot.everSent = true;
        try {
            conn.qp.postSend(slot.registration.linkAfterPending(slot.sendWr));
        } catch (PostException e) {
            LOG.warn("{}: posting the call xid 0x{} failed: {}", name, Integer.toHexString(slot.xid), e.toString());
            disconnectSoon("posting a Send failed: " + e.getMessage());
        }
    }

    // ------------------------------------------------------------------ completions

    private int pollReceives(long now) {
        ClientConnection c = conn;
        int total = 0;
        int n;
        while (c == conn && c != null && (n = c.recvCq.poll(batch)) > 0) {
            total += n;
            for (int i = 0; i < n && c == conn; i++) {
                WorkCompletion wc = batch[i];
                if (WrIds.kind(wc.wrId) != WrIds.Kind.RECEIVE || WrIds.epoch(wc.wrId) != (c.generation & WrIds.EPOCH_MASK)) {
                    continue;
                }
                int index = WrIds.index(wc.wrId);
                receives.consumed(index);
                if (!wc.ok()) {
                    if (wc.status != WcStatus.WR_FLUSH_ERR) {
                        disconnectSoon("a receive failed: " + wc.status);
                    }
                    continue;
                }
                own.increment(ClientCounter.RECEIVES);
                lastActivity = now;
                keepAlive.received(now);
                replies.onReceive(wc, receives.buffer(index), wc.byteLen);
                receives.recycle(index);
            }
            if (c == conn && state == State.CONNECTED && receives.pendingCount() > 0) {
                try {
                    receives.repost(c.qp, c.generation);
                } catch (PostException e) {
                    disconnectSoon("posting receives failed: " + e.getMessage());
                }
            }
        }
        return total;
    }

    private int pollSends() {
        ClientConnection c = conn;
        int total = 0;
        int n;
        while (c == conn && c != null && (n = c.sendCq.poll(batch)) > 0) {
            total += n;
            for (int i = 0; i < n; i++) {
                onSendCompletion(batch[i], c.generation);
            }
        }
        return total;
    }

    private void onSendCompletion(WorkCompletion wc, int gen) {
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
        tryFinish(slot);
    }

    // ------------------------------------------------------------------ replies (from ReplyProcessor)

    /** Takes the slot of a call on the wire by xid (null when there is none): it is answered now. */
    RequestSlot takeSent(int xid) {
        RequestSlot slot = onTheWire.remove(xid);
        if (slot != null) {
            inFlight--;
            slot.state = RequestSlot.State.COMPLETING;
            if (slot.keepAliveProbe) {
                keepAlive.probeAnswered();
            }
        }
        return slot;
    }

    /** Applies a credit grant: 0 counts as 1, more than requested is clamped. */
    void grant(int credits) {
        long value = Integer.toUnsignedLong(credits);
        granted = (int) Math.max(1, Math.min(maxCredits, value));
    }

    /** A reply (or a bad one) arrived for {@code slot}: invalidate its handles, then complete it. */
    void replied(RequestSlot slot, WorkCompletion wc, Throwable failure) {
        slot.failure = failure;
        slot.state = RequestSlot.State.COMPLETING;
        if (slot.sendPending) {
            counters.increment(XprtCounter.REPLY_WAITS_FOR_SEND);
        }
        if (wc != null && wc.withInvalidate() && slot.hasSegments() && !ownsStag(slot, wc.invalidatedStag)) {
            LOG.warn("{}: the reply to xid 0x{} invalidated STag 0x{}, which is not one of the call's; refused",
                    name, Integer.toHexString(slot.xid), Integer.toHexString(wc.invalidatedStag));
        }
        if (!invalidate(slot, wc)) {
            counters.increment(XprtCounter.LOCAL_INV_NEEDED);
        }
        tryFinish(slot);
    }

    private static boolean ownsStag(RequestSlot slot, int stag) {
        for (int i = 0; i < slot.registration.segmentCount(); i++) {
            if (slot.registration.hasHandle(i) && slot.registration.handle(i) == stag) {
                return true;
            }
        }
        return false;
    }

    /** Starts invalidating the slot's handles; returns whether they are all invalid already. */
    private boolean invalidate(RequestSlot slot, WorkCompletion wc) {
        slot.invalidating = true;
        if (slot.registration.invalidate(wc, slot)) {
            slot.invalidating = false;
            return true;
        }
        return false;
    }

    /** From the registration pool: every handle of the slot is invalid. Agent thread. */
    void onInvalidated(RequestSlot slot) {
        slot.invalidating = false;
        if (slot.state == RequestSlot.State.RECOVERING) {
            dispatchRecovery(slot);
        } else {
            tryFinish(slot);
        }
    }

    private void fail(RequestSlot slot, Throwable failure) {
        sendQueue.remove(slot);
        slot.failure = failure;
        slot.state = RequestSlot.State.COMPLETING;
        invalidate(slot, null);
        tryFinish(slot);
    }

    private void tryFinish(RequestSlot slot) {
        if (slot.state != RequestSlot.State.COMPLETING || slot.sendPending || slot.invalidating) {
            return;
        }
        RdmaCall call = slot.ddpCall;
        boolean isPlain = slot.plain;
        boolean isProbe = slot.keepAliveProbe;
        int xid = slot.xid;
        Throwable failure = slot.failure;
        byte[] reply = slot.plainReply;
        slot.clearCall();
        slot.state = RequestSlot.State.FREE;
        if (slot != probe) {
            free.add(slot);
        }
        if (call != null) {
            try {
                call.complete(failure);
            } catch (RuntimeException e) {
                LOG.warn("{}: a call listener failed", name, e);
            }
        } else if (isPlain) {
            plain.deliver(xid, reply, failure);
        } else if (isProbe && failure != null) {
            LOG.debug("{}: keep-alive probe failed: {}", name, failure.toString());
        }
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
        return work;
    }

    Throwable timeout(RequestSlot slot) {
        StringBuilder sb = new StringBuilder("no reply to xid 0x").append(Integer.toHexString(slot.xid))
                .append(" (program ").append(slot.program).append(" version ").append(slot.version)
                .append(" procedure ").append(slot.procedure).append(") from ").append(server).append(" in time");
        State s = state;
        if (s != State.CONNECTED) {
            sb.append("; the connection ").append(everConnected ? "was lost" : "was never made");
            if (lossReason != null) {
                sb.append(" (").append(lossReason).append(')');
            }
            if (lastConnectError != null) {
                sb.append(" and reconnecting failed: ").append(lastConnectError.getMessage());
            }
        }
        String message = sb.toString();
        if (slot.plain) {
            return new java.util.concurrent.TimeoutException(message);
        }
        return new RdmaCallTimeoutException(message);
    }

    private RdmaConnectionException closedException() {
        return new RdmaConnectionException("the RDMA transport to " + server + " was closed");
    }

    // ------------------------------------------------------------------ keep-alive probe

    /** Sends the keep-alive probe (a NULL call of the last program used) if a credit is free. */
    boolean sendProbe(int program, int version) {
        if (probe.state != RequestSlot.State.FREE || inFlight >= granted) {
            return false;
        }
        probe.state = RequestSlot.State.MARSHALING;
        probe.keepAliveProbe = true;
        KeepAlive.encodeNullCall(probe, nextXid(), program, version);
        try {
            marshaler.marshal(probe);
        } catch (RdmaMarshalException | VerbsException | InterruptedException | RuntimeException e) {
            LOG.warn("{}: the keep-alive probe could not be marshaled: {}", name, e.toString());
            probe.clearCall();
            probe.state = RequestSlot.State.FREE;
            return false;
        }
        counters.increment(XprtCounter.KEEPALIVE_PROBES);
        post(probe);
        return true;
    }

    /** Remembers the program a caller used last: the keep-alive probe calls its NULL procedure. */
    void noteProgram(int program, int version) {
        if (program != lastProgram || version != lastVersion) {
            lastProgram = program;
            lastVersion = version;
        }
    }

    int lastProgram() {
        return lastProgram;
    }

    int lastVersion() {
        return lastVersion;
    }

    int nextXid() {
        return xids.incrementAndGet();
    }

    int regularInFlight() {
        return probe.state == RequestSlot.State.SENT ? inFlight - 1 : inFlight;
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
            conn = ClientConnection.create(device, pd, registrations, generation, sizes, wake);
            receives.postAll(conn.qp, conn.generation);
            int ird = config.responderResources() > 0 ? config.responderResources()
                    : Math.min(255, device.attributes().maxQpRdAtom());
            ird = Math.max(1, Math.min(ird, device.attributes().maxQpRdAtom()));
            byte[] privateData = RpcRdmaPrivateData.of(remoteInvalidation, config.inlineSendSize(),
                    config.inlineReceiveSize()).encode();
            conn.connecting = device.connectionManager().connect(conn.qp, server,
                    new ConnectParameters(privateData, ird, 0, config.resolveTimeout(), config.connectTimeout()),
                    conn.events(wake));
            conn.connecting.whenComplete((info, error) -> wake());
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
        granted = 1;
        inFlight = 0;
        state = State.CONNECTED;
        backoffNanos = 0;
        lastConnectError = null;
        keepAlive.connected(now);
        counters.increment(XprtCounter.CONNECTS);
        if (everConnected) {
            counters.increment(XprtCounter.RECONNECTS);
        }
        everConnected = true;
        LOG.debug("{}: connected to {} from {}, inline {}/{}{}", name, info.remoteAddress(), info.localAddress(),
                thresholds.send(), thresholds.receive(), thresholds.peerPrivateData() ? "" : " (no private data)");
        if (firstConnect != null) {
            firstConnect.complete(null);
            firstConnect = null;
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
        resendAll();
    }

    private void disconnectSoon(String reason) {
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
        inFlight = 0;
        granted = 1;
        keepAlive.reset();
        if (c != null) {
            c.close(batch, wc -> { });
        }
        receives.reset();
        for (RequestSlot slot : slots) {
            slot.sendPending = false;
        }
        try {
            registrations.onDisconnect();
        } catch (VerbsException e) {
            LOG.warn("{}: the registration pool could not be rebuilt fully: {}", name, e.toString());
        }
        resetCount++;
        onTheWire.clear();
        for (RequestSlot slot : slots) {
            if (slot.state == RequestSlot.State.COMPLETING) {
                tryFinish(slot);
            }
        }
    }

    /** Sends every call that was queued or on the wire to be marshaled again; fails those that timed out. */
    private boolean resendAll() {
        boolean pending = false;
        for (RequestSlot slot : slots) {
            if (slot == probe) {
                if (slot.state == RequestSlot.State.SENT || slot.state == RequestSlot.State.QUEUED) {
                    slot.failure = null;
                    slot.state = RequestSlot.State.COMPLETING;
                    invalidate(slot, null);
                    tryFinish(slot);
                }
                continue;
            }
            if (slot.state == RequestSlot.State.SENT || slot.state == RequestSlot.State.QUEUED) {
                sendQueue.remove(slot);
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
            dispatchRecovery(slot);
        }
    }

    private void dispatchRecovery(RequestSlot slot) {
        slot.invalidating = false;
        slot.state = RequestSlot.State.MARSHALING;
        recovery.execute(() -> remarshal(slot));
    }

    /** On the recovery thread: registers the call's chunks again for the next connection. */
    private void remarshal(RequestSlot slot) {
        Throwable failure = null;
        for (int attempt = 0; attempt < 3; attempt++) {
            try {
                marshaler.marshal(slot);
                failure = null;
                break;
            } catch (VerbsException e) {
                failure = new RdmaConnectionException("registering xid 0x" + Integer.toHexString(slot.xid)
                        + " again failed: " + e.getMessage(), e);
                if (slot.resetStamp == resetCount || closeRequested) {
                    break; // not a reset during mapping: do not loop
                }
            } catch (RdmaMarshalException e) {
                counters.increment(XprtCounter.FAILED_MARSHAL_COUNT);
                failure = e;
                break;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                failure = new RdmaConnectionException("interrupted while marshaling xid 0x"
                        + Integer.toHexString(slot.xid) + " again", e);
                break;
            } catch (RuntimeException e) {
                failure = new RdmaMarshalException("marshaling xid 0x" + Integer.toHexString(slot.xid)
                        + " again failed: " + e, e);
                break;
            }
        }
        if (failure != null) {
            slot.failure = failure;
            slot.command = RequestSlot.Command.FAIL;
        } else {
            slot.command = RequestSlot.Command.SEND;
        }
        submit(slot);
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
        for (RequestSlot slot : slots) {
            if (slot.state == RequestSlot.State.FREE) {
                slot.clearCall();
            }
            slot.sendBuffer.release();
        }
    }

    /** Copies the registration pool's counters that mountstats reports into the transport's counters. */
    void syncRegistrationCounters() {
        EnumCounters<RegistrationCounter> r = registrations.registrationCounters();
        counters.set(XprtCounter.MRS_RECYCLED, r.get(RegistrationCounter.MRS_RECYCLED));
        counters.set(XprtCounter.MRS_ORPHANED, r.get(RegistrationCounter.MRS_ORPHANED));
        counters.set(XprtCounter.MRS_ALLOCATED, r.get(RegistrationCounter.MRS_ALLOCATED));
        counters.set(XprtCounter.HARDWAY_REGISTER_COUNT, r.get(RegistrationCounter.HARDWAY_REGISTER_COUNT));
        counters.set(XprtCounter.REMOTE_INVALIDATIONS, r.get(RegistrationCounter.REMOTE_INV_HONOURED));
        own.set(ClientCounter.REMOTE_INVALIDATIONS_REFUSED, r.get(RegistrationCounter.REMOTE_INV_REFUSED));
    }
}
