package org.rpcrdma4j.verbs.disni;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;

import org.rpcrdma4j.verbs.AcceptParameters;
import org.rpcrdma4j.verbs.ConnectionListener;
import org.rpcrdma4j.verbs.ConnectionRequest;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.disni.CmEvents.CmAction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A connection request at a DiSNI listener.
 * <p>
 * What DiSNI 2.1 does not deliver with the request: the requester's private data and its responder resources /
 * initiator depth. {@link #privateData()} is therefore empty, and {@link #responderResources()} /
 * {@link #initiatorDepth()} report this device's configured IRD/ORD as the assumption (DiSNI's requester asks for its
 * device maxima). An accept carries no private data (DiSNI's accept sends none); a reject carries none either (DiSNI has
 * no {@code rdma_reject}: the request's id is destroyed, and the kernel rejects it). A request neither accepted nor
 * rejected within the accept timeout is rejected.
 */
final class DisniConnectionRequest implements ConnectionRequest, CmEndpoint {
    private static final Logger LOG = LoggerFactory.getLogger(DisniConnectionRequest.class);

    private final NativeCmId id;
    private final Owner manager;
    private final InetSocketAddress remote;
    private final InetSocketAddress local;
    private final long deadline;
    private final Duration timeout;
    private boolean decided;

    /** What a request needs from its connection manager ({@link DisniConnectionManager}; a fake in tests). */
    interface Owner {
        QpConnection.Settings settings();

        /** The connection-manager thread. */
        CmExecutor executor();

        /** Checks and takes a queue pair for an accept. */
        DisniQueuePair claim(QueuePair qp) throws VerbsException;

        /** On the connection-manager thread: accepts the request's id with a claimed queue pair. */
        void accept(NativeCmId id, DisniQueuePair qp, ConnectionListener listener) throws VerbsException;

        /** Warns (once) that an accept's private data is dropped. */
        void warnAcceptPrivateData();
    }

    DisniConnectionRequest(NativeCmId id, Owner manager, InetSocketAddress remote,
                           InetSocketAddress local, long nowNanos, Duration timeout) {
        this.id = id;
        this.manager = manager;
        this.remote = remote;
        this.local = local;
        this.deadline = nowNanos + timeout.toNanos();
        this.timeout = timeout;
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return remote;
    }

    @Override
    public InetSocketAddress localAddress() {
        return local;
    }

    /** Always empty: DiSNI does not deliver the requester's private data. */
    @Override
    public byte[] privateData() {
        return new byte[0];
    }

    /** This device's configured IRD: DiSNI does not deliver the requester's. */
    @Override
    public int responderResources() {
        return manager.settings().ird();
    }

    /** This device's configured ORD: DiSNI does not deliver the requester's. */
    @Override
    public int initiatorDepth() {
        return manager.settings().ord();
    }

    @Override
    public void accept(QueuePair qp, AcceptParameters parameters, ConnectionListener listener) throws VerbsException {
        DisniQueuePair dq = manager.claim(qp);
        if (parameters.privateData().length > 0) {
            manager.warnAcceptPrivateData();
        }
        manager.executor().call(() -> {
            if (decided) {
                dq.broken();
                throw new VerbsException("this connection request was already accepted, rejected or timed out");
            }
            decided = true;
            manager.accept(id, dq, listener);
            return null;
        });
    }

    @Override
    public void reject(byte[] privateData) {
        manager.executor().execute(() -> {
            if (decided) {
                return;
            }
            decided = true;
            if (privateData != null && privateData.length > 0) {
                LOG.debug("DiSNI cannot send private data with a reject; {} bytes dropped", privateData.length);
            }
            destroy();
        });
    }

    @Override
    public void onCmEvent(CmAction action, int event) {
        if (!decided && action != CmAction.IGNORE) {
            LOG.debug("connection request from {} ended before it was answered: {}", remote, CmEvents.name(event));
            decided = true;
            destroy();
        }
    }

    @Override
    public void onTick(long nowNanos) {
        if (!decided && nowNanos - deadline >= 0) {
            LOG.warn("connection request from {} was neither accepted nor rejected within {} ms; rejected", remote,
                    timeout.toMillis());
            decided = true;
            destroy();
        }
    }

    private void destroy() {
        try {
            id.destroy();
        } catch (IOException e) {
            LOG.debug("destroying the id of a connection request failed: {}", e.toString());
        }
    }
}
