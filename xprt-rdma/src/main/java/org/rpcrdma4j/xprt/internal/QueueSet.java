package org.rpcrdma4j.xprt.internal;

import org.rpcrdma4j.registration.RegistrationPool;
import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.QueuePairConfig;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.WorkCompletion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The queues of one connection, on either side: a reliable-connected queue pair, its receive completion queue, and its
 * send completion queue as the registration pool wraps it (the pool posts REG_MR and LOCAL_INV work requests to the
 * same send queue and sees their completions first). Made for each connection, attached to the connection's
 * registration pool, given back in one place ({@link #close()}). Completion listeners only wake the owning agent,
 * which polls both queues.
 */
public final class QueueSet implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(QueueSet.class);

    /** Sizes of a connection's queues (each side computes its own from its settings and the device's limits). */
    public record Sizes(int maxSendWr, int maxRecvWr, int maxSendSge, int sendCqEntries, int recvCqEntries,
                        int maxInlineData) {
    }

    private final QueuePair qp;
    private final CompletionQueue sendCq;
    private final CompletionQueue recvCq;
    private boolean closed;

    private QueueSet(QueuePair qp, CompletionQueue sendCq, CompletionQueue recvCq) {
        this.qp = qp;
        this.sendCq = sendCq;
        this.recvCq = recvCq;
    }

    /**
     * Creates the completion queues and the queue pair (in INIT) and attaches {@code registrations} to it.
     *
     * @throws VerbsException when the device refuses (nothing stays open then)
     */
    public static QueueSet create(RdmaDevice device, ProtectionDomain pd, RegistrationPool registrations, Sizes sizes)
            throws VerbsException {
        CompletionQueue deviceSendCq = device.createCompletionQueue(sizes.sendCqEntries());
        CompletionQueue recvCq = null;
        CompletionQueue sendCq = null;
        QueuePair qp;
        try {
            recvCq = device.createCompletionQueue(sizes.recvCqEntries());
            sendCq = registrations.wrap(deviceSendCq);
            qp = pd.createQueuePair(new QueuePairConfig(deviceSendCq, recvCq, sizes.maxSendWr(), sizes.maxRecvWr(),
                    sizes.maxSendSge(), 1, sizes.maxInlineData()));
        } catch (VerbsException | RuntimeException e) {
            closeQuietly(recvCq);
            closeQuietly(sendCq != null ? sendCq : deviceSendCq); // the wrapper closes the device queue
            throw e;
        }
        registrations.attach(qp);
        return new QueueSet(qp, sendCq, recvCq);
    }

    /** Wakes {@code agent} (from a device thread) whenever either queue has a completion to poll. */
    public void wakeOnCompletion(Runnable agent) {
        CompletionQueue.CompletionListener listener = cq -> agent.run();
        sendCq.setListener(listener);
        recvCq.setListener(listener);
    }

    public QueuePair qp() {
        return qp;
    }

    /** The send completion queue to poll: the registration pool's wrapper of the device's. */
    public CompletionQueue sendCq() {
        return sendCq;
    }

    public CompletionQueue recvCq() {
        return recvCq;
    }

    /** Asks for a wake-up at the next completion of either queue (before the agent parks). */
    public void requestNotify() {
        sendCq.requestNotify();
        recvCq.requestNotify();
    }

    /**
     * Destroys the queue pair (flushing what is posted), drops what the completion queues still hold (the owner has
     * accounted for its work requests already), then closes them. Idempotent.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            qp.close();
        } catch (RuntimeException e) {
            LOG.warn("closing queue pair {} failed: {}", qp, e.toString());
        }
        WorkCompletion[] scratch = {new WorkCompletion(), new WorkCompletion(), new WorkCompletion(),
            new WorkCompletion()};
        while (sendCq.poll(scratch) > 0) {
            // dropped
        }
        while (recvCq.poll(scratch) > 0) {
            // dropped
        }
        sendCq.setListener(null);
        recvCq.setListener(null);
        closeQuietly(sendCq);
        closeQuietly(recvCq);
    }

    private static void closeQuietly(CompletionQueue cq) {
        if (cq == null) {
            return;
        }
        try {
            cq.close();
        } catch (VerbsException | RuntimeException e) {
            LOG.warn("closing a completion queue failed: {}", e.toString());
        }
    }
}
