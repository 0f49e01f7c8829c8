package org.rpcrdma4j.xprt.client;

import java.util.concurrent.CompletableFuture;

import org.rpcrdma4j.registration.RegistrationPool;
import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.ConnectionEvent;
import org.rpcrdma4j.verbs.ConnectionEventType;
import org.rpcrdma4j.verbs.ConnectionInfo;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.QueuePairConfig;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.WorkCompletion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One incarnation of the connection: a queue pair and its two completion queues, made for each connect attempt and
 * destroyed when the connection is lost. Completion and connection events only wake the agent; everything else runs
 * on the agent thread.
 */
final class ClientConnection {
    private static final Logger LOG = LoggerFactory.getLogger(ClientConnection.class);

    final int generation;
    final QueuePair qp;
    /** The queue the agent polls for send-side completions (the registration pool's wrapper of the device's). */
    final CompletionQueue sendCq;
    final CompletionQueue recvCq;
    CompletableFuture<ConnectionInfo> connecting;
    ConnectionInfo info;
    volatile ConnectionEventType lostBy;
    volatile Throwable lostCause;

    private ClientConnection(int generation, QueuePair qp, CompletionQueue sendCq, CompletionQueue recvCq) {
        this.generation = generation;
        this.qp = qp;
        this.sendCq = sendCq;
        this.recvCq = recvCq;
    }

    /** Sizes of a connection's queues. */
    record Sizes(int maxSendWr, int maxRecvWr, int maxSendSge, int sendCqEntries, int recvCqEntries) {
    }

    /**
     * Creates the queues of a new connection (the queue pair in INIT) and attaches the registration pool to it.
     *
     * @param wake called on a device thread when a completion or an event needs the agent
     */
    static ClientConnection create(RdmaDevice device, ProtectionDomain pd, RegistrationPool pool, int generation,
                                   Sizes sizes, Runnable wake) throws VerbsException {
        CompletionQueue deviceSendCq = device.createCompletionQueue(sizes.sendCqEntries());
        CompletionQueue recvCq = null;
        CompletionQueue sendCq = null;
        QueuePair qp = null;
        try {
            recvCq = device.createCompletionQueue(sizes.recvCqEntries());
            sendCq = pool.wrap(deviceSendCq);
            qp = pd.createQueuePair(new QueuePairConfig(deviceSendCq, recvCq, sizes.maxSendWr(), sizes.maxRecvWr(),
                    sizes.maxSendSge(), 1, 0));
        } catch (VerbsException | RuntimeException e) {
            closeQuietly(recvCq);
            closeQuietly(sendCq != null ? sendCq : deviceSendCq);
            throw e;
        }
        ClientConnection c = new ClientConnection(generation, qp, sendCq, recvCq);
        CompletionQueue.CompletionListener listener = cq -> wake.run();
        sendCq.setListener(listener);
        recvCq.setListener(listener);
        pool.attach(qp);
        return c;
    }

    /** A listener of this connection's events: a loss is noted and the agent woken. */
    org.rpcrdma4j.verbs.ConnectionListener events(Runnable wake) {
        return (ConnectionEvent event) -> {
            if (event.type() == ConnectionEventType.DISCONNECTED || event.type() == ConnectionEventType.DEVICE_REMOVAL) {
                lostCause = event.cause();
                lostBy = event.type();
                wake.run();
            }
        };
    }

    /** Destroys the queue pair (flushing what is posted), then drains and closes the completion queues. */
    void close(WorkCompletion[] scratch, java.util.function.Consumer<WorkCompletion> sendSide) {
        try {
            qp.close();
        } catch (RuntimeException e) {
            LOG.warn("closing queue pair {} failed: {}", qp, e.toString());
        }
        drain(sendCq, scratch, sendSide);
        drain(recvCq, scratch, null);
        sendCq.setListener(null);
        recvCq.setListener(null);
        closeQuietly(sendCq);
        closeQuietly(recvCq);
    }

    private static void drain(CompletionQueue cq, WorkCompletion[] scratch,
                              java.util.function.Consumer<WorkCompletion> sink) {
        int n;
        while ((n = cq.poll(scratch)) > 0) {
            if (sink != null) {
                for (int i = 0; i < n; i++) {
                    sink.accept(scratch[i]);
                }
            }
        }
    }

    private static void closeQuietly(CompletionQueue cq) {
        if (cq == null) {
            return;
        }
        try {
            cq.close();
        } catch (VerbsException | RuntimeException e) {
            LOG.warn("closing completion queue failed: {}", e.toString());
        }
    }
}
