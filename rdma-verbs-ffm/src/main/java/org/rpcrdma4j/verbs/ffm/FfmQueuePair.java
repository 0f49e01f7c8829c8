package org.rpcrdma4j.verbs.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicBoolean;

import org.rpcrdma4j.verbs.ConnectionInfo;
import org.rpcrdma4j.verbs.DeviceCapability;
import org.rpcrdma4j.verbs.Opcode;
import org.rpcrdma4j.verbs.PageList;
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
import org.rpcrdma4j.verbs.ffm.internal.Ibv;
import org.rpcrdma4j.verbs.ffm.internal.IbvAbi;
import org.rpcrdma4j.verbs.ffm.internal.RdmaCm;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A reliable-connected queue pair. librdmacm creates the native queue pair on the connection's identifier
 * ({@code rdma_create_qp}), and the accepting side's identifier exists only once a request came, so the native queue
 * pair is made when the connection is ({@link #bind}); receives posted before are kept and posted then, in order.
 * <p>
 * Posting writes the chain into native {@code ibv_send_wr}/{@code ibv_recv_wr} arrays made once (as long as the
 * queue) and calls the provider's {@code post_send}/{@code post_recv}: no allocation. Requests posted once the queue
 * pair is in error never reach the device; its completion queues complete them as flushed.
 * <p>
 * Numbers: {@link #qpNum()} is given at creation; the device's own number exists once the queue pair is bound.
 */
final class FfmQueuePair implements QueuePair {
    private static final Logger LOG = LoggerFactory.getLogger(FfmQueuePair.class);

    private final FfmProtectionDomain pd;
    private final FfmDevice device;
    /** See {@link FfmDevice#inlinesOnlySendAndWrite()}. */
    private final boolean inlinesOnlySendAndWrite;
    private final QueuePairConfig config;
    private final FfmCompletionQueue sendCq;
    private final FfmCompletionQueue recvCq;
    private final int qpNum;
    private final MemorySegment sendWrs;
    private final MemorySegment sendSges;
    private final MemorySegment sendBad;
    private final MemorySegment recvWrs;
    private final MemorySegment recvSges;
    private final MemorySegment recvBad;
    private final MemorySegment postSend;
    private final MemorySegment postRecv;
    private final Object recvLock = new Object();
    private final RecvWorkRequest[] kept;
    private int keptCount;
    /** Send-queue accounting: the sequence number of each signaled request posted, oldest first. */
    private final long[] signaledAt;
    /** Requests posted (the posting thread's). */
    private long posted;
    /** Signaled requests recorded in {@link #signaledAt}. */
    private volatile long signaledTail;
    /** Signaled completions seen (the polling thread's). */
    private long signaledHead;
    /** Requests retired by a signaled completion: the send queue holds {@code posted - retired}. */
    private volatile long retired;
    /**
     * The wr_id and opcode of the last requests posted, as many as the send queue holds: a failed completion's opcode
     * is found here (rxe and others report none for it).
     */
    private final long[] sentWrIds;
    private final byte[] sentOpcodes;
    private final AtomicBoolean claimed = new AtomicBoolean();
    private final AtomicBoolean errorSeen = new AtomicBoolean();
    private final AtomicBoolean closing = new AtomicBoolean();
    private volatile MemorySegment qp;
    private volatile int nativeQpNum = -1;
    private volatile QpState state = QpState.INIT;
    private volatile ConnectionInfo connectionInfo;
    /** Set and used on the device thread. */
    private FfmConnection connection;

    FfmQueuePair(FfmProtectionDomain pd, QueuePairConfig config) throws VerbsException {
        if (!(config.sendCq() instanceof FfmCompletionQueue s) || !(config.recvCq() instanceof FfmCompletionQueue r)) {
            throw new VerbsException("the completion queues are not of the ffm provider");
        }
        this.pd = pd;
        this.device = pd.ffmDevice();
        this.inlinesOnlySendAndWrite = device.inlinesOnlySendAndWrite();
        if (config.maxSendSge() > device.attributes().maxSge() || config.maxRecvSge() > device.attributes().maxSge()) {
            throw new VerbsException("at most " + device.attributes().maxSge() + " SGEs per work request on "
                    + device.name());
        }
        if (config.maxInlineData() > device.attributes().maxInlineData()) {
            throw new VerbsException(config.maxInlineData() + " bytes inline: " + device.name() + " is opened for "
                    + device.attributes().maxInlineData() + " (option maxInlineData)");
        }
        if (config.maxSendWr() > device.attributes().maxQpWr() || config.maxRecvWr() > device.attributes().maxQpWr()) {
            throw new VerbsException("at most " + device.attributes().maxQpWr() + " work requests per queue on "
                    + device.name());
        }
        this.config = config;
        this.sendCq = s;
        this.recvCq = r;
        this.qpNum = device.nextQpNum();
        Arena arena = Arena.ofAuto(); // freed with this object: no post can race a free
        this.sendWrs = arena.allocate(IbvAbi.SEND_WR_SIZE * config.maxSendWr(), 8);
        this.sendSges = arena.allocate(IbvAbi.SGE_SIZE * config.maxSendWr() * config.maxSendSge(), 8);
        this.sendBad = arena.allocate(ADDRESS);
        this.recvWrs = arena.allocate(IbvAbi.RECV_WR_SIZE * config.maxRecvWr(), 8);
        this.recvSges = arena.allocate(IbvAbi.SGE_SIZE * config.maxRecvWr() * config.maxRecvSge(), 8);
        this.recvBad = arena.allocate(ADDRESS);
        this.postSend = Ibv.op(device.context(), IbvAbi.CONTEXT_OPS_POST_SEND);
        this.postRecv = Ibv.op(device.context(), IbvAbi.CONTEXT_OPS_POST_RECV);
        this.signaledAt = new long[config.maxSendWr()];
        this.sentWrIds = new long[config.maxSendWr()];
        this.sentOpcodes = new byte[config.maxSendWr()];
        java.util.Arrays.fill(sentOpcodes, (byte) -1);
        this.kept = new RecvWorkRequest[config.maxRecvWr()];
        for (int i = 0; i < kept.length; i++) {
            kept[i] = new RecvWorkRequest(config.maxRecvSge());
        }
        sendCq.attach(this, true);
        if (recvCq != sendCq) {
            recvCq.attach(this, false);
        }
        pd.users.incrementAndGet();
        device.qps.incrementAndGet();
        device.open.add(this);
    }

    @Override
    public int qpNum() {
        return qpNum;
    }

    /** The device's number of the queue pair, or -1 before it is bound. */
    int nativeQpNum() {
        return nativeQpNum;
    }

    FfmDevice ffmDevice() {
        return device;
    }

    FfmProtectionDomain ffmPd() {
        return pd;
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

    /** Marks the queue pair as taken by a connect or an accept; false when it already was. */
    boolean claim() {
        return claimed.compareAndSet(false, true);
    }

    /** On the device thread. */
    void attach(FfmConnection c) {
        connection = c;
    }

    /**
     * On the device thread: creates the native queue pair on the identifier {@code id} and posts the receives kept
     * for it.
     */
    void bind(MemorySegment id) throws VerbsException {
        if (state == QpState.CLOSED) {
            throw new VerbsException("the queue pair is closed");
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = arena.allocate(IbvAbi.QP_INIT_ATTR_SIZE, 8);
            a.set(ADDRESS, IbvAbi.QP_INIT_ATTR_SEND_CQ, sendCq.cq());
            a.set(ADDRESS, IbvAbi.QP_INIT_ATTR_RECV_CQ, recvCq.cq());
            long cap = IbvAbi.QP_INIT_ATTR_CAP;
            a.set(JAVA_INT, cap + IbvAbi.QP_CAP_MAX_SEND_WR, config.maxSendWr());
            a.set(JAVA_INT, cap + IbvAbi.QP_CAP_MAX_RECV_WR, config.maxRecvWr());
            a.set(JAVA_INT, cap + IbvAbi.QP_CAP_MAX_SEND_SGE, config.maxSendSge());
            a.set(JAVA_INT, cap + IbvAbi.QP_CAP_MAX_RECV_SGE, config.maxRecvSge());
            a.set(JAVA_INT, cap + IbvAbi.QP_CAP_MAX_INLINE_DATA, config.maxInlineData());
            a.set(JAVA_INT, IbvAbi.QP_INIT_ATTR_QP_TYPE, IbvAbi.QPT_RC);
            device.runtime().cm().createQp(id, pd.pd(), a, device.loop().errno());
        }
        MemorySegment created = RdmaCm.qp(id).reinterpret(IbvAbi.QP_QP_NUM + 4);
        nativeQpNum = created.get(JAVA_INT, IbvAbi.QP_QP_NUM);
        synchronized (recvLock) {
            qp = created;
            if (keptCount > 0) {
                for (int i = 0; i < keptCount; i++) {
                    kept[i].next = i + 1 < keptCount ? kept[i + 1] : null;
                }
                try {
                    postRecvNative(kept[0], keptCount);
                } catch (PostException e) {
                    throw new VerbsException("posting the receives kept for the connection failed: "
                            + e.getMessage(), e);
                } finally {
                    keptCount = 0;
                }
            }
        }
    }

    /** On the device thread: the native queue pair is about to be destroyed before it was used; the pair is broken. */
    void unbind() {
        state = QpState.ERROR;
        synchronized (recvLock) {
            qp = null;
        }
    }

    /**
     * On the device thread: {@code rdma_accept} returned, so the native queue pair is ready to send (librdmacm moved it
     * to RTS; over iWARP the MPA reply has gone out). The peer may send as soon as it has its own ESTABLISHED, which
     * can be before this side's event arrives: a call received then must be answerable, so sends are taken from now.
     */
    void accepted() {
        if (state == QpState.INIT) {
            state = QpState.RTS;
        }
    }

    /** On the device thread: the connection is usable. */
    void established(ConnectionInfo info) {
        connectionInfo = info;
        if (state == QpState.INIT) {
            state = QpState.RTS;
        }
    }

    /** The connection failed or ended: receives kept for a queue pair that never got its native one are flushed. */
    void broken() {
        if (state != QpState.CLOSED) {
            state = QpState.ERROR;
        }
        flushKept();
    }

    private void flushKept() {
        synchronized (recvLock) {
            for (int i = 0; i < keptCount; i++) {
                recvCq.flushed(kept[i].wrId, WcOpcode.RECV, qpNum);
            }
            keptCount = 0;
        }
    }

    /**
     * On the polling thread, for a failed completion: the opcode of the send-queue request {@code wrId} among the last
     * ones posted, or null when it is none of them (a receive).
     */
    WcOpcode sentOpcode(long wrId) {
        for (int i = 0; i < sentWrIds.length; i++) {
            if (sentWrIds[i] == wrId && sentOpcodes[i] >= 0) {
                return WC_OPCODES[sentOpcodes[i]];
            }
        }
        return null;
    }

    private static final WcOpcode[] WC_OPCODES = WcOpcode.values();

    /**
     * On the polling thread: a signaled send-queue request completed, so it and every unsignaled one posted before it
     * left the send queue (devices may make the queue larger than asked; the SPI's size is the one kept).
     */
    void sendCompleted() {
        if (signaledHead < signaledTail) {
            retired = signaledAt[(int) (signaledHead++ % signaledAt.length)];
        }
    }

    /**
     * On the polling thread: a completion of this queue pair failed, so the device moved it to error. The connection
     * is ended as well (once), so that both sides hear DISCONNECTED: over InfiniBand and RoCE nothing else tells the
     * peer, whose requests would otherwise wait for their retries to run out.
     */
    void failedCompletion() {
        broken();
        if (errorSeen.compareAndSet(false, true)) {
            device.loop().execute(this::disconnectAfterError);
        }
    }

    private void disconnectAfterError() {
        if (connection != null) {
            connection.disconnect();
        }
    }

    @Override
    public void postSend(SendWorkRequest chain) throws PostException {
        int n = validate(chain);
        QpState s = state;
        if (s == QpState.RTS) {
            postSendNative(chain, n);
        } else if (s == QpState.ERROR) {
            for (SendWorkRequest wr = chain; wr != null; wr = wr.next) {
                sendCq.flushed(wr.wrId, sendOpcode(wr), qpNum);
            }
        } else {
            throw new PostException(s == QpState.INIT ? "the queue pair is not connected yet"
                    : "the queue pair is closed", 0, chain.wrId);
        }
    }

    private int validate(SendWorkRequest chain) throws PostException {
        int n = 0;
        for (SendWorkRequest wr = chain; wr != null; wr = wr.next, n++) {
            if (n == config.maxSendWr()) {
                throw new PostException("the chain is longer than the send queue (" + config.maxSendWr() + ")", n,
                        wr.wrId);
            }
            if (wr.numSge() > config.maxSendSge()) {
                throw new PostException(wr.numSge() + " SGEs; the queue pair takes " + config.maxSendSge(), n,
                        wr.wrId);
            }
            if ((wr.flags & SendWorkRequest.INLINE) != 0 && wr.totalLength() > config.maxInlineData()) {
                throw new PostException(wr.totalLength() + " bytes inline; the queue pair takes "
                        + config.maxInlineData(), n, wr.wrId);
            }
            switch (wr.opcode) {
                case SEND:
                case RDMA_WRITE:
                case RDMA_READ:
                    break;
                case SEND_WITH_INV:
                    if (!device.attributes().has(DeviceCapability.SEND_WITH_INV)) {
                        throw new PostException(device.name() + " cannot Send with Invalidate", n, wr.wrId);
                    }
                    break;
                case REG_MR:
                    if (!device.attributes().has(DeviceCapability.FAST_REG)) {
                        throw new PostException(device.name() + " has no memory windows to bind (no FAST_REG)", n,
                                wr.wrId);
                    }
                    String refusal = FfmMemoryWindow.refusal(wr, pd);
                    if (refusal != null) {
                        throw new PostException(refusal, n, wr.wrId);
                    }
                    break;
                case LOCAL_INV:
                    if (!device.attributes().has(DeviceCapability.LOCAL_INV)) {
                        throw new PostException(device.name() + " has no local invalidation (no LOCAL_INV)", n,
                                wr.wrId);
                    }
                    break;
                default:
                    throw new PostException(wr.opcode + " is not available with the ffm provider on "
                            + device.name(), n, wr.wrId);
            }
        }
        return n;
    }

    private static WcOpcode sendOpcode(SendWorkRequest wr) {
        switch (wr.opcode) {
            case RDMA_WRITE:
                return WcOpcode.RDMA_WRITE;
            case RDMA_READ:
                return WcOpcode.RDMA_READ;
            case REG_MR:
                return WcOpcode.REG_MR;
            case LOCAL_INV:
                return WcOpcode.LOCAL_INV;
            default:
                return WcOpcode.SEND;
        }
    }

    private void postSendNative(SendWorkRequest chain, int n) throws PostException {
        if (posted + n - retired > config.maxSendWr()) {
            throw new PostException("the send queue is full: " + (posted - retired) + " of " + config.maxSendWr()
                    + " requests are not retired by a signaled completion yet", 0, chain.wrId);
        }
        long base = sendWrs.address();
        int maxSge = config.maxSendSge();
        int i = 0;
        for (SendWorkRequest wr = chain; wr != null; wr = wr.next, i++) {
            long at = i * IbvAbi.SEND_WR_SIZE;
            long sgeAt = (long) i * maxSge * IbvAbi.SGE_SIZE;
            int sges = 0;
            for (int j = 0; j < wr.numSge(); j++) {
                sges = writeSge(sendSges, sgeAt, sges, wr.sge(j));
            }
            int slot = (int) ((posted + i) % sentWrIds.length);
            sentWrIds[slot] = wr.wrId;
            sentOpcodes[slot] = (byte) sendOpcode(wr).ordinal();
            sendWrs.set(JAVA_LONG, at + IbvAbi.SEND_WR_WR_ID, wr.wrId);
            sendWrs.set(JAVA_LONG, at + IbvAbi.SEND_WR_NEXT, i + 1 < n ? base + at + IbvAbi.SEND_WR_SIZE : 0L);
            sendWrs.set(JAVA_LONG, at + IbvAbi.SEND_WR_SG_LIST, sendSges.address() + sgeAt);
            sendWrs.set(JAVA_INT, at + IbvAbi.SEND_WR_NUM_SGE, sges);
            sendWrs.set(JAVA_INT, at + IbvAbi.SEND_WR_OPCODE, nativeOpcode(wr));
            int flags = wr.opcode == Opcode.SEND_WITH_INV && inlinesOnlySendAndWrite
                    ? wr.flags & ~SendWorkRequest.INLINE : wr.flags;
            sendWrs.set(JAVA_INT, at + IbvAbi.SEND_WR_SEND_FLAGS, nativeFlags(flags));
            // SEND_WITH_INV: hardware and rxe read invalidate_rkey, siw reads wr.rdma.rkey: set both
            boolean invalidate = wr.opcode == Opcode.SEND_WITH_INV || wr.opcode == Opcode.LOCAL_INV;
            sendWrs.set(JAVA_INT, at + IbvAbi.SEND_WR_INVALIDATE_RKEY, invalidate ? wr.invalidateStag : 0);
            sendWrs.set(JAVA_LONG, at + IbvAbi.SEND_WR_RDMA_REMOTE_ADDR, wr.remoteAddress);
            sendWrs.set(JAVA_INT, at + IbvAbi.SEND_WR_RDMA_RKEY, invalidate ? wr.invalidateStag : wr.rkey);
            if (wr.opcode == Opcode.REG_MR) {
                writeBind(at, wr);
            }
        }
        try {
            Ibv.postSend(postSend, qp, sendWrs, sendBad);
        } catch (VerbsException e) {
            int index = refusedIndex(sendBad, base, IbvAbi.SEND_WR_SIZE);
            SendWorkRequest wr = chain;
            for (int k = 0; k < index && wr.next != null; k++) {
                wr = wr.next;
            }
            throw refused(e, index, wr.wrId);
        }
        for (SendWorkRequest wr = chain; wr != null; wr = wr.next) {
            if (wr.opcode == Opcode.REG_MR) {
                PageList list = wr.pageList;
                ((FfmMemoryWindow) wr.mr).bound(wr.key, list.iova(), list.length(), wr.access,
                        list.backing().lkey());
            } else if (wr.opcode == Opcode.LOCAL_INV) {
                device.windows.invalidated(wr.invalidateStag);
            }
            posted++;
            if ((wr.flags & SendWorkRequest.SIGNALED) != 0) {
                long tail = signaledTail;
                signaledAt[(int) (tail % signaledAt.length)] = posted;
                signaledTail = tail + 1;
            }
        }
    }

    /**
     * REG_MR as {@code IBV_WR_BIND_MW}: the window, its new key, and what it binds: the page list's bytes of the
     * registered memory under its table ({@link FfmMemoryWindow#refusal} checked that), at their address.
     */
    private void writeBind(long at, SendWorkRequest wr) {
        PageList list = wr.pageList;
        FfmRegisteredMemory backing = (FfmRegisteredMemory) list.backing(); // of this domain: refusal() checked
        sendWrs.set(JAVA_LONG, at + IbvAbi.SEND_WR_BIND_MW_MW, ((FfmMemoryWindow) wr.mr).mw().address());
        sendWrs.set(JAVA_INT, at + IbvAbi.SEND_WR_BIND_MW_RKEY, wr.key);
        long info = at + IbvAbi.SEND_WR_BIND_MW_BIND_INFO;
        sendWrs.set(JAVA_LONG, info + IbvAbi.MW_BIND_INFO_MR, backing.mr().address());
        sendWrs.set(JAVA_LONG, info + IbvAbi.MW_BIND_INFO_ADDR, list.iova());
        sendWrs.set(JAVA_LONG, info + IbvAbi.MW_BIND_INFO_LENGTH, list.length());
        sendWrs.set(JAVA_INT, info + IbvAbi.MW_BIND_INFO_ACCESS, FfmMemoryWindow.windowAccess(wr.access));
    }

    private static int nativeOpcode(SendWorkRequest wr) {
        switch (wr.opcode) {
            case REG_MR:
                return IbvAbi.WR_BIND_MW;
            case LOCAL_INV:
                return IbvAbi.WR_LOCAL_INV;
            case SEND_WITH_INV:
                return IbvAbi.WR_SEND_WITH_INV;
            case RDMA_WRITE:
                return IbvAbi.WR_RDMA_WRITE;
            case RDMA_READ:
                return IbvAbi.WR_RDMA_READ;
            default:
                return IbvAbi.WR_SEND;
        }
    }

    private static int nativeFlags(int flags) {
        int f = 0;
        if ((flags & SendWorkRequest.SIGNALED) != 0) {
            f |= IbvAbi.SEND_SIGNALED;
        }
        if ((flags & SendWorkRequest.INLINE) != 0) {
            f |= IbvAbi.SEND_INLINE;
        }
        if ((flags & SendWorkRequest.FENCE) != 0) {
            f |= IbvAbi.SEND_FENCE;
        }
        if ((flags & SendWorkRequest.SOLICITED) != 0) {
            f |= IbvAbi.SEND_SOLICITED;
        }
        return f;
    }

    /**
     * Writes {@code sge} as the native SGE after the {@code written} ones at {@code at}, and returns how many are
     * written now. A zero-length SGE carries nothing and is left out: siw (Linux 6.1) dereferences a null pointer
     * sending one.
     */
    private static int writeSge(MemorySegment sges, long at, int written, Sge sge) {
        if (sge.length == 0) {
            return written;
        }
        long s = at + written * IbvAbi.SGE_SIZE;
        sges.set(JAVA_LONG, s + IbvAbi.SGE_ADDR, sge.address);
        sges.set(JAVA_INT, s + IbvAbi.SGE_LENGTH, sge.length);
        sges.set(JAVA_INT, s + IbvAbi.SGE_LKEY, sge.lkey);
        return written + 1;
    }

    /** Which request of the native chain at {@code base} the provider named in {@code bad}. */
    private static int refusedIndex(MemorySegment bad, long base, long size) {
        long at = bad.get(JAVA_LONG, 0);
        return at >= base ? (int) ((at - base) / size) : 0;
    }

    /** The device refused request {@code index} of a chain; those before it were posted. */
    private static PostException refused(VerbsException e, int index, long wrId) {
        return new PostException("the device refused it" + (index > 0 ? " (the " + index + " before it were posted)"
                : "") + ": " + e.getMessage(), index, wrId);
    }

    @Override
    public void postRecv(RecvWorkRequest chain) throws PostException {
        int n = 0;
        for (RecvWorkRequest wr = chain; wr != null; wr = wr.next, n++) {
            if (n == config.maxRecvWr()) {
                throw new PostException("the chain is longer than the receive queue (" + config.maxRecvWr() + ")",
                        n, wr.wrId);
            }
            if (wr.numSge() > config.maxRecvSge()) {
                throw new PostException(wr.numSge() + " SGEs; the queue pair takes " + config.maxRecvSge(), n,
                        wr.wrId);
            }
        }
        synchronized (recvLock) {
            QpState s = state;
            if (s == QpState.CLOSED) {
                throw new PostException("the queue pair is closed", 0, chain.wrId);
            }
            if (s == QpState.ERROR) {
                for (RecvWorkRequest wr = chain; wr != null; wr = wr.next) {
                    recvCq.flushed(wr.wrId, WcOpcode.RECV, qpNum);
                }
            } else if (qp == null) {
                keep(chain, n);
            } else {
                postRecvNative(chain, n);
            }
        }
    }

    private void keep(RecvWorkRequest chain, int n) throws PostException {
        if (keptCount + n > kept.length) {
            throw new PostException("the receive queue holds " + kept.length + " requests", 0, chain.wrId);
        }
        for (RecvWorkRequest wr = chain; wr != null; wr = wr.next) {
            RecvWorkRequest copy = kept[keptCount++].reset();
            copy.wrId = wr.wrId;
            for (int j = 0; j < wr.numSge(); j++) {
                Sge s = wr.sge(j);
                copy.addSge().set(s.address, s.length, s.lkey);
            }
        }
    }

    private void postRecvNative(RecvWorkRequest chain, int n) throws PostException {
        long base = recvWrs.address();
        int maxSge = config.maxRecvSge();
        int i = 0;
        for (RecvWorkRequest wr = chain; wr != null && i < n; wr = wr.next, i++) {
            long at = i * IbvAbi.RECV_WR_SIZE;
            long sgeAt = (long) i * maxSge * IbvAbi.SGE_SIZE;
            int sges = 0;
            for (int j = 0; j < wr.numSge(); j++) {
                sges = writeSge(recvSges, sgeAt, sges, wr.sge(j));
            }
            recvWrs.set(JAVA_LONG, at + IbvAbi.RECV_WR_WR_ID, wr.wrId);
            recvWrs.set(JAVA_LONG, at + IbvAbi.RECV_WR_NEXT, i + 1 < n ? base + at + IbvAbi.RECV_WR_SIZE : 0L);
            recvWrs.set(JAVA_LONG, at + IbvAbi.RECV_WR_SG_LIST, recvSges.address() + sgeAt);
            recvWrs.set(JAVA_INT, at + IbvAbi.RECV_WR_NUM_SGE, sges);
        }
        try {
            Ibv.postRecv(postRecv, qp, recvWrs, recvBad);
        } catch (VerbsException e) {
            int index = refusedIndex(recvBad, base, IbvAbi.RECV_WR_SIZE);
            RecvWorkRequest wr = chain;
            for (int k = 0; k < index && wr.next != null; k++) {
                wr = wr.next;
            }
            throw refused(e, index, wr.wrId);
        }
    }

    @Override
    public void disconnect() {
        device.loop().execute(() -> {
            if (connection != null) {
                connection.disconnect();
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
            device.loop().call(() -> {
                state = QpState.CLOSED;
                if (connection != null) {
                    connection.close(); // disconnects, destroys the native queue pair and the identifier
                }
                return null;
            });
        } catch (VerbsException e) {
            LOG.warn("closing queue pair {} on {} failed: {}", qpNum, device.name(), e.getMessage());
        }
        flushKept();
        state = QpState.CLOSED;
        synchronized (recvLock) {
            qp = null;
        }
        sendCq.detach(this);
        recvCq.detach(this);
        device.open.remove(this);
        device.qps.decrementAndGet();
        pd.users.decrementAndGet();
    }

    @Override
    public String toString() {
        return "FfmQueuePair[" + qpNum + (nativeQpNum < 0 ? "" : " (device " + nativeQpNum + ")") + ", " + state + "]";
    }
}
