package org.rpcrdma4j.verbs.ffm;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;

import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.WcOpcode;
import org.rpcrdma4j.verbs.WcStatus;
import org.rpcrdma4j.verbs.WorkCompletion;
import org.rpcrdma4j.verbs.ffm.internal.Errno;
import org.rpcrdma4j.verbs.ffm.internal.Ibv;
import org.rpcrdma4j.verbs.ffm.internal.IbvAbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A completion queue ({@code ibv_create_cq}) whose events go to the device's completion channel. {@link #poll} calls
 * the provider's {@code poll_cq} into a native array made once and fills the caller's {@link WorkCompletion}s from it:
 * no allocation. Work requests posted to a queue pair in error never reach the device (some devices leave them
 * uncompleted); this queue completes them itself with {@link WcStatus#WR_FLUSH_ERR}, after the device's own.
 * <p>
 * A failed completion's opcode is not defined by libibverbs: it is the posted request's ({@link #failedOpcode}).
 */
final class FfmCompletionQueue implements CompletionQueue {
    private static final Logger LOG = LoggerFactory.getLogger(FfmCompletionQueue.class);
    /** Completions taken from the device per {@code poll_cq}. */
    static final int BATCH = 32;
    private static final WcStatus[] STATUS = new WcStatus[IbvAbi.WC_STATUS_NAMES.length];

    static {
        for (int i = 0; i < STATUS.length; i++) {
            try {
                STATUS[i] = WcStatus.valueOf(IbvAbi.WC_STATUS_NAMES[i]);
            } catch (IllegalArgumentException e) {
                STATUS[i] = WcStatus.GENERAL_ERR; // EEC and RDD errors, which reliable connections do not have
            }
        }
        STATUS[20] = WcStatus.RETRY_EXC_ERR; // IBV_WC_RESP_TIMEOUT_ERR: the peer did not answer in time
    }

    private final FfmDevice device;
    private final int capacity;
    private final int index;
    private final MemorySegment cq;
    private final MemorySegment wcs;
    private final MemorySegment pollCq;
    private final MemorySegment reqNotifyCq;
    private final ConcurrentLinkedQueue<WorkCompletion> flushed = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean armed = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Object usersLock = new Object();
    private volatile FfmQueuePair[] users = new FfmQueuePair[0];
    private volatile boolean sends;
    private volatile CompletionListener listener;

    FfmCompletionQueue(FfmDevice device, int entries) throws VerbsException {
        this.device = device;
        this.index = device.loop().addCq(this);
        try (Arena arena = Arena.ofConfined()) {
            this.cq = device.runtime().ibv().createCq(device.context(), entries, index, device.compChannel(),
                    Errno.allocate(arena)).reinterpret(IbvAbi.CQ_SIZE);
        } catch (VerbsException | RuntimeException e) {
            device.loop().removeCq(index);
            throw e;
        }
        this.capacity = cq.get(JAVA_INT, IbvAbi.CQ_CQE); // what the device made: at least what was asked
        this.wcs = Arena.ofAuto().allocate(IbvAbi.WC_SIZE * BATCH, 8);
        this.pollCq = Ibv.op(device.context(), IbvAbi.CONTEXT_OPS_POLL_CQ);
        this.reqNotifyCq = Ibv.op(device.context(), IbvAbi.CONTEXT_OPS_REQ_NOTIFY_CQ);
        device.cqs.incrementAndGet();
        device.open.add(this);
    }

    MemorySegment cq() {
        return cq;
    }

    /** A queue pair completes here (its native number is known once it is connected). */
    void attach(FfmQueuePair qp, boolean asSendQueue) {
        synchronized (usersLock) {
            FfmQueuePair[] next = Arrays.copyOf(users, users.length + 1);
            next[users.length] = qp;
            users = next;
            sends |= asSendQueue;
        }
    }

    void detach(FfmQueuePair qp) {
        synchronized (usersLock) {
            users = Arrays.stream(users).filter(u -> u != qp).toArray(FfmQueuePair[]::new);
        }
    }

    /** A work request the device never saw, completed as flushed. */
    void flushed(long wrId, WcOpcode opcode, int qpNum) {
        WorkCompletion wc = new WorkCompletion();
        wc.wrId = wrId;
        wc.status = WcStatus.WR_FLUSH_ERR;
        wc.opcode = opcode;
        wc.qpNum = qpNum;
        flushed.add(wc);
        if (armed.compareAndSet(true, false)) {
            device.loop().execute(this::callListener);
        }
    }

    @Override
    public int capacity() {
        return capacity;
    }

    @Override
    public int poll(WorkCompletion[] batch) {
        if (closed.get()) {
            return 0;
        }
        int n = 0;
        int got;
        try {
            got = Ibv.pollCq(pollCq, cq, Math.min(batch.length, BATCH), wcs);
        } catch (VerbsException e) {
            LOG.error("polling a completion queue of {} failed: {}", device.name(), e.getMessage());
            got = 0;
        }
        for (int i = 0; i < got; i++) {
            translate(i * IbvAbi.WC_SIZE, batch[n++]);
        }
        WorkCompletion f;
        while (n < batch.length && (f = flushed.poll()) != null) {
            batch[n++].copyFrom(f);
        }
        return n;
    }

    private void translate(long at, WorkCompletion wc) {
        int status = wcs.get(JAVA_INT, at + IbvAbi.WC_STATUS);
        int nativeQp = wcs.get(JAVA_INT, at + IbvAbi.WC_QP_NUM);
        FfmQueuePair qp = user(nativeQp);
        wc.wrId = wcs.get(JAVA_LONG, at + IbvAbi.WC_WR_ID);
        wc.status = status >= 0 && status < STATUS.length ? STATUS[status] : WcStatus.GENERAL_ERR;
        wc.opcode = status == IbvAbi.WC_SUCCESS ? opcode(wcs.get(JAVA_INT, at + IbvAbi.WC_OPCODE))
                : failedOpcode(qp, wc.wrId);
        wc.byteLen = wcs.get(JAVA_INT, at + IbvAbi.WC_BYTE_LEN);
        int flags = wcs.get(JAVA_INT, at + IbvAbi.WC_WC_FLAGS);
        boolean invalidated = (flags & IbvAbi.WC_WITH_INV) != 0
                || device.kernelWcFlags() && (flags & IbvAbi.KERNEL_WC_WITH_INVALIDATE) != 0;
        wc.flags = invalidated ? WorkCompletion.WITH_INVALIDATE : 0;
        wc.invalidatedStag = invalidated ? wcs.get(JAVA_INT, at + IbvAbi.WC_INVALIDATED_RKEY) : 0;
        if (invalidated && status == IbvAbi.WC_SUCCESS) {
            device.windows.invalidated(wc.invalidatedStag); // a peer's Send with Invalidate unbound one of ours
        }
        wc.qpNum = qp == null ? nativeQp : qp.qpNum();
        wc.vendorError = wcs.get(JAVA_INT, at + IbvAbi.WC_VENDOR_ERR);
        if (qp != null && status == IbvAbi.WC_SUCCESS && wc.opcode != WcOpcode.RECV) {
            qp.sendCompleted();
        }
        if (status != IbvAbi.WC_SUCCESS && status != IbvAbi.WC_WR_FLUSH_ERR && qp != null) {
            qp.failedCompletion(); // the device moved the queue pair to error
        }
    }

    private FfmQueuePair user(int nativeQpNum) {
        for (FfmQueuePair qp : users) {
            if (qp.nativeQpNum() == nativeQpNum) {
                return qp;
            }
        }
        return null;
    }

    /**
     * A failed completion's opcode, which libibverbs leaves undefined (rxe reports none): the posted request's when
     * the queue pair posted one with that wr_id lately, else RECV.
     */
    private WcOpcode failedOpcode(FfmQueuePair qp, long wrId) {
        WcOpcode sent = qp == null ? null : qp.sentOpcode(wrId);
        return sent != null ? sent : qp == null && sends ? WcOpcode.SEND : WcOpcode.RECV;
    }

    private static WcOpcode opcode(int op) {
        switch (op) {
            case IbvAbi.WC_OP_SEND:
                return WcOpcode.SEND;
            case IbvAbi.WC_OP_RDMA_WRITE:
                return WcOpcode.RDMA_WRITE;
            case IbvAbi.WC_OP_RDMA_READ:
                return WcOpcode.RDMA_READ;
            case IbvAbi.WC_OP_LOCAL_INV:
                return WcOpcode.LOCAL_INV;
            case IbvAbi.WC_OP_BIND_MW:
                return WcOpcode.REG_MR;
            case IbvAbi.WC_OP_RECV:
                return WcOpcode.RECV;
            default:
                return op >= IbvAbi.WC_OP_RECV ? WcOpcode.RECV : WcOpcode.SEND;
        }
    }

    @Override
    public void requestNotify() {
        if (closed.get()) {
            return;
        }
        armed.set(true);
        try {
            Ibv.reqNotifyCq(reqNotifyCq, cq);
        } catch (VerbsException e) {
            LOG.error("arming a completion queue of {} failed: {}", device.name(), e.getMessage());
        }
        if (!flushed.isEmpty() && armed.compareAndSet(true, false)) {
            device.loop().execute(this::callListener);
        }
    }

    /** On the device thread: the completion channel named this queue. */
    void notified() {
        armed.set(false);
        callListener();
    }

    private void callListener() {
        CompletionListener l = listener;
        if (l != null && !closed.get()) {
            try {
                l.onCompletion(this);
            } catch (RuntimeException e) {
                LOG.error("a completion listener threw", e);
            }
        }
    }

    @Override
    public void setListener(CompletionListener listener) {
        this.listener = listener;
    }

    @Override
    public void close() throws VerbsException {
        if (closed.get()) {
            return;
        }
        if (users.length > 0) {
            throw new VerbsException("the completion queue still has " + users.length + " queue pairs");
        }
        if (closed.compareAndSet(false, true)) {
            device.open.remove(this);
            device.cqs.decrementAndGet();
            // on the device thread: no completion event for this queue is being handled while it goes
            device.loop().call(() -> {
                device.loop().removeCq(index);
                return null;
            });
            // after the queue pairs that used it, whose destruction may still wait on a peer
            device.peerBound().execute("ibv_destroy_cq", errno -> device.runtime().ibv().destroyCq(cq));
        }
    }
}
