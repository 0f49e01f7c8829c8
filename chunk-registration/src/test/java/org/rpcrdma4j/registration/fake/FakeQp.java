package org.rpcrdma4j.registration.fake;

import org.rpcrdma4j.verbs.ConnectionInfo;
import org.rpcrdma4j.verbs.DeviceCapability;
import org.rpcrdma4j.verbs.MrState;
import org.rpcrdma4j.verbs.PostException;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.QpState;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.QueuePairConfig;
import org.rpcrdma4j.verbs.RecvWorkRequest;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.Stag;
import org.rpcrdma4j.verbs.WcOpcode;
import org.rpcrdma4j.verbs.WcStatus;
import org.rpcrdma4j.verbs.WorkCompletion;

/**
 * A queue pair that executes send work requests at post time: REG_MR and LOCAL_INV change the STag table; SEND and
 * SEND_WITH_INV just complete. In ERROR, every work request completes with WR_FLUSH_ERR, signaled or not.
 */
public final class FakeQp implements QueuePair {
    private final FakeDevice device;
    private final FakePd pd;
    private final QueuePairConfig config;
    private volatile QpState state = QpState.RTS;
    private long posted;

    FakeQp(FakeDevice device, FakePd pd, QueuePairConfig config) {
        this.device = device;
        this.pd = pd;
        this.config = config;
    }

    /** Work requests posted so far. */
    public long posted() {
        return posted;
    }

    /** Moves the QP to error: later work requests are flushed. */
    public void breakConnection() {
        state = QpState.ERROR;
    }

    @Override
    public int qpNum() {
        return 1;
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
        return null;
    }

    @Override
    public void postSend(SendWorkRequest chain) throws PostException {
        int i = 0;
        for (SendWorkRequest wr = chain; wr != null; wr = wr.next, i++) {
            if (wr.opcode == org.rpcrdma4j.verbs.Opcode.REG_MR) {
                if (!device.attributes().has(DeviceCapability.FAST_REG) || wr.mr == null || wr.pageList == null) {
                    throw new PostException("malformed REG_MR", i, wr.wrId);
                }
                if (wr.pageList.count() > wr.mr.maxPages()) {
                    throw new PostException("page list deeper than the MR", i, wr.wrId);
                }
            }
            if (wr.opcode == org.rpcrdma4j.verbs.Opcode.LOCAL_INV && !device.attributes().has(DeviceCapability.LOCAL_INV)) {
                throw new PostException("no LOCAL_INV", i, wr.wrId);
            }
        }
        FakeCq cq = (FakeCq) config.sendCq();
        for (SendWorkRequest wr = chain; wr != null; wr = wr.next) {
            posted++;
            WcStatus status = state == QpState.ERROR ? WcStatus.WR_FLUSH_ERR : execute(wr);
            if (status != WcStatus.SUCCESS && status != WcStatus.WR_FLUSH_ERR) {
                state = QpState.ERROR;
            }
            if (status != WcStatus.SUCCESS || wr.signaled()) {
                WorkCompletion wc = new WorkCompletion();
                wc.wrId = wr.wrId;
                wc.status = status;
                wc.opcode = opcode(wr);
                wc.qpNum = 1;
                cq.add(wc);
            }
        }
    }

    private WcStatus execute(SendWorkRequest wr) {
        synchronized (device.lock) {
            switch (wr.opcode) {
                case REG_MR: {
                    if (device.failRegMr > 0) {
                        device.failRegMr--;
                        return WcStatus.LOC_QP_OP_ERR;
                    }
                    FakeFastRegMr mr = (FakeFastRegMr) wr.mr;
                    if (mr.state != MrState.INVALID || Stag.index(wr.key) != mr.index) {
                        return WcStatus.LOC_ACCESS_ERR;
                    }
                    mr.load(wr.pageList);
                    mr.access = wr.access;
                    mr.stag = wr.key;
                    mr.state = MrState.VALID;
                    return WcStatus.SUCCESS;
                }
                case LOCAL_INV: {
                    FakeDevice.FakeRegion region = device.lookup(wr.invalidateStag);
                    if (region == null || region.pd != pd) {
                        return WcStatus.LOC_QP_OP_ERR;
                    }
                    if (region.state == MrState.VALID) {
                        region.state = MrState.INVALID;
                    }
                    return WcStatus.SUCCESS;
                }
                default:
                    return WcStatus.SUCCESS;
            }
        }
    }

    private static WcOpcode opcode(SendWorkRequest wr) {
        switch (wr.opcode) {
            case REG_MR:
                return WcOpcode.REG_MR;
            case LOCAL_INV:
                return WcOpcode.LOCAL_INV;
            case RDMA_WRITE:
                return WcOpcode.RDMA_WRITE;
            case RDMA_READ:
            case RDMA_READ_WITH_INV:
                return WcOpcode.RDMA_READ;
            default:
                return WcOpcode.SEND;
        }
    }

    @Override
    public void postRecv(RecvWorkRequest chain) {
    }

    @Override
    public void disconnect() {
        state = QpState.ERROR;
    }

    @Override
    public void close() {
        synchronized (device.lock) {
            if (state != QpState.CLOSED) {
                state = QpState.CLOSED;
                device.qps--;
            }
        }
    }
}
