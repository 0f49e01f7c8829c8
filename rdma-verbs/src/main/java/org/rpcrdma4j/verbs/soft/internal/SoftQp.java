package org.rpcrdma4j.verbs.soft.internal;

import java.io.IOException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

import org.rpcrdma4j.verbs.ConnectionEvent;
import org.rpcrdma4j.verbs.ConnectionEventType;
import org.rpcrdma4j.verbs.ConnectionInfo;
import org.rpcrdma4j.verbs.ConnectionListener;
import org.rpcrdma4j.verbs.DeviceCapability;
import org.rpcrdma4j.verbs.Opcode;
import org.rpcrdma4j.verbs.PostException;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.QpState;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.QueuePairConfig;
import org.rpcrdma4j.verbs.RecvWorkRequest;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.WcOpcode;
import org.rpcrdma4j.verbs.WcStatus;
import org.rpcrdma4j.verbs.WorkCompletion;
import org.rpcrdma4j.verbs.soft.SoftIwarpOptions;
import org.rpcrdma4j.verbs.soft.wire.Rdmap;
import org.rpcrdma4j.verbs.soft.wire.Terminate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A reliable-connected queue pair of the software device: one TCP connection, owned by one engine thread.
 * <p>
 * Posting threads touch only the send and receive rings (under each ring's lock) and then schedule the queue pair on
 * its engine; a post made on the engine thread itself (from a listener), or while the engine is idle and its claim
 * can be taken ({@link Engine#tryClaimWithoutTasks()}), is transmitted at once by the posting thread. Everything else — the
 * socket, the {@link Transmitter} and {@link Receiver}, the ORQ and IRQ, completion decisions, the state machine —
 * belongs to the engine: its thread, or the holder of its claim. Control requests from other threads (disconnect,
 * close, faults) travel as engine tasks.
 * <p>
 * Completion rules: send-queue completions are decided strictly in posting order ({@link #retire}); a successful
 * unsignaled request completes silently and its slot is reclaimed by a later signaled completion; a failed or
 * flushed one always completes. With placement confirmation, an RDMA Write or Send counts as done when the peer has
 * answered a later Read Request (its own, or a zero-length probe), which proves that everything before was placed.
 */
public final class SoftQp implements QueuePair, Engine.Handler {
    private static final Logger LOG = LoggerFactory.getLogger(SoftQp.class);

    static final int TEARDOWN_GRACEFUL = 1;
    static final int TEARDOWN_TERMINATE = 2;
    static final int TEARDOWN_ABORT = 3;
    static final int TEARDOWN_CLOSE = 4;

    /** How long a closing connection waits for the peer's FIN after ours. */
    private static final long LINGER_NANOS = TimeUnit.SECONDS.toNanos(2);
    /**
     * The longest an orderly teardown may take to write its last FPDUs (the one being written, a Terminate) before the
     * connection is reset: a peer that reads nothing would otherwise hold it, and its socket, for ever.
     */
    static final long TEARDOWN_NANOS = TimeUnit.SECONDS.toNanos(5);
    /**
     * Most payload bytes a posted chain may carry to the peer (Send and RDMA Write SGEs) for the posting thread to
     * transmit it itself. Larger chains are left to the engine thread: a poster that writes a mebibyte competes with
     * the engine for the socket and the claim, which costs bulk transfers more CPU than the hand-off it saves.
     */
    static final long POSTER_TRANSMIT_MAX_BYTES = 16 * 1024;

    final SoftDevice device;
    final SoftPd pd;
    final Engine engine;
    final SoftCq sendCq;
    final SoftCq recvCq;
    final SendQueue sq;
    final RecvQueue rq;
    final ReadRing orq;
    final ReadRing irq;
    final Transmitter tx;
    final Receiver rx;
    final ProbeHold hold;
    final AtomicBoolean scheduled = new AtomicBoolean();
    SoftQp nextScheduled;
    /** Engine thread only: a transmission is deferred to the end of the completion listeners' calls. */
    boolean transmitDeferred;

    private final QueuePairConfig config;
    private final int qpNum;
    private final AtomicBoolean connectStarted = new AtomicBoolean();
    private final AtomicBoolean closeRequested = new AtomicBoolean();
    private final SegmentHeader scratchHeader = new SegmentHeader();
    private final WorkCompletion wc = new WorkCompletion();
    private volatile QpState state = QpState.INIT;
    private volatile ConnectionInfo info;

    private SocketChannel channel;
    private SelectionKey key;
    private ConnectionListener listener;
    private Runnable handshakeCancel;
    private boolean eventDelivered;
    /** In ERROR by {@link #enterErrorUnreported}: the connection is still up, until the consumer ends it. */
    private boolean errorUnreported;
    private boolean peerClosed;
    /** While a teardown runs: its deadline for the output ({@link #TEARDOWN_NANOS}), then for the peer's FIN. */
    private Engine.Timer teardownTimer;
    private int userReads;
    /**
     * Whether the peer's transmitter may still be at the Read Response it sent last, whose source STag is
     * {@link #peerResponseSource}: from the completion of a Read of ours until anything but a Read Response arrives
     * from the peer. See {@link Transmitter#probeDue}.
     */
    private boolean peerAtReadResponse;
    private int peerResponseSource;
    /** Whether a Send With Invalidate of {@link #peerResponseSource} went out since: no probe until the peer sends. */
    private boolean peerResponseSourceInvalidated;
    private boolean active;
    private Engine.Timer wakeTimer;
    private long wakeDelayNanos;
    private int wakesLeft;

    SoftQp(SoftDevice device, SoftPd pd, QueuePairConfig config, int qpNum, Engine engine) {
        this.device = device;
        this.pd = pd;
        this.config = config;
        this.qpNum = qpNum;
        this.engine = engine;
        this.sendCq = (SoftCq) config.sendCq();
        this.recvCq = (SoftCq) config.recvCq();
        this.sq = new SendQueue(this, config.maxSendWr(), config.maxSendSge(), config.maxInlineData());
        this.rq = new RecvQueue(this, config.maxRecvWr(), config.maxRecvSge());
        int depth = device.attributes().maxQpRdAtom();
        this.orq = new ReadRing(depth);
        this.irq = new ReadRing(depth);
        this.tx = new Transmitter(this, sq, engine.id, device.options().maxUlpdu());
        this.rx = new Receiver(this, engine.id);
        SoftIwarpOptions options = device.options();
        this.hold = new ProbeHold(this, options.holdProbeAnswers(), options.probeAnswerHold().toNanos());
    }

    // ---------------------------------------------------------------- QueuePair

    @Override
    public int qpNum() {
        return qpNum;
    }

    @Override
    public QpState state() {
        return state;
    }

    @Override
    public ProtectionDomain protectionDomain() {
        return pd;
    }

    @Override
    public QueuePairConfig config() {
        return config;
    }

    @Override
    public ConnectionInfo connectionInfo() {
        return info;
    }

    /**
     * Copies the chain into the send queue. On the engine's thread, or when the chain is small (at most
     * {@link #POSTER_TRANSMIT_MAX_BYTES} of payload) and the engine is idle (its claim is free and no control task
     * waits, {@link Engine#tryClaimWithoutTasks()}), the posting thread transmits at once (as Linux siw does in
     * {@code post_send}): saves the engine's wake-up and a thread hand-off per message. Otherwise the engine is
     * scheduled. Either way the transmitter takes work requests strictly in posting order, and a
     * control request made before the post (a disconnect, a fault) takes effect before it.
     * <p>
     * Posted by a completion listener the engine is calling ({@link Engine#deferTransmit}), the chain goes once the
     * listeners of that socket read have returned: what they post in reply to the messages of one read (an RPC
     * server's replies to the calls that came together) leaves in one gathering write.
     */
    @Override
    public void postSend(SendWorkRequest chain) throws PostException {
        sq.post(chain);
        QpState s = state;
        if (s == QpState.RTS && engine.inEngine()) {
            if (!Engine.deferTransmit(this)) {
                tx.pump();
            }
        } else if (s == QpState.RTS && outboundBytes(chain) <= POSTER_TRANSMIT_MAX_BYTES
                && engine.tryClaimWithoutTasks()) {
            try {
                if (tx.idleForPoster()) {
                    onScheduled();
                } else {
                    engine.schedule(this); // output in progress: the engine finishes it (woken on release)
                }
            } catch (Throwable e) {
                onInternalError(e);
            } finally {
                engine.releaseClaim();
            }
        } else if (s != QpState.INIT) {
            engine.schedule(this);
        }
    }

    /**
     * Payload bytes {@code chain} sends to the peer: its Sends' and RDMA Writes' SGEs (a Read Request, a registration
     * or an invalidation carries none). Read on the posting thread, which still owns the chain.
     */
    static long outboundBytes(SendWorkRequest chain) {
        long total = 0;
        for (SendWorkRequest wr = chain; wr != null; wr = wr.next) {
            switch (wr.opcode) {
                case SEND, SEND_WITH_INV, RDMA_WRITE -> total += wr.totalLength();
                default -> {
                }
            }
        }
        return total;
    }

    @Override
    public void postRecv(RecvWorkRequest chain) throws PostException {
        rq.post(chain);
        if (state == QpState.ERROR) {
            engine.schedule(this);
        }
    }

    @Override
    public void disconnect() {
        engine.execute(this::disconnectOnEngine);
    }

    @Override
    public void close() {
        if (state == QpState.CLOSED || device.isClosed() || closeRequested.getAndSet(true)) {
            return;
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        engine.execute(() -> {
            try {
                destroy();
            } finally {
                done.complete(null);
            }
        });
        if (!Engine.onAnyEngine() && !engine.inEngine()) {
            try {
                done.get(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException e) {
                LOG.warn("queue pair {} did not close in time", qpNum, e);
            }
        }
    }

    @Override
    public String toString() {
        return "SoftQp[" + qpNum + ", " + state + "]";
    }

    // ---------------------------------------------------------------- connection life cycle (engine thread)

    /** Claims the queue pair for one connect or accept. */
    boolean claimForConnection() {
        return state == QpState.INIT && !closeRequested.get() && connectStarted.compareAndSet(false, true);
    }

    /** While a handshake runs: how to abandon it when the queue pair is disconnected or closed. */
    void handshakeCancel(Runnable cancel) {
        handshakeCancel = cancel;
    }

    /**
     * The connection is established: start moving data.
     *
     * @param existingKey the socket's key with this engine's selector (already attached to this queue pair), or
     *                    null to register it here
     */
    void establish(SocketChannel ch, SelectionKey existingKey, boolean crc, int ird, int ord, boolean active,
                   ConnectionInfo connection, ConnectionListener eventListener) throws IOException {
        handshakeCancel = null;
        if (state != QpState.INIT) {
            throw new IOException("queue pair " + qpNum + " is " + state);
        }
        channel = ch;
        if (existingKey != null) {
            key = existingKey;
            key.attach(this);
            key.interestOps(SelectionKey.OP_READ);
        } else {
            key = ch.register(engine.selector, SelectionKey.OP_READ, this);
        }
        orq.limit(ord);
        irq.limit(ird);
        this.active = active;
        boolean confirm = device.options().confirmPlacement() && ord > 0;
        tx.start(ch, crc, confirm, !active, active && device.options().readyToReceive());
        rx.start(ch, crc);
        info = connection;
        listener = eventListener;
        state = QpState.RTS;
        deliver(ConnectionEventType.ESTABLISHED, null);
        if (state == QpState.RTS) {
            tx.pump();
        }
    }

    private void disconnectOnEngine() {
        if (handshakeCancel != null) {
            Runnable cancel = handshakeCancel;
            handshakeCancel = null;
            cancel.run();
        }
        if (errorUnreported) {
            errorUnreported = false;
            teardown(TEARDOWN_ABORT);
        }
        enterError(TEARDOWN_GRACEFUL, ConnectionEventType.DISCONNECTED, null);
    }

    /**
     * Ends the queue pair: disconnects, and closes the socket now instead of waiting for the teardown to end: with a
     * reset while our output is not finished (a peer that does not read would hold it up for ever), plainly once our
     * FIN is out.
     */
    private void destroy() {
        if (state == QpState.CLOSED) {
            return;
        }
        disconnectOnEngine();
        closeChannel(!tx.outputFinished());
        logHolds();
        state = QpState.CLOSED;
        sendCq.detach();
        recvCq.detach();
        pd.queuePairClosed();
        device.queuePairClosed(this);
    }

    /** The device goes away: abort the connection and report DEVICE_REMOVAL. */
    void deviceRemoved() {
        if (handshakeCancel != null) {
            Runnable cancel = handshakeCancel;
            handshakeCancel = null;
            cancel.run();
        }
        enterError(TEARDOWN_ABORT, ConnectionEventType.DEVICE_REMOVAL, null);
        closeChannel(true);
        logHolds();
        if (state != QpState.CLOSED) {
            state = QpState.CLOSED;
            sendCq.detach();
            recvCq.detach();
            pd.queuePairClosed();
        }
    }

    private void logHolds() {
        if (LOG.isDebugEnabled()) {
            LOG.debug("queue pair {}: held {} probe answers: {} left with other output ({} by a posting thread), {} "
                    + "when the hold expired", qpNum, hold.holds(), hold.carried(), hold.carriedByPoster(),
                    hold.expired());
        }
    }

    /**
     * Moves the queue pair to ERROR once: stops placing what arrives (it is read and dropped from now on), flushes
     * every outstanding work request, tears the connection down in the given way and reports the event. Later calls
     * can only escalate the teardown.
     */
    void enterError(int teardown, ConnectionEventType event, Throwable cause) {
        QpState s = state;
        if (s == QpState.RTS) {
            state = QpState.ERROR;
            rx.discard();
            flushAll();
            teardown(teardown);
            if (!eventDelivered) {
                eventDelivered = true;
                deliver(event, cause);
            }
        } else if (s == QpState.INIT) {
            state = QpState.ERROR;
            flushAll();
        } else if (teardown == TEARDOWN_ABORT || teardown == TEARDOWN_CLOSE) {
            teardown(teardown);
        }
    }

    /**
     * Fault: ERROR with every work request flushed, and nothing else (no teardown, no event; see SoftIwarpFaults)
     * until the consumer disconnects or closes, which then resets the connection.
     */
    void enterErrorUnreported() {
        if (state == QpState.RTS) {
            state = QpState.ERROR;
            eventDelivered = true;
            errorUnreported = true;
            rx.discard();
            flushAll();
        }
    }

    private void teardown(int mode) {
        if (channel == null) {
            return;
        }
        if (mode == TEARDOWN_ABORT) {
            closeChannel(true);
        } else if (mode == TEARDOWN_CLOSE) {
            closeChannel(false);
        } else {
            if (teardownTimer == null) {
                teardownTimer = engine.timer(TEARDOWN_NANOS, this::onTeardownExpired);
            }
            tx.finish(mode);
        }
    }

    private void onTeardownExpired() {
        teardownTimer = null;
        if (channel != null) {
            LOG.debug("queue pair {}: the peer took no FPDU of our teardown within {} ms; resetting the connection",
                    qpNum, TimeUnit.NANOSECONDS.toMillis(TEARDOWN_NANOS));
            closeChannel(true);
        }
    }

    /** Everything we had to send is out: send FIN, then wait (bounded) for the peer's. */
    void onOutputFinished() {
        if (channel == null) {
            return;
        }
        if (peerClosed) {
            closeChannel(false);
            return;
        }
        try {
            channel.shutdownOutput();
        } catch (IOException e) {
            closeChannel(false);
            return;
        }
        rx.discard();
        if (teardownTimer != null) {
            teardownTimer.cancel();
        }
        teardownTimer = engine.timer(LINGER_NANOS, () -> closeChannel(false));
    }

    void closeChannel(boolean reset) {
        if (channel == null) {
            return;
        }
        if (teardownTimer != null) {
            teardownTimer.cancel();
            teardownTimer = null;
        }
        tx.stop();
        rx.stop();
        hold.reset();
        if (key != null) {
            key.cancel();
            engine.wakeAfterClaim(); // the socket is closed (a reset sent) when the selector drops the key
        }
        try {
            if (reset) {
                channel.setOption(StandardSocketOptions.SO_LINGER, 0);
            }
            channel.close();
        } catch (IOException e) {
            LOG.debug("queue pair {}: closing the socket", qpNum, e);
        }
        channel = null;
        key = null;
    }

    private void deliver(ConnectionEventType type, Throwable cause) {
        ConnectionListener l = listener;
        if (l == null) {
            return;
        }
        try {
            l.onEvent(new ConnectionEvent(type, this, null, cause));
        } catch (RuntimeException e) {
            LOG.warn("connection listener of queue pair {} failed on {}", qpNum, type, e);
        } catch (Error e) {
            LOG.error("connection listener of queue pair {} failed on {}", qpNum, type, e);
        }
    }

    // ---------------------------------------------------------------- engine callbacks

    @Override
    public void onReady(SelectionKey readyKey) throws IOException {
        if (readyKey.isReadable()) {
            rx.onReadable();
        }
        if (channel != null && readyKey.isValid() && readyKey.isWritable()) {
            tx.onWritable();
        }
        retire();
    }

    @Override
    public void onFailure(Throwable cause) {
        if (cause instanceof IOException io) {
            onTransportError(io);
        } else {
            onInternalError(cause);
        }
    }

    void onScheduled() {
        QpState s = state;
        if (s == QpState.RTS) {
            tx.pump();
        } else if (s == QpState.ERROR) {
            flushAll();
            tx.pump(); // a teardown's last FPDUs and FIN, held back by a transmit delay that has ended; else nothing
        }
    }

    void onInternalError(Throwable cause) {
        LOG.error("queue pair {}: internal error", qpNum, cause);
        enterError(TEARDOWN_ABORT, ConnectionEventType.DISCONNECTED, cause);
        closeChannel(true);
    }

    void onTransportError(IOException e) {
        LOG.debug("queue pair {}: connection broken", qpNum, e);
        if (state == QpState.RTS) {
            enterError(TEARDOWN_ABORT, ConnectionEventType.DISCONNECTED, e);
        } else {
            closeChannel(true);
        }
    }

    void onPeerClosed(boolean clean) {
        peerClosed = true;
        if (state == QpState.RTS) {
            enterError(TEARDOWN_CLOSE, ConnectionEventType.DISCONNECTED,
                    clean ? null : new IOException("connection lost in the middle of an FPDU"));
        } else {
            closeChannel(false);
        }
    }

    void onTruncationFault() {
        enterError(TEARDOWN_ABORT, ConnectionEventType.DISCONNECTED,
                new IOException("fault injected: frame truncated"));
        closeChannel(true);
    }

    void interestWrite(boolean on) {
        if (key != null && key.isValid()) {
            key.interestOps(on ? SelectionKey.OP_READ | SelectionKey.OP_WRITE : SelectionKey.OP_READ);
            engine.wakeAfterClaim(); // the selector takes a new interest set only when it selects again
        }
    }

    boolean isErrorState() {
        return state != QpState.RTS;
    }

    void onFirstFpdu() {
        if (wakeTimer != null) {
            wakeTimer.cancel();
            wakeTimer = null;
        }
        tx.ungate();
        engine.schedule(this);
    }

    /**
     * Our first message went out. An initiator with {@code wakeResponder} now waits for the responder's first FPDU,
     * and while none comes sends zero-length Writes after growing delays (see
     * {@link SoftIwarpOptions#wakeResponder()}): Linux siw leaves FPDUs that arrived before it
     * took its socket over unread until more data arrives.
     */
    void firstMessageSent() {
        if (active && device.options().wakeResponder() && !rx.seenFirstFpdu()) {
            wakesLeft = SoftIwarpOptions.WAKE_TIMES;
            wakeDelayNanos = TimeUnit.MILLISECONDS.toNanos(SoftIwarpOptions.WAKE_FIRST_MILLIS);
            wakeTimer = engine.timer(wakeDelayNanos, this::onWakeTimer);
        }
    }

    /** The wake-up timer fired (see {@link #firstMessageSent}). Engine only. */
    void onWakeTimer() {
        wakeTimer = null;
        if (state != QpState.RTS || rx.seenFirstFpdu() || wakesLeft <= 0) {
            return;
        }
        wakesLeft--;
        LOG.debug("queue pair {}: no FPDU from the responder yet; sending a zero-length Write ({} left)", qpNum,
                wakesLeft);
        tx.wakePeer();
        tx.pump();
        if (wakesLeft > 0) {
            wakeDelayNanos *= 2;
            wakeTimer = engine.timer(wakeDelayNanos, this::onWakeTimer);
        }
    }

    void readRequestQueued() {
        engine.schedule(this);
    }

    boolean acceptsRemoteInvalidate() {
        return device.attributes().has(DeviceCapability.REMOTE_INV);
    }

    SegmentHeader scratchHeader() {
        return scratchHeader;
    }

    boolean hasOutstandingUserReads() {
        return userReads > 0;
    }

    void userReadIssued() {
        userReads++;
    }

    /** Whether a Send With Invalidate of {@code stag} would invalidate the source of the peer's last Read Response. */
    boolean invalidatesPeerResponseSource(int stag) {
        return peerAtReadResponse && stag == peerResponseSource;
    }

    /** A Send With Invalidate of {@code stag} is going out. */
    void remoteInvalidateSent(int stag) {
        if (invalidatesPeerResponseSource(stag)) {
            peerResponseSourceInvalidated = true;
        }
    }

    /** Whether a probe could make the peer read from an invalidated STag (see {@link Transmitter#probeDue}). */
    boolean peerResponseSourceInvalidated() {
        return peerResponseSourceInvalidated;
    }

    /** Something other than a Read Response arrived: the peer's transmitter has moved past its last one. */
    void peerMessageArrived() {
        peerAtReadResponse = false;
        if (peerResponseSourceInvalidated) {
            peerResponseSourceInvalidated = false;
            engine.schedule(this); // a probe for work written since may go now
        }
    }

    // ---------------------------------------------------------------- protocol errors

    /**
     * A violation found here: the local work request concerned has been given its status by the caller; send a
     * Terminate with this code, flush everything else, report DISCONNECTED.
     */
    void protocolError(int layer, int etype, int code, int flags, SegmentHeader quoted, String why) {
        if (state != QpState.RTS) {
            return;
        }
        String what = Terminate.describe(layer, etype, code);
        LOG.debug("queue pair {}: {} -> sending TERMINATE {}", qpNum, why, what);
        tx.stageTerminate(layer, etype, code, flags, quoted);
        enterError(TEARDOWN_TERMINATE, ConnectionEventType.DISCONNECTED,
                new VerbsException("TERMINATE sent (" + what + "): " + why));
    }

    /**
     * The source of a Read Response was invalidated, mapped anew or deregistered while the response went out; none of
     * its bytes not yet written go out. {@code framed}: they were dropped at an FPDU boundary, and a Terminate (a
     * remote protection error: invalid STag) follows what went before; otherwise the connection is reset.
     */
    void responseSourceRevoked(boolean framed) {
        String why = "RDMA Read source changed while its response was sent (invalidated, mapped anew or deregistered)";
        if (framed && state == QpState.RTS) {
            protocolError(Terminate.LAYER_RDMAP, Terminate.RDMAP_REMOTE_PROTECTION, Terminate.RDMAP_INVALID_STAG, 0,
                    null, why);
        } else {
            LOG.debug("queue pair {}: {} -> resetting the connection", qpNum, why);
            enterError(TEARDOWN_ABORT, ConnectionEventType.DISCONNECTED, new VerbsException(why));
            closeChannel(true);
        }
    }

    /** The peer sent a Terminate: blame the work request it names, then close. */
    void onTerminateReceived(ByteBuffer frame, int ulpduLength) {
        TerminateBlame blame = TerminateBlame.of(this, frame, ulpduLength);
        LOG.debug("queue pair {}: TERMINATE received: {}", qpNum, blame);
        if (blame.culprit != null && blame.culprit.state != SendWqe.DONE) {
            blame.culprit.done(blame.status, blame.vendorError);
        }
        enterError(TEARDOWN_CLOSE, ConnectionEventType.DISCONNECTED,
                new VerbsException("TERMINATE received: " + blame));
    }

    // ---------------------------------------------------------------- completions

    /** Work requests below {@code mark} that wait for placement confirmation are done. */
    void acknowledge(long mark) {
        for (long i = sq.acked; i < mark; i++) {
            SendWqe w = sq.slot(i);
            if (w.state == SendWqe.AWAITING_ACK) {
                w.done(WcStatus.SUCCESS, 0);
            }
        }
        if (mark > sq.acked) {
            sq.acked = mark;
        }
    }

    void readResponseComplete(ReadEntry e) {
        long ackMark = e.ackMark;
        if (e.kind == ReadEntry.USER_READ) {
            SendWqe w = sq.slot(e.wqeIndex);
            if (--userReads == 0) {
                engine.schedule(this); // a placement probe held back while Reads were outstanding may go now
            }
            w.byteLen = e.size;
            if (w.opcode == Opcode.RDMA_READ_WITH_INV) {
                int result = LocalOps.invalidate(this, w.invalidateStag);
                if (result != 0) {
                    orq.pop();
                    w.done(WcStatus.LOC_ACCESS_ERR, Terminate.vendorError(Terminate.LAYER_RDMAP,
                            Terminate.RDMAP_LOCAL_CATASTROPHIC, Terminate.RDMAP_UNSPECIFIED, false));
                    protocolError(Terminate.LAYER_RDMAP, Terminate.RDMAP_LOCAL_CATASTROPHIC,
                            Terminate.RDMAP_UNSPECIFIED, 0, null, "READ_WITH_INV could not invalidate "
                                    + org.rpcrdma4j.verbs.Stag.toString(w.invalidateStag) + ": "
                                    + LocalOps.describe(result));
                    return;
                }
            }
            w.done(WcStatus.SUCCESS, 0);
            peerAtReadResponse = true;
            peerResponseSource = w.rkey;
        } else {
            tx.probeAnswered();
        }
        orq.pop();
        acknowledge(ackMark);
        engine.schedule(this);
    }

    /** The outstanding Read at the head of the ORQ failed locally. */
    void failOutstandingRead(WcStatus status, int vendorError) {
        ReadEntry e = orq.head();
        if (e != null && e.kind == ReadEntry.USER_READ) {
            sq.slot(e.wqeIndex).done(status, vendorError);
        }
    }

    RecvWqe headReceive() {
        return rq.head < rq.published ? rq.slot(rq.head) : null;
    }

    void failHeadReceive(WcStatus status, int vendorError) {
        completeHeadReceive(status, 0, 0, 0, vendorError);
    }

    /** A whole Send landed in the receive at the head of the receive queue. */
    void sendReceived(RecvWqe recv, int byteLen, int opcode, int invalidateStag, SegmentHeader last) {
        int flags = 0;
        int invalidated = 0;
        if (Rdmap.invalidates(opcode)) {
            SoftRegion region = device.stags.byStag(invalidateStag);
            int result = region == null ? (int) SoftRegion.INVALID_STAG : region.invalidate(invalidateStag, pd);
            if (result != 0) {
                int etype = result == SoftRegion.PD_MISMATCH ? Terminate.RDMAP_REMOTE_PROTECTION
                        : Terminate.RDMAP_REMOTE_OPERATION;
                failHeadReceive(WcStatus.REM_INV_REQ_ERR, Terminate.vendorError(Terminate.LAYER_RDMAP, etype,
                        Terminate.RDMAP_CANNOT_INVALIDATE, false));
                int quoteFlags = Terminate.FLAG_M | Terminate.FLAG_D
                        | (etype == Terminate.RDMAP_REMOTE_PROTECTION ? Terminate.FLAG_R : 0);
                protocolError(Terminate.LAYER_RDMAP, etype, Terminate.RDMAP_CANNOT_INVALIDATE, quoteFlags, last,
                        "Send with Invalidate of " + org.rpcrdma4j.verbs.Stag.toString(invalidateStag) + ": "
                                + LocalOps.describe(result));
                return;
            }
            flags = WorkCompletion.WITH_INVALIDATE;
            invalidated = invalidateStag;
        }
        completeHeadReceive(WcStatus.SUCCESS, byteLen, flags, invalidated, 0);
    }

    /**
     * Decides send-queue completions in posting order. A slot is released (the free counter advanced) only after its
     * completion has been copied out and before the completion becomes visible, so that a consumer who sees a
     * completion can always post again.
     */
    void retire() {
        long published = sq.published;
        SendWqe current = tx.current();
        while (sq.retire < published) {
            SendWqe w = sq.slot(sq.retire);
            if (w.state != SendWqe.DONE) {
                break;
            }
            boolean report = w.signaled() || w.status != WcStatus.SUCCESS;
            if (report) {
                fillSend(w);
            }
            if (w != current) {
                w.clearReferences();
            }
            sq.retire++;
            if (report) {
                sq.free = sq.retire;
                if (!sendCq.add(wc)) {
                    cqOverrun();
                }
            }
        }
    }

    private void flushAll() {
        long published = sq.published;
        for (long i = sq.retire; i < published; i++) {
            SendWqe w = sq.slot(i);
            if (w.state != SendWqe.DONE) {
                w.done(WcStatus.WR_FLUSH_ERR, 0);
            }
        }
        if (sq.exec < published) {
            sq.exec = published;
        }
        retire();
        long recvPublished = rq.published;
        while (rq.head < recvPublished) {
            completeHeadReceive(WcStatus.WR_FLUSH_ERR, 0, 0, 0, 0);
        }
        orq.clear();
        irq.clear();
        hold.reset();
        userReads = 0;
    }

    private void fillSend(SendWqe w) {
        wc.clear();
        wc.wrId = w.wrId;
        wc.status = w.status;
        wc.opcode = switch (w.opcode) {
            case SEND, SEND_WITH_INV -> WcOpcode.SEND;
            case RDMA_WRITE -> WcOpcode.RDMA_WRITE;
            case RDMA_READ, RDMA_READ_WITH_INV -> WcOpcode.RDMA_READ;
            case REG_MR -> WcOpcode.REG_MR;
            case LOCAL_INV -> WcOpcode.LOCAL_INV;
        };
        wc.byteLen = w.byteLen;
        wc.qpNum = qpNum;
        wc.vendorError = w.vendorError;
    }

    /** Completes the receive at the head of the receive queue; its slot is free again before the completion shows. */
    private void completeHeadReceive(WcStatus status, int byteLen, int flags, int invalidated, int vendor) {
        RecvWqe r = rq.slot(rq.head);
        wc.clear();
        wc.wrId = r.wrId;
        wc.status = status;
        wc.opcode = WcOpcode.RECV;
        wc.byteLen = byteLen;
        wc.flags = flags;
        wc.invalidatedStag = invalidated;
        wc.qpNum = qpNum;
        wc.vendorError = vendor;
        r.clearReferences();
        rq.head++;
        rq.free = rq.head;
        if (!recvCq.add(wc)) {
            cqOverrun();
        }
    }

    private void cqOverrun() {
        engine.execute(() -> enterError(TEARDOWN_ABORT, ConnectionEventType.DISCONNECTED,
                new VerbsException("completion queue overrun")));
    }

    // ---------------------------------------------------------------- counters

    /** Gathering writes to the socket so far (each one or more FPDUs, usually one system call). Any thread. */
    public long gatheringWrites() {
        return tx.gatheringWrites();
    }

    // ---------------------------------------------------------------- probe answers held (counters)

    /** Answers to the peer's placement probes held back so far ({@code holdProbeAnswers}). Any thread. */
    public long probeAnswersHeld() {
        return hold.holds();
    }

    /** Held probe answers that left together with other output of this queue pair. Any thread. */
    public long probeAnswersCarried() {
        return hold.carried();
    }

    /** Of {@link #probeAnswersCarried()}: those a posting thread sent with its own chain. Any thread. */
    public long probeAnswersCarriedByPoster() {
        return hold.carriedByPoster();
    }

    /** Held probe answers sent alone because the bound ({@code probeAnswerHoldMs}) expired. Any thread. */
    public long probeAnswerHoldsExpired() {
        return hold.expired();
    }

    // ---------------------------------------------------------------- faults

    /** The fault-injection handle of this queue pair. */
    public FaultInjector faults() {
        return new FaultInjector(this);
    }
}
