package org.rpcrdma4j.verbs.disni;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

import org.rpcrdma4j.verbs.ConnectException;
import org.rpcrdma4j.verbs.ConnectParameters;
import org.rpcrdma4j.verbs.ConnectionEvent;
import org.rpcrdma4j.verbs.ConnectionEventType;
import org.rpcrdma4j.verbs.ConnectionInfo;
import org.rpcrdma4j.verbs.ConnectionListener;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.disni.CmEvents.CmAction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drives one queue pair's rdma_cm id through its life: resolve address, resolve route, create the native queue pair,
 * connect (active side) or accept (passive side), established, ended, closed. Every method runs on the
 * connection-manager thread; the id is reached through {@link NativeCmId}, so the state machine is tested without
 * libdisni.
 * <p>
 * Deadlines: address and route resolution together end {@code resolveTimeout} after the start (the same bound is
 * handed to librdmacm); the handshake ends {@code connectTimeout} after the route was resolved (or the accept sent).
 * A connection that fails completes the connect future with a {@link ConnectException}, or tells the accepting side's
 * listener; a connection that ends after ESTABLISHED tells the listener DISCONNECTED or DEVICE_REMOVAL. In every case
 * the queue pair is told it is broken, so that what it holds is flushed.
 * <p>
 * DiSNI delivers no private data and no IRD/ORD with events: the connection information carries empty private data
 * and the device's configured IRD/ORD.
 */
final class QpConnection implements CmEndpoint {
    private static final Logger LOG = LoggerFactory.getLogger(QpConnection.class);

    /** What a connection needs from its queue pair. */
    interface Hooks {
        QueuePair queuePair();

        /** Creates the native queue pair on the id and posts the receives waiting for it. */
        void bind(NativeCmId id) throws VerbsException;

        /** The connection is usable. */
        void established(ConnectionInfo info);

        /** The connection failed or ended: the queue pair is in error. */
        void broken();
    }

    /**
     * Device-wide settings.
     *
     * @param contextKey the device's verbs context ({@link NativeCmId#contextKey()}), to detect a route through
     *                   another device
     */
    record Settings(int retryCount, int rnrRetryCount, int ird, int ord, int contextKey) {
    }

    enum Phase { NEW, RESOLVING_ADDR, RESOLVING_ROUTE, CONNECTING, ACCEPTING, ESTABLISHED, ENDED, CLOSED }

    private final NativeCmId id;
    private final Hooks qp;
    private final ConnectionListener listener;
    private final CompletableFuture<ConnectionInfo> future;
    private final Settings settings;
    private final LongSupplier clock;
    private final InetSocketAddress remote;
    private final byte[] privateData;
    private final Duration resolveTimeout;
    private final Duration connectTimeout;
    private Phase phase = Phase.NEW;
    private long deadline;
    private boolean bound;
    private boolean wasEstablished;
    private boolean disconnectSent;

    private QpConnection(NativeCmId id, Hooks qp, ConnectionListener listener, CompletableFuture<ConnectionInfo> future,
                         Settings settings, LongSupplier clock, InetSocketAddress remote, byte[] privateData,
                         Duration resolveTimeout, Duration connectTimeout) {
        this.id = id;
        this.qp = qp;
        this.listener = listener;
        this.future = future;
        this.settings = settings;
        this.clock = clock;
        this.remote = remote;
        this.privateData = privateData;
        this.resolveTimeout = resolveTimeout;
        this.connectTimeout = connectTimeout;
    }

    /** The connecting side; {@link #startActive} begins. */
    static QpConnection active(NativeCmId id, Hooks qp, InetSocketAddress remote, ConnectParameters parameters,
                               ConnectionListener listener, CompletableFuture<ConnectionInfo> future,
                               Settings settings, LongSupplier clock) {
        return new QpConnection(id, qp, listener, future, settings, clock, remote, parameters.privateData(),
                parameters.resolveTimeout(), parameters.connectTimeout());
    }

    /** The accepting side; {@link #startPassive} begins. */
    static QpConnection passive(NativeCmId id, Hooks qp, ConnectionListener listener, Settings settings,
                                LongSupplier clock, Duration acceptTimeout) {
        return new QpConnection(id, qp, listener, null, settings, clock, null, new byte[0], Duration.ZERO,
                acceptTimeout);
    }

    Phase phase() {
        return phase;
    }

