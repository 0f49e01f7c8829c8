package org.rpcrdma4j.verbs.disni;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

import com.ibm.disni.verbs.RdmaCmId;
import org.rpcrdma4j.verbs.ConnectException;
import org.rpcrdma4j.verbs.ConnectParameters;
import org.rpcrdma4j.verbs.ConnectionEventType;
import org.rpcrdma4j.verbs.ConnectionInfo;
import org.rpcrdma4j.verbs.ConnectionListener;
import org.rpcrdma4j.verbs.ConnectionManager;
import org.rpcrdma4j.verbs.QpState;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.RdmaListener;
import org.rpcrdma4j.verbs.VerbsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connection manager of a DiSNI device: rdma_cm through DiSNI's {@code RdmaEventChannel} and {@code RdmaCmId}, all
 * on the device's {@link CmEventLoop}.
 * <p>
 * Limits, all DiSNI's: IPv4 only; private data on connect only (at most {@value #MAX_PRIVATE_DATA} bytes, what an IB
 * connection request carries after rdma_cm's header), none on accept or reject, and none delivered to either side;
 * responder resources and initiator depth cannot be set (libdisni asks for the device maxima), so the parameters'
 * values are ignored and connections report the device's configured IRD/ORD. A listener listens on the device's own
 * address (DiSNI gives a connection request the listening id's device context, which a wildcard listener lacks).
 */
final class DisniConnectionManager implements ConnectionManager, CmEventLoop.ConnectionRequestSink,
        DisniConnectionRequest.Owner {
    private static final Logger LOG = LoggerFactory.getLogger(DisniConnectionManager.class);
    static final int MAX_PRIVATE_DATA = 56;
    private static final int BACKLOG = 128;

    private final DisniDevice device;
    private final CmEventLoop loop;
    private final QpConnection.Settings settings;
    private final InetAddress deviceAddress;
    private final Map<RdmaCmId, DisniListener> listeners = new IdentityHashMap<>();
    private final AtomicBoolean warnedAcceptData = new AtomicBoolean();

    DisniConnectionManager(DisniDevice device, CmEventLoop loop, QpConnection.Settings settings,
                           InetAddress deviceAddress) {
        this.device = device;
        this.loop = loop;
        this.settings = settings;
        this.deviceAddress = deviceAddress;
    }

    CmEventLoop loop() {
        return loop;
    }

    @Override
    public QpConnection.Settings settings() {
        return settings;
    }

    @Override
    public CmExecutor executor() {
        return loop;
    }

    @Override
    public CompletableFuture<ConnectionInfo> connect(QueuePair qp, InetSocketAddress remote,
                                                     ConnectParameters parameters, ConnectionListener listener) {
        CompletableFuture<ConnectionInfo> future = new CompletableFuture<>();
        if (remote == null || remote.isUnresolved() || !(remote.getAddress() instanceof Inet4Address)) {
            future.completeExceptionally(new ConnectException(ConnectionEventType.UNREACHABLE,
                    "DiSNI 2.1 reaches resolved IPv4 addresses only, not " + remote, null, null));
            return future;
        }
        DisniQueuePair dq;
        try {
            if (parameters.privateData().length > MAX_PRIVATE_DATA) {
                throw new VerbsException(parameters.privateData().length + " bytes of private data; rdma_cm carries "
                        + "at most " + MAX_PRIVATE_DATA + " with a connection request");
            }
            dq = claim(qp);
        } catch (VerbsException e) {
            future.completeExceptionally(new ConnectException(ConnectionEventType.CONNECT_ERROR, e.getMessage(),
                    null, e));
            return future;
        }
        if (parameters.responderResources() != settings.ird() || parameters.initiatorDepth() != settings.ord()) {
            LOG.debug("IRD/ORD {}/{} asked for; DiSNI cannot set them, the device maxima apply",
                    parameters.responderResources(), parameters.initiatorDepth());
        }
        loop.execute(() -> {
            RdmaCmId raw;
            try {
                raw = loop.createId();
            } catch (IOException | RuntimeException e) {
                dq.broken();
                future.completeExceptionally(new ConnectException(ConnectionEventType.CONNECT_ERROR,
                        "rdma_create_id failed: " + DisniErrors.describe(e), null, e));
                return;
            }
            QpConnection c = QpConnection.active(new DisniCmId(raw, loop), dq, remote, parameters, listener, future,
                    settings, System::nanoTime);
            loop.register(raw, c);
            dq.attach(c);
            c.startActive();
        });
        return future;
    }

    /** Checks that a queue pair is this device's, unconnected and not yet taken, and takes it. */
    @Override
    public DisniQueuePair claim(QueuePair qp) throws VerbsException {
        if (!(qp instanceof DisniQueuePair) || !device.resources().owns((DisniQueuePair) qp)) {
            throw new VerbsException("the queue pair does not belong to this DiSNI device: " + qp);
        }
        DisniQueuePair dq = (DisniQueuePair) qp;
        if (dq.state() != QpState.INIT || !dq.claim()) {
            throw new VerbsException("the queue pair is " + dq.state() + " and was already connected or accepted; "
                    + "a queue pair connects once");
        }
        return dq;
    }

    @Override
    public RdmaListener listen(InetSocketAddress bindAddress, ConnectionRequestHandler handler)
            throws VerbsException {
        InetSocketAddress bind = listenAddress(bindAddress, deviceAddress);
        return loop.call(() -> {
            RdmaCmId raw = loop.createId();
            InetSocketAddress local;
            try {
                raw.bindAddr(bind);
                raw.listen(BACKLOG);
                SocketAddress source = raw.getSource();
                local = source instanceof InetSocketAddress ? (InetSocketAddress) source : bind;
            } catch (IOException | RuntimeException e) {
                try {
                    raw.destroyId();
                } catch (IOException ignored) {
                    // the id is gone either way
                }
                throw DisniErrors.failure("rdma_bind_addr/rdma_listen on " + bind, e);
            }
            DisniListener l = new DisniListener(raw, local, handler, this);
            loop.register(raw, l);
            listeners.put(raw, l);
            device.resources().listenerOpened(l);
            return l;
        });
    }

    /**
     * The address a listener binds: the device's own address (a wildcard address is replaced by it); another address
     * is refused.
     */
    static InetSocketAddress listenAddress(InetSocketAddress requested, InetAddress deviceAddress)
            throws VerbsException {
        if (requested == null) {
            return new InetSocketAddress(deviceAddress, 0);
        }
        InetAddress a = requested.getAddress();
        if (a == null || a.isAnyLocalAddress()) {
            return new InetSocketAddress(deviceAddress, requested.getPort());
        }
        if (!a.equals(deviceAddress)) {
            throw new VerbsException("a DiSNI device listens on its own address " + deviceAddress.getHostAddress()
                    + ", not " + a.getHostAddress() + " (open a device on that address instead)");
        }
        return requested;
    }

    /** On the loop: a listener was closed. */
    void listenerClosed(DisniListener l) {
        listeners.remove(l.id());
        loop.unregister(l.id());
        device.resources().listenerClosed(l);
    }

    @Override
    public void onConnectionRequest(RdmaCmId listenId, RdmaCmId connId) {
        DisniListener l = listeners.get(listenId);
        DisniCmId id = new DisniCmId(connId, loop);
        if (l == null || l.isClosed()) {
            try {
                id.destroy();
            } catch (IOException e) {
                LOG.debug("rejecting a request at a closed listener failed: {}", e.toString());
            }
            return;
        }
        InetSocketAddress remote = null;
        InetSocketAddress local = l.localAddress();
        try {
            remote = id.destination();
            local = id.source();
        } catch (IOException e) {
            LOG.debug("addresses of a connection request unknown: {}", e.toString());
        }
        DisniConnectionRequest request = new DisniConnectionRequest(id, this, remote, local, System.nanoTime(),
                ConnectParameters.DEFAULT_CONNECT_TIMEOUT);
        loop.register(connId, request);
        try {
            l.handler().onConnectionRequest(request);
        } catch (RuntimeException e) {
            LOG.error("connection request handler threw; rejecting", e);
            request.reject(null);
        }
    }

    /** On the loop: accepts a request with a claimed queue pair. */
    @Override
    public void accept(NativeCmId nativeId, DisniQueuePair qp, ConnectionListener listener) throws VerbsException {
        DisniCmId id = (DisniCmId) nativeId;
        int key;
        try {
            key = id.contextKey();
        } catch (IOException e) {
            qp.broken();
            destroyQuietly(id);
            throw DisniErrors.failure("reading the request's device", e);
        }
        if (key != settings.contextKey()) {
            qp.broken();
            destroyQuietly(id);
            throw new VerbsException("the connection request arrived on another RDMA device than this one");
        }
        QpConnection c = QpConnection.passive(id, qp, listener, settings, System::nanoTime,
                ConnectParameters.DEFAULT_CONNECT_TIMEOUT);
        loop.register(id.raw(), c);
        qp.attach(c);
        try {
            c.startPassive();
        } catch (VerbsException e) {
            qp.broken();
            c.close(); // destroys the id: the requester is rejected
            throw e;
        }
    }

    @Override
    public void warnAcceptPrivateData() {
        if (warnedAcceptData.compareAndSet(false, true)) {
            LOG.warn("DiSNI sends no private data with an accept; the accept's private data is dropped (the "
                    + "requester falls back to its defaults)");
        }
    }

    private static void destroyQuietly(DisniCmId id) {
        try {
            id.destroy();
        } catch (IOException e) {
            LOG.debug("destroying an id failed: {}", e.toString());
        }
    }
}
