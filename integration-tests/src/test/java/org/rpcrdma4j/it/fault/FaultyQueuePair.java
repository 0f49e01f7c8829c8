package org.rpcrdma4j.it.fault;

import java.util.function.IntSupplier;

import org.rpcrdma4j.verbs.ConnectionInfo;
import org.rpcrdma4j.verbs.Opcode;
import org.rpcrdma4j.verbs.PostException;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.QpState;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.QueuePairConfig;
import org.rpcrdma4j.verbs.RecvWorkRequest;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.soft.SoftIwarpFaults;

/**
 * A queue pair of a {@link FaultyDevice}: {@code postSend} asks the {@link FaultPlan} and injects what it says;
 * everything else goes straight to the device's queue pair.
 */
final class FaultyQueuePair implements QueuePair {
    private final QueuePair qp;
    private final ProtectionDomain pd;
    private final FaultPlan plan;
    private final IntSupplier validFastRegions;

    FaultyQueuePair(QueuePair qp, ProtectionDomain pd, FaultPlan plan, IntSupplier validFastRegions) {
        this.qp = qp;
        this.pd = pd;
        this.plan = plan;
        this.validFastRegions = validFastRegions;
    }

    QueuePair inner() {
        return qp;
    }

    @Override
    public int qpNum() {
        return qp.qpNum();
    }

    @Override
    public QpState state() {
        return qp.state();
    }

    @Override
    public ProtectionDomain protectionDomain() {
        return pd;
    }

    @Override
    public QueuePairConfig config() {
        return qp.config();
    }

    @Override
    public ConnectionInfo connectionInfo() {
        return qp.connectionInfo();
    }

    @Override
    public void postSend(SendWorkRequest chain) throws PostException {
        switch (plan.decide(chain)) {
            case NONE -> qp.postSend(chain);
            case FAIL_POST -> throw new PostException("post refused by the fault plan", 0, chain.wrId);
            case DROP_BEFORE -> {
                drop();
                awaitBroken();
                qp.postSend(chain);
            }
            case DROP_AFTER -> {
                qp.postSend(chain);
                drop();
            }
            case DROP_BETWEEN_WRITE_AND_SEND -> postWritesThenDrop(chain);
        }
    }

    /** Posts the work requests before the chain's first Send, drops the connection, then posts the rest. */
    private void postWritesThenDrop(SendWorkRequest chain) throws PostException {
        SendWorkRequest last = null;
        for (SendWorkRequest wr = chain; wr != null && !isSend(wr.opcode); wr = wr.next) {
            last = wr;
        }
        if (last == null) {
            drop();
            qp.postSend(chain);
            return;
        }
        SendWorkRequest rest = last.next;
        last.next = null;
        try {
            qp.postSend(chain);
        } finally {
            last.next = rest;
        }
        drop();
        awaitBroken();
        if (rest != null) {
            qp.postSend(rest);
        }
    }

    /**
     * Waits until the drop has taken the queue pair out of RTS, so that what is posted next is flushed and never reaches
     * the wire. Posted from the device's engine thread (a server posting a reply from a completion listener), the drop
     * has taken effect already; elsewhere the device carries it out on that thread shortly after it is asked, which on
     * a loaded machine can take more than half a second. The wait ends after 20 s, and a test then sees the reply that
     * went through.
     */
    private void awaitBroken() {
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (qp.state() == QpState.RTS && System.nanoTime() - deadline < 0) {
            java.util.concurrent.locks.LockSupport.parkNanos(10_000);
        }
    }

    private static boolean isSend(Opcode op) {
        return op == Opcode.SEND || op == Opcode.SEND_WITH_INV;
    }

    /** Drops the connection abruptly where the device can (software iWARP: TCP reset), else disconnects. */
    private void drop() {
        try {
            SoftIwarpFaults.of(qp).dropConnection();
        } catch (IllegalArgumentException notSoft) {
            qp.disconnect();
        }
    }

    @Override
    public void postRecv(RecvWorkRequest chain) throws PostException {
        qp.postRecv(chain);
    }

    @Override
    public void disconnect() {
        qp.disconnect();
    }

    @Override
    public void close() {
        plan.queuePairClosing(validFastRegions.getAsInt());
        qp.close();
    }

    @Override
    public String toString() {
        return "faulty " + qp;
    }
}
