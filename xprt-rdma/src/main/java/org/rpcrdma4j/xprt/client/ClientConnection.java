package org.rpcrdma4j.xprt.client;

import java.time.Duration;

import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;

import org.rpcrdma4j.registration.RegistrationPool;
import org.rpcrdma4j.verbs.ConnectParameters;
import org.rpcrdma4j.verbs.ConnectionEvent;
import org.rpcrdma4j.verbs.ConnectionEventType;
import org.rpcrdma4j.verbs.ConnectionInfo;
import org.rpcrdma4j.verbs.ConnectionListener;
import org.rpcrdma4j.verbs.DeviceAttributes;
import org.rpcrdma4j.verbs.DeviceCapability;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.xprt.internal.InlineThresholds;
import org.rpcrdma4j.xprt.internal.QueueSet;
import org.rpcrdma4j.xprt.internal.ReceiveRing;
import org.rpcrdma4j.xprt.internal.UnsignaledRun;

/**
 * One incarnation of the connection: its queues ({@link QueueSet}), made for each connect attempt and destroyed when
 * the connection is lost. Connection events only wake the agent; completion events let the signalling thread poll on
 * the agent's behalf when it can claim it ({@code ClientAgent#onCompletionSignal}); everything else is the agent's.
 */
final class ClientConnection {
    final int generation;
    final QueueSet queues;
    final QueuePair qp;
    /** Calls without chunks that go inline and unsignaled; agent thread. */
    final UnsignaledRun unsignaled;
    CompletableFuture<ConnectionInfo> connecting;
    ConnectionInfo info;
    volatile ConnectionEventType lostBy;
    volatile Throwable lostCause;

    private ClientConnection(int generation, QueueSet queues, int inlineMax) {
        this.generation = generation;
        this.queues = queues;
        this.qp = queues.qp();
        this.unsignaled = new UnsignaledRun(inlineMax, UnsignaledRun.SIGNAL_EVERY);
    }

    /**
     * Sizes of a connection's queues. Every slot may have a Send posted, every registration handle a REG_MR and a
     * LOCAL_INV (a handle is mapped again only after its invalidation), but no slot more than a REG_MR and a LOCAL_INV
     * per segment. Unsignaled work requests hold their entries until a later signaled one completes, so answered
     * calls may still hold some: a run of {@value UnsignaledRun#SIGNAL_EVERY} unsignaled Sends, and a further round of one entry
     * per slot. Every posted work request may complete (flushes do, signaled or not). The receive queue gets some
     * slack beyond the receives posted: a device may free a receive's slot a little after its completion is visible,
     * and reposting must not fail then.
     *
     * @throws VerbsException when the device has fewer than 4 SGEs per work request
     */
    static QueueSet.Sizes sizes(DeviceAttributes attributes, int slots, int receives, int segmentsPerRpc,
                                int maxHandles) throws VerbsException {
        if (attributes.maxSge() < 4) {
            throw new VerbsException("the device has " + attributes.maxSge()
                    + " SGEs per work request; the transport needs 4");
        }
        long registrationWrs = Math.min((long) slots * 2 * segmentsPerRpc, 2L * maxHandles);
        int sendWr = (int) Math.min(attributes.maxQpWr(), 2L * slots + registrationWrs
                + UnsignaledRun.SIGNAL_EVERY);
        return new QueueSet.Sizes(sendWr, receives + 16, 4, Math.min(attributes.maxCqe(), sendWr + 16),
                Math.min(attributes.maxCqe(), receives + 16),
                UnsignaledRun.inlineSize(attributes.maxInlineData()));
    }

    /**
     * How the client connects: RFC 8797 private data (the configured inline sizes; remote invalidation offered iff the
     * device can receive Send With Invalidate <em>and</em> the handles are fast-registered: an FMR or a synchronous
     * registration cannot be invalidated by a peer, and a Send With Invalidate naming one breaks the connection), IRD
     * (the configured value or the device's maximum up to 255, at least 1: the server RDMA READs from us), ORD 0 (we
     * never RDMA READ), the configured timeouts (the resolve timeout at most the connect timeout).
     */
    static ConnectParameters parameters(RdmaClientConfig config, DeviceAttributes attributes, boolean fastRegistered) {
        int ird = config.responderResources() > 0 ? config.responderResources()
                : Math.min(255, attributes.maxQpRdAtom());
        ird = Math.max(1, Math.min(ird, attributes.maxQpRdAtom()));
        byte[] privateData = InlineThresholds.privateData(attributes.has(DeviceCapability.REMOTE_INV)
                && fastRegistered, config.inlineSendSize(), config.inlineReceiveSize());
        // the device bounds each phase; the agent bounds the whole attempt by the connect timeout
        Duration connect = config.connectTimeout();
        Duration resolve = config.resolveTimeout().compareTo(connect) < 0 ? config.resolveTimeout() : connect;
        return new ConnectParameters(privateData, ird, 0, resolve, connect);
    }

    /**
     * Creates a connection's queues, posts every receive and starts connecting to {@code server}; the agent is woken
     * when the attempt ends or when the connection is lost, and {@code completionSignal} runs (on the thread that
     * added the completion) when a completion arrives.
     */
    static ClientConnection open(RdmaDevice device, ProtectionDomain pd, RegistrationPool pool, int generation,
                                 QueueSet.Sizes sizes, Runnable wake, Runnable completionSignal, ReceiveRing receives,
                                 InetSocketAddress server, ConnectParameters parameters) throws VerbsException {
        ClientConnection c = new ClientConnection(generation, QueueSet.create(device, pd, pool, sizes),
                sizes.maxInlineData());
        c.queues.wakeOnCompletion(completionSignal);
        try {
            receives.postAll(c.qp, generation);
            c.connecting = device.connectionManager().connect(c.qp, server, parameters, c.events(wake));
        } catch (VerbsException | RuntimeException e) {
            c.close();
            throw e;
        }
        c.connecting.whenComplete((info, error) -> wake.run());
        return c;
    }

    /** A listener of this connection's events: a loss is noted and the agent woken. */
    private ConnectionListener events(Runnable wake) {
        return (ConnectionEvent event) -> {
            if (event.type() == ConnectionEventType.DISCONNECTED || event.type() == ConnectionEventType.DEVICE_REMOVAL) {
                lostCause = event.cause();
                lostBy = event.type();
                wake.run();
            }
        };
    }

    /** Destroys the queue pair (flushing what is posted) and the completion queues. */
    void close() {
        queues.close();
    }
}