    void startActive() {
        deadline = clock.getAsLong() + resolveTimeout.toNanos();
        phase = Phase.RESOLVING_ADDR;
        try {
            id.resolveAddr(remote, millis(resolveTimeout.toNanos()));
        } catch (IOException e) {
            fail(ConnectionEventType.UNREACHABLE, "rdma_resolve_addr to " + remote + " failed", e);
        }
    }

    /** Binds the queue pair and accepts; a failure is the caller's (who then rejects). */
    void startPassive() throws VerbsException {
        qp.bind(id);
        bound = true;
        try {
            id.accept(settings.retryCount(), settings.rnrRetryCount());
        } catch (IOException e) {
            throw DisniErrors.failure("rdma_accept", e);
        }
        phase = Phase.ACCEPTING;
        deadline = clock.getAsLong() + connectTimeout.toNanos();
    }

    @Override
    public void onCmEvent(CmAction action, int event) {
        switch (phase) {
            case RESOLVING_ADDR:
                if (action == CmAction.ADDR_RESOLVED) {
                    addressResolved();
                } else {
                    failOn(action, event, "while resolving the address of " + remote);
                }
                break;
            case RESOLVING_ROUTE:
                if (action == CmAction.ROUTE_RESOLVED) {
                    routeResolved();
                } else {
                    failOn(action, event, "while resolving the route to " + remote);
                }
                break;
            case CONNECTING:
            case ACCEPTING:
                if (action == CmAction.ESTABLISHED) {
                    established();
                } else {
                    failOn(action, event, phase == Phase.CONNECTING ? "while connecting to " + remote
                            : "while accepting");
                }
                break;
            case ESTABLISHED:
                if (action == CmAction.DISCONNECTED) {
                    if (event == CmEvents.ADDR_CHANGE) {
                        disconnectQuietly();
                    }
                    end(ConnectionEventType.DISCONNECTED);
                } else if (action == CmAction.DEVICE_REMOVAL) {
                    end(ConnectionEventType.DEVICE_REMOVAL);
                }
                break;
            default:
                break;
        }
    }

    private void addressResolved() {
        try {
            if (id.contextKey() != settings.contextKey()) {
                fail(ConnectionEventType.UNREACHABLE, remote + " is reached through another RDMA device than this "
                        + "one; open the device on the address of the interface that routes there", null);
                return;
            }
            phase = Phase.RESOLVING_ROUTE;
            id.resolveRoute(millis(deadline - clock.getAsLong()));
        } catch (IOException e) {
            fail(ConnectionEventType.UNREACHABLE, "rdma_resolve_route to " + remote + " failed", e);
        }
    }

    private void routeResolved() {
        try {
            qp.bind(id);
            bound = true;
        } catch (VerbsException e) {
            fail(ConnectionEventType.CONNECT_ERROR, "creating the queue pair failed: " + e.getMessage(), e);
            return;
        }
        try {
            phase = Phase.CONNECTING;
            deadline = clock.getAsLong() + connectTimeout.toNanos();
            id.connect(privateData, settings.retryCount(), settings.rnrRetryCount());
        } catch (IOException e) {
            if (DisniErrors.connectionRefused(e)) {
                // iWARP (siw, and RNICs whose driver opens the TCP connection in rdma_connect): a port nobody
                // listens on refuses the TCP connection, and rdma_connect itself fails; no REJECTED event follows
                fail(ConnectionEventType.REJECTED, "rdma_connect to " + remote + " refused: nobody listens there", e);
            } else {
                fail(ConnectionEventType.CONNECT_ERROR, "rdma_connect to " + remote + " failed", e);
            }
        }
    }

    private void established() {
        InetSocketAddress local = null;
        InetSocketAddress peer = remote;
        try {
            local = id.source();
            peer = id.destination();
        } catch (IOException e) {
            LOG.debug("addresses of an established connection unknown: {}", e.toString());
        }
        ConnectionInfo info = new ConnectionInfo(local, peer, new byte[0], settings.ird(), settings.ord());
        phase = Phase.ESTABLISHED;
        wasEstablished = true;
        qp.established(info);
        if (future != null) {
            future.complete(info);
        } else {
            notify(new ConnectionEvent(ConnectionEventType.ESTABLISHED, qp.queuePair(), null, null));
        }
    }

