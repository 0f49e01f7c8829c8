package org.rpcrdma4j.verbs.disni;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicBoolean;

import com.ibm.disni.verbs.IbvPd;
import org.rpcrdma4j.verbs.ConnectionInfo;
import org.rpcrdma4j.verbs.PostException;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.QpState;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.QueuePairConfig;
import org.rpcrdma4j.verbs.RecvWorkRequest;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.Sge;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.WcOpcode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A reliable-connected queue pair over DiSNI.
 * <p>
 * DiSNI creates a queue pair only on an rdma_cm id ({@code RdmaCmId.createQP}), and the accepting side's id exists only
 * once a request arrived, so the native queue pair is created when the connection is made ({@link #bind}): until then
 * receives are kept in preallocated requests and posted in order when it exists; sends are refused (libibverbs cannot
 * send before the connection either).
 * <p>
 * States: INIT until ESTABLISHED, then RTS; ERROR once the connection failed or ended or a completion failed; CLOSED.
 * In ERROR every request posted completes with WR_FLUSH_ERR, made by the provider ({@link SyntheticCompletions}), since
 * devices were seen to leave requests posted after an error uncompleted.
 * <p>
 * Numbers: {@link #qpNum()} is a device-wide number given at creation (the native number exists only after the
 * connection is made, {@link #nativeQpNum()}); completions carry this number.
 * <p>
 * Threads: one thread posts sends and one posts receives (the SPI's rule); connection changes happen on the
 * connection-manager thread; the receive lock orders the hand-over of receives kept before the connection.
 */
final class DisniQueuePair implements QueuePair, QpConnection.Hooks, DisniCompletionQueue.User {
    private static final Logger LOG = LoggerFactory.getLogger(DisniQueuePair.class);

    private final int qpNum;
    private final ProtectionDomain pd;
    private final IbvPd ibvPd;
    private final QueuePairConfig config;
    private final QpLimits limits;
    private final DisniCompletionQueue sendCq;
    private final DisniCompletionQueue recvCq;
    private final CmExecutor cm;
    private final Runnable onClose;
    private final AtomicBoolean claimed = new AtomicBoolean();
    private final AtomicBoolean closing = new AtomicBoolean();
    private final Object recvLock = new Object();
    private final RecvWorkRequest[] pending;
    private int pendingCount;
    private volatile QpState state = QpState.INIT;
    private volatile boolean bound;
    private volatile int nativeQpNum = -1;
    private volatile ConnectionInfo connectionInfo;
    private SendPoster sendPoster;
    private RecvPoster recvPoster;
    private QpConnection connection;

    /**
     * @param ibvPd   DiSNI's protection domain (null in tests)
     * @param onClose called once when the queue pair is closed (resource accounting)
     */
    DisniQueuePair(int qpNum, ProtectionDomain pd, IbvPd ibvPd, QueuePairConfig config, QpLimits limits,
                   CmExecutor cm, Runnable onClose) {
        this.qpNum = qpNum;
        this.pd = pd;
        this.ibvPd = ibvPd;
        this.config = config;
        this.limits = limits;
        this.sendCq = (DisniCompletionQueue) config.sendCq();
        this.recvCq = (DisniCompletionQueue) config.recvCq();
        this.cm = cm;
        this.onClose = onClose;
        this.pending = new RecvWorkRequest[config.maxRecvWr()];
        for (int i = 0; i < pending.length; i++) {
            pending[i] = new RecvWorkRequest(config.maxRecvSge());
        }
        if (sendCq == recvCq) {
            sendCq.attach(this, true, true);
        } else {
            sendCq.attach(this, true, false);
            recvCq.attach(this, false, true);
        }
    }

    @Override
    public int qpNum() {
        return qpNum;
    }

    @Override
    public int nativeQpNum() {
        return nativeQpNum;
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
        return connectionInfo;
    }

    @Override
    public QueuePair queuePair() {
        return this;
    }

    /** Marks the queue pair as taken by a connect or an accept; false when it already was. */
    boolean claim() {
        return claimed.compareAndSet(false, true);
    }

    /** On the connection-manager thread: the connection that drives this queue pair. */
    void attach(QpConnection c) {
        this.connection = c;
    }

    @Override
    public void postSend(SendWorkRequest chain) throws PostException {
        int n = SendTranslation.validate(chain, limits);
        QpState s = state;
        if (s == QpState.RTS) {
            try {
                sendPoster.post(chain, n);
                return;
            } catch (IOException e) {
                brokenByPost();
                throw new PostException("ibv_post_send failed: " + DisniErrors.describe(e) + "; the queue pair is "
                        + "in error now (DiSNI does not say which request failed, so requests before it may have "
                        + "been queued and will complete with WR_FLUSH_ERR)", 0, chain.wrId);
            }
        }
        if (s == QpState.ERROR) {
            flush(chain, n);
            return;
        }
        if (s == QpState.INIT) {
            throw new PostException("the queue pair is not connected yet (INIT): the DiSNI provider creates the "
                    + "native queue pair when the connection is made, and a send cannot precede it", 0, chain.wrId);
        }
        throw new PostException("the queue pair is closed", 0, chain.wrId);
    }

    private void flush(SendWorkRequest chain, int n) throws PostException {
        if (sendCq.flushRoom() < n) {
            throw new PostException("the send completion queue is full; cannot flush " + n + " requests", 0,
                    chain.wrId);
        }
        int i = 0;
        for (SendWorkRequest wr = chain; i < n; wr = wr.next, i++) {
            sendCq.addFlush(wr.wrId, SendTranslation.completionOpcode(wr.opcode), qpNum);
        }
    }

    @Override
    public void postRecv(RecvWorkRequest chain) throws PostException {
        int n = validateRecv(chain);
        if (bound && state == QpState.RTS) {
            postNative(chain, n);
            return;
        }
        synchronized (recvLock) {
            QpState s = state;
            if (s == QpState.CLOSED) {
                throw new PostException("the queue pair is closed", 0, chain.wrId);
            }
            if (s == QpState.ERROR) {
                if (recvCq.flushRoom() < n) {
                    throw new PostException("the receive completion queue is full; cannot flush " + n
                            + " receives", 0, chain.wrId);
                }
                int i = 0;
                for (RecvWorkRequest wr = chain; i < n; wr = wr.next, i++) {
                    recvCq.addFlush(wr.wrId, WcOpcode.RECV, qpNum);
                }
                return;
            }
            if (bound) {
                postNative(chain, n);
                return;
            }
            if (pendingCount + n > pending.length) {
                throw new PostException("more than maxRecvWr (" + pending.length + ") receives posted before the "
                        + "connection", 0, chain.wrId);
            }
            int i = 0;
            for (RecvWorkRequest wr = chain; i < n; wr = wr.next, i++) {
                RecvWorkRequest copy = pending[pendingCount++].reset();
                copy.wrId = wr.wrId;
                for (int k = 0; k < wr.numSge(); k++) {
                    Sge s0 = wr.sge(k);
                    copy.addSge().set(s0.address, s0.length, s0.lkey);
                }
            }
        }
    }

    private int validateRecv(RecvWorkRequest chain) throws PostException {
        if (chain == null) {
            throw new PostException("empty chain", 0, 0);
        }
        int n = 0;
        for (RecvWorkRequest wr = chain; wr != null; wr = wr.next) {
            if (n == limits.maxRecvWr()) {
                throw new PostException("chain longer than the receive queue (" + limits.maxRecvWr()
                        + " work requests), or a cycle", n, wr.wrId);
            }
            if (wr.numSge() > limits.maxRecvSge()) {
                throw new PostException(wr.numSge() + " SGEs, the queue pair takes at most " + limits.maxRecvSge(),
                        n, wr.wrId);
            }
            for (int k = 0; k < wr.numSge(); k++) {
                if (wr.sge(k).length < 0) {
                    throw new PostException("SGE " + k + " has a negative length", n, wr.wrId);
                }
            }
            n++;
        }
        return n;
    }

    private void postNative(RecvWorkRequest chain, int n) throws PostException {
        int i = 0;
        for (RecvWorkRequest wr = chain; i < n; wr = wr.next, i++) {
            try {
                recvPoster.post(wr);
            } catch (IOException e) {
                brokenByPost();
                throw new PostException("ibv_post_recv failed: " + DisniErrors.describe(e) + "; the queue pair is "
                        + "in error now" + (i > 0 ? " (the " + i + " receives before it were posted)" : ""), i,
                        wr.wrId);
            }
        }
    }

    private void brokenByPost() {
        completionFailed();
        disconnect();
    }

    @Override
    public void bind(NativeCmId id) throws VerbsException {
        synchronized (recvLock) {
            if (state != QpState.INIT) {
                throw new VerbsException("queue pair is " + state + ", not INIT");
            }
            NativeQp nq;
            try {
                nq = id.createQp(new NativeCmId.QpSpec(ibvPd, sendCq.nativeCq().ibvCq(), recvCq.nativeCq().ibvCq(),
                        config.maxSendWr(), config.maxRecvWr(), config.maxSendSge(), config.maxRecvSge(),
                        config.maxInlineData()));
            } catch (IOException e) {
                throw DisniErrors.failure("rdma_create_qp", e);
            }
            if (nq == null) {
                throw new VerbsException("rdma_create_qp failed (DiSNI gives no reason; are the queue sizes within "
                        + "the device's limits? maxSendWr=" + config.maxSendWr() + ", maxRecvWr="
                        + config.maxRecvWr() + ", maxInlineData=" + config.maxInlineData() + ")");
            }
            nativeQpNum = nq.qpNum();
            sendPoster = new SendPoster(nq, limits.maxSendWr());
            recvPoster = new RecvPoster(nq, limits.maxRecvWr(), limits.maxRecvSge());
            for (int i = 0; i < pendingCount; i++) {
                try {
                    recvPoster.post(pending[i]);
                } catch (IOException e) {
                    throw DisniErrors.failure("posting the receives posted before the connection (ibv_post_recv)",
                            e);
                }
            }
            pendingCount = 0;
            bound = true;
        }
    }

    @Override
    public void established(ConnectionInfo info) {
        connectionInfo = info;
        synchronized (recvLock) {
            if (state == QpState.INIT) {
                state = QpState.RTS;
            }
        }
    }

    @Override
    public void broken() {
        synchronized (recvLock) {
            if (state == QpState.CLOSED) {
                return;
            }
            state = QpState.ERROR;
            for (int i = 0; i < pendingCount; i++) {
                if (!recvCq.addFlush(pending[i].wrId, WcOpcode.RECV, qpNum)) {
                    LOG.warn("receive completion queue full: {} receives of queue pair {} vanish unflushed",
                            pendingCount - i, qpNum);
                    break;
                }
            }
            pendingCount = 0;
        }
    }

    @Override
    public void completionFailed() {
        if (state == QpState.RTS) {
            synchronized (recvLock) {
                if (state == QpState.RTS) {
                    state = QpState.ERROR;
                }
            }
        }
    }

    @Override
    public void disconnect() {
        cm.execute(() -> {
            if (connection != null) {
                connection.disconnect();
            } else {
                broken();
            }
        });
    }

    /** The device is being closed: the connection's listener hears DEVICE_REMOVAL. */
    void deviceClosing() {
        cm.execute(() -> {
            if (connection != null) {
                connection.deviceRemoved();
            } else {
                broken();
            }
        });
    }

    @Override
    public void close() {
        if (!closing.compareAndSet(false, true)) {
            return;
        }
        try {
            cm.call(() -> {
                synchronized (recvLock) {
                    state = QpState.CLOSED;
                }
                if (connection != null) {
                    connection.close();
                }
                return null;
            });
        } catch (VerbsException e) {
            LOG.warn("closing queue pair {}: {}", qpNum, e.getMessage());
            state = QpState.CLOSED;
        }
        sendCq.detach(this);
        if (recvCq != sendCq) {
            recvCq.detach(this);
        }
        if (sendPoster != null) {
            sendPoster.free();
        }
        if (recvPoster != null) {
            recvPoster.free();
        }
        onClose.run();
    }

    @Override
    public String toString() {
        return "DisniQueuePair[" + qpNum + (nativeQpNum >= 0 ? " (native " + nativeQpNum + ")" : "") + ", " + state
                + "]";
    }
}
