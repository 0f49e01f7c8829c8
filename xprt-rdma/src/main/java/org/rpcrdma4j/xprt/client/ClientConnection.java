package org.rpcrdma4j.xprt.client;

import java.util.concurrent.CompletableFuture;

import org.rpcrdma4j.registration.RegistrationPool;
import org.rpcrdma4j.codec.RpcRdmaPrivateData;
import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.ConnectParameters;
import org.rpcrdma4j.verbs.DeviceAttributes;
import org.rpcrdma4j.verbs.DeviceCapability;
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

        /**
         * Every slot may have a Send, a REG_MR per segment and a LOCAL_INV per segment posted; every posted work
         * request may complete (flushes do, signaled or not). The receive queue gets some slack beyond the receives
         * posted: a device may free a receive's slot a little after its completion is visible, and reposting must not
         * fail then.
         *
         * @throws VerbsException when the device has fewer than 4 SGEs per work request
         */
        static Sizes of(DeviceAttributes attributes, int slots, int receives, int segmentsPerRpc)
                throws VerbsException {
            if (attributes.maxSge() < 4) {
                throw new VerbsException("the device has " + attributes.maxSge()
                        + " SGEs per work request; the transport needs 4");
            }
            int sendWr = Math.min(attributes.maxQpWr(), slots * (1 + 2 * segmentsPerRpc));
            return new Sizes(sendWr, receives + 16, 4, Math.min(attributes.maxCqe(), sendWr + 16),
                    Math.min(attributes.maxCqe(), receives + 16));
        }
    }

    /**
     * How the client connects: RFC 8797 private data (the configured inline sizes; remote invalidation offered iff the
     * device can receive Send With Invalidate <em>and</em> the handles are fast-registered: an FMR or a synchronous
     * registration cannot be invalidated by a peer, and a Send With Invalidate naming one breaks the connection), IRD
     * (the configured value or the device's maximum up to 255, at least 1: the server RDMA READs from us), ORD 0 (we
     * never RDMA READ), the configured timeouts.
     */
    static ConnectParameters parameters(RdmaClientConfig config, DeviceAttributes attributes, boolean fastRegistered) {
        int ird = config.responderResources() > 0 ? config.responderResources()
                : Math.min(255, attributes.maxQpRdAtom());
        ird = Math.max(1, Math.min(ird, attributes.maxQpRdAtom()));
        byte[] privateData = RpcRdmaPrivateData.of(attributes.has(DeviceCapability.REMOTE_INV) && fastRegistered,
                config.inlineSendSize(), config.inlineReceiveSize()).encode();
        return new ConnectParameters(privateData, ird, 0, config.resolveTimeout(), config.connectTimeout());
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

    /**
     * Creates a connection's queues, posts every receive and starts connecting to {@code server}; the agent is woken
     * when the attempt ends or the connection is lost.
     */
    static ClientConnection open(RdmaDevice device, ProtectionDomain pd, RegistrationPool pool, int generation,
                                 Sizes sizes, Runnable wake, ReceiveRing receives, java.net.InetSocketAddress server,
                                 ConnectParameters parameters) throws VerbsException {
        ClientConnection c = create(device, pd, pool, generation, sizes, wake);
        try {
            receives.postAll(c.qp, generation);
            c.connecting = device.connectionManager().connect(c.qp, server, parameters, c.events(wake));
        } catch (VerbsException | RuntimeException e) {
            c.close(new WorkCompletion[16], wc -> { });
            throw e;
        }
        c.connecting.whenComplete((info, error) -> wake.run());
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