    private void failOn(CmAction action, int event, String when) {
        if (action == CmAction.IGNORE) {
            return;
        }
        ConnectionEventType type = CmEvents.eventType(action);
        if (type != ConnectionEventType.UNREACHABLE && type != ConnectionEventType.REJECTED) {
            type = ConnectionEventType.CONNECT_ERROR;
        }
        String why = CmEvents.name(event) + " " + when;
        if (action == CmAction.REJECTED) {
            why += " (DiSNI delivers neither the reject's private data nor its reason: no listener at that port "
                    + "looks the same)";
        }
        fail(type, why, null);
    }

    private void fail(ConnectionEventType type, String message, Throwable cause) {
        String full = cause == null ? message : message + ": " + DisniErrors.describe(cause);
        phase = Phase.ENDED;
        if (bound) {
            disconnectQuietly(); // moves the native queue pair to error, so the device flushes what was posted
        }
        qp.broken();
        ConnectException e = new ConnectException(type, full, null, cause);
        if (future != null) {
            future.completeExceptionally(e);
        } else {
            notify(new ConnectionEvent(type, qp.queuePair(), null, e));
        }
    }

    private void end(ConnectionEventType type) {
        phase = Phase.ENDED;
        qp.broken();
        notify(new ConnectionEvent(type, qp.queuePair(), null, null));
    }

    private void notify(ConnectionEvent event) {
        if (listener == null) {
            return;
        }
        try {
            listener.onEvent(event);
        } catch (RuntimeException e) {
            LOG.error("connection listener threw on {}", event.type(), e);
        }
    }

    @Override
    public void onTick(long nowNanos) {
        if (nowNanos - deadline < 0) {
            return;
        }
        if (phase == Phase.RESOLVING_ADDR || phase == Phase.RESOLVING_ROUTE) {
            fail(ConnectionEventType.UNREACHABLE, "resolving " + remote + " did not finish within "
                    + resolveTimeout.toMillis() + " ms", null);
        } else if (phase == Phase.CONNECTING || phase == Phase.ACCEPTING) {
            fail(ConnectionEventType.CONNECT_ERROR, "the handshake " + (remote == null ? "" : "with " + remote + " ")
                    + "did not finish within " + connectTimeout.toMillis() + " ms", null);
        }
    }

    /** The consumer's disconnect. */
    void disconnect() {
        switch (phase) {
            case ESTABLISHED:
                if (disconnectSent) {
                    break; // idempotent: DISCONNECTED is on its way
                }
                disconnectSent = true;
                try {
                    id.disconnect(); // DISCONNECTED follows on both sides
                } catch (IOException e) {
                    LOG.debug("rdma_disconnect failed: {}", e.toString());
                    end(ConnectionEventType.DISCONNECTED);
                }
                break;
            case NEW:
            case RESOLVING_ADDR:
            case RESOLVING_ROUTE:
            case CONNECTING:
            case ACCEPTING:
                fail(ConnectionEventType.CONNECT_ERROR, "disconnected by the consumer before the connection was "
                        + "established", null);
                break;
            default:
                break;
        }
    }

    /** The device is being closed: the connection ends with DEVICE_REMOVAL (or fails, if not yet established). */
    void deviceRemoved() {
        onCmEvent(CmAction.DEVICE_REMOVAL, CmEvents.DEVICE_REMOVAL);
    }

    /** Ends everything: no more events reach the listener, the native queue pair and the id are destroyed. */
    void close() {
        if (phase == Phase.CLOSED) {
            return;
        }
        if (wasEstablished && !disconnectSent) {
            disconnectQuietly(); // the peer hears DISCONNECTED even when this side ended first (device removal)
        }
        if (future != null && !future.isDone()) {
            future.completeExceptionally(new ConnectException(ConnectionEventType.CONNECT_ERROR,
                    "the queue pair was closed while connecting", null, null));
        }
        phase = Phase.CLOSED;
        try {
            if (bound) {
                id.destroyQp();
            }
        } catch (IOException e) {
            LOG.warn("destroying the queue pair failed: {}", e.toString());
        }
        try {
            id.destroy();
        } catch (IOException e) {
            LOG.warn("destroying the rdma_cm id failed: {}", e.toString());
        }
    }

    private void disconnectQuietly() {
        disconnectSent = true;
        try {
            id.disconnect();
        } catch (IOException e) {
            LOG.debug("rdma_disconnect failed: {}", e.toString());
        }
    }

    private static int millis(long nanos) {
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, nanos / 1_000_000));
    }
}
