package org.rpcrdma4j.verbs.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import org.rpcrdma4j.verbs.ConnectException;
import org.rpcrdma4j.verbs.ConnectionEvent;
import org.rpcrdma4j.verbs.ConnectionEventType;
import org.rpcrdma4j.verbs.ConnectionInfo;
import org.rpcrdma4j.verbs.ConnectionListener;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.ffm.internal.RdmaCm;
import org.rpcrdma4j.verbs.ffm.internal.RdmaCmAbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One queue pair's rdma_cm identifier through its life, on the device thread: resolve the address and the route,
 * create the native queue pair, connect (with the caller's private data, IRD and ORD) or accept, established, ended,
 * closed. Address and route resolution together end {@code resolveTimeout} after the start; the handshake ends
 * {@code connectTimeout} after the connect or accept was sent. A failure completes the connect's future with a
 * {@link ConnectException} (the accepting side's listener hears it), an end after ESTABLISHED tells the listener
 * DISCONNECTED or DEVICE_REMOVAL; either way the queue pair is in error from then on.
 */
final class FfmConnection implements CmEndpoint {
    private static final Logger LOG = LoggerFactory.getLogger(FfmConnection.class);
    /** {@code ECONNREFUSED}, negated, as iWARP's connection manager reports a refused TCP connection. */
    private static final int ECONNREFUSED = 111;

    enum Phase { RESOLVING_ADDR, RESOLVING_ROUTE, CONNECTING, ACCEPTING, ESTABLISHED, ENDED, CLOSED }

    private final FfmDevice device;
    private final MemorySegment id;
    private final FfmQueuePair qp;
    private final ConnectionListener listener;
    private final CompletableFuture<ConnectionInfo> future;
    private final InetSocketAddress remote;
    private final byte[] privateData;
    /** The accepting side: the requester's private data. */
    private final byte[] requestData;
    private final int ird;
    private final int ord;
    private final Duration resolveTimeout;
    private final Duration connectTimeout;
    private Phase phase;
    private long deadline;
    private boolean bound;
    private boolean disconnectSent;
    /** Set when {@link #close} ran: a connect not yet made is not made. */
    private volatile boolean closing;
    /** The connection was established once: no handshake can hold its teardown. */
    private boolean everEstablished;

    private FfmConnection(FfmDevice device, MemorySegment id, FfmQueuePair qp, ConnectionListener listener,
                          CompletableFuture<ConnectionInfo> future, InetSocketAddress remote, byte[] privateData,
                          byte[] requestData, int ird, int ord, Duration resolveTimeout, Duration connectTimeout) {
        this.device = device;
        this.id = id;
        this.qp = qp;
        this.listener = listener;
        this.future = future;
        this.remote = remote;
        this.privateData = privateData;
        this.requestData = requestData;
        this.ird = ird;
        this.ord = ord;
        this.resolveTimeout = resolveTimeout;
        this.connectTimeout = connectTimeout;
    }

    /** The connecting side, started: address resolution is under way. */
    static FfmConnection connect(FfmDevice device, MemorySegment id, FfmQueuePair qp, InetSocketAddress remote,
                                 byte[] privateData, int ird, int ord, Duration resolveTimeout,
                                 Duration connectTimeout, ConnectionListener listener,
                                 CompletableFuture<ConnectionInfo> future) {
        FfmConnection c = new FfmConnection(device, id, qp, listener, future, remote, privateData, new byte[0], ird,
                ord, resolveTimeout, connectTimeout);
        c.register();
        c.phase = Phase.RESOLVING_ADDR;
        c.deadline = System.nanoTime() + resolveTimeout.toNanos();
        try (Arena arena = Arena.ofConfined()) {
            device.runtime().cm().resolveAddr(id, RdmaCm.sockaddr(arena, remote), millis(resolveTimeout.toNanos()),
                    device.loop().errno());
        } catch (VerbsException | IllegalArgumentException e) {
            c.fail(ConnectionEventType.UNREACHABLE, "resolving " + remote + " failed: " + e.getMessage(), e, null);
        }
        return c;
    }

    /**
     * The accepting side: binds the queue pair and accepts with the IRD and ORD agreed. A failure here is the
     * caller's, who then rejects.
     */
    static FfmConnection accept(FfmDevice device, MemorySegment id, FfmQueuePair qp, byte[] privateData,
                                byte[] requestData, int ird, int ord, ConnectionListener listener)
            throws VerbsException {
        FfmConnection c = new FfmConnection(device, id, qp, listener, null, RdmaCm.peerAddress(id), privateData,
                requestData, ird, ord, Duration.ZERO, Duration.ofMillis(device.options().acceptTimeoutMillis()));
        qp.bind(id);
        c.bound = true;
        try (Arena arena = Arena.ofConfined()) {
            device.runtime().cm().accept(id, c.param(arena), device.loop().errno());
        } catch (VerbsException e) {
            qp.unbind(); // no post reaches the native queue pair from here on
            device.runtime().cm().destroyQp(id);
            c.bound = false;
            throw e;
        }
        c.register();
        qp.accepted();
        c.phase = Phase.ACCEPTING;
        c.deadline = System.nanoTime() + c.connectTimeout.toNanos();
        return c;
    }

    private void register() {
        qp.attach(this);
        device.loop().register(id.address(), this);
    }

    private MemorySegment param(Arena arena) {
        MemorySegment p = arena.allocate(RdmaCmAbi.CONN_PARAM_SIZE, 8);
        if (privateData.length > 0) {
            MemorySegment data = arena.allocate(privateData.length);
            data.copyFrom(MemorySegment.ofArray(privateData));
            p.set(ADDRESS, RdmaCmAbi.CONN_PARAM_PRIVATE_DATA, data);
        }
        p.set(JAVA_BYTE, RdmaCmAbi.CONN_PARAM_PRIVATE_DATA_LEN, (byte) privateData.length);
        p.set(JAVA_BYTE, RdmaCmAbi.CONN_PARAM_RESPONDER_RESOURCES, (byte) Math.min(ird, 255));
        p.set(JAVA_BYTE, RdmaCmAbi.CONN_PARAM_INITIATOR_DEPTH, (byte) Math.min(ord, 255));
        p.set(JAVA_BYTE, RdmaCmAbi.CONN_PARAM_RETRY_COUNT, (byte) device.options().retryCount());
        p.set(JAVA_BYTE, RdmaCmAbi.CONN_PARAM_RNR_RETRY_COUNT, (byte) device.options().rnrRetryCount());
        return p;
    }

    @Override
    public void onCmEvent(CmEvent e) {
        switch (phase) {
            case RESOLVING_ADDR:
                if (e.type() == RdmaCmAbi.EVENT_ADDR_RESOLVED) {
                    addressResolved();
                } else {
                    failOn(e, "while resolving the address of " + remote);
                }
                break;
            case RESOLVING_ROUTE:
                if (e.type() == RdmaCmAbi.EVENT_ROUTE_RESOLVED) {
                    routeResolved();
                } else {
                    failOn(e, "while resolving the route to " + remote);
                }
                break;
            case CONNECTING:
            case ACCEPTING:
                if (e.type() == RdmaCmAbi.EVENT_ESTABLISHED) {
                    established(e);
                } else {
                    failOn(e, phase == Phase.CONNECTING ? "while connecting to " + remote : "while accepting "
                            + remote);
                }
                break;
            case ESTABLISHED:
                if (e.type() == RdmaCmAbi.EVENT_DISCONNECTED || e.type() == RdmaCmAbi.EVENT_ADDR_CHANGE) {
                    // answer the peer's disconnect: over InfiniBand's CM the peer otherwise waits out its DREQ
                    disconnectQuietly();
                    end(ConnectionEventType.DISCONNECTED);
                } else if (e.type() == RdmaCmAbi.EVENT_DEVICE_REMOVAL) {
                    end(ConnectionEventType.DEVICE_REMOVAL);
                }
                break;
            default:
                break;
        }
    }

    private void addressResolved() {
        if (RdmaCm.verbs(id) != device.context().address()) {
            fail(ConnectionEventType.UNREACHABLE, remote + " is reached through another RDMA device than "
                    + device.name() + "; open the device on the address of the interface that routes there", null,
                    null);
            return;
        }
        try {
            phase = Phase.RESOLVING_ROUTE;
            device.runtime().cm().resolveRoute(id, millis(deadline - System.nanoTime()), device.loop().errno());
        } catch (VerbsException e) {
            fail(ConnectionEventType.UNREACHABLE, "rdma_resolve_route to " + remote + " failed: " + e.getMessage(), e,
                    null);
        }
    }

    private void routeResolved() {
        try {
            qp.bind(id);
            bound = true;
        } catch (VerbsException e) {
            fail(ConnectionEventType.CONNECT_ERROR, "creating the queue pair failed: " + e.getMessage(), e, null);
            return;
        }
        phase = Phase.CONNECTING;
        deadline = System.nanoTime() + connectTimeout.toNanos();
        // on iWARP the call itself opens the TCP connection (siw waits for it there): off the device thread
        device.peerBound().execute("rdma_connect to " + remote, errno -> {
            try (Arena arena = Arena.ofConfined()) {
                if (!closing) {
                    device.runtime().cm().connect(id, param(arena), errno);
                }
            } catch (VerbsException e) {
                device.loop().execute(() -> connectCallFailed(e));
            }
        });
    }

    /** On the device thread: {@code rdma_connect} failed (unless the attempt ended meanwhile). */
    private void connectCallFailed(VerbsException e) {
        if (phase != Phase.CONNECTING) {
            return;
        }
        if (e instanceof FfmVerbsException f && f.errno() == ECONNREFUSED) {
            // iWARP: the TCP connection is opened in rdma_connect, and nobody listens at that port
            fail(ConnectionEventType.REJECTED, "rdma_connect to " + remote + " refused: nobody listens there", e,
                    null);
        } else {
            fail(ConnectionEventType.CONNECT_ERROR, "rdma_connect to " + remote + " failed: " + e.getMessage(), e,
                    null);
        }
    }

    private void established(CmEvent e) {
        InetSocketAddress local = RdmaCm.localAddress(id);
        InetSocketAddress peer = RdmaCm.peerAddress(id);
        ConnectionInfo info;
        if (future != null) {
            // the accept's reply, from this side's view: the READs the peer will issue and the READs it accepts
            info = new ConnectionInfo(local, peer == null ? remote : peer, e.privateData(),
                    Math.min(ird, e.responderResources() == 0 ? ird : e.responderResources()),
                    Math.min(ord, e.initiatorDepth() == 0 ? ord : e.initiatorDepth()));
        } else {
            info = new ConnectionInfo(local, peer, requestData, ird, ord);
        }
        phase = Phase.ESTABLISHED;
        everEstablished = true;
        qp.established(info);
        if (future != null) {
            future.complete(info);
        } else {
            notify(new ConnectionEvent(ConnectionEventType.ESTABLISHED, qp, null, null));
        }
    }

    private void failOn(CmEvent e, String when) {
        int t = e.type();
        if (t == RdmaCmAbi.EVENT_TIMEWAIT_EXIT) {
            return;
        }
        ConnectionEventType type;
        String why = e.name() + " " + when;
        if (t == RdmaCmAbi.EVENT_ADDR_ERROR || t == RdmaCmAbi.EVENT_ROUTE_ERROR || t == RdmaCmAbi.EVENT_UNREACHABLE) {
            type = ConnectionEventType.UNREACHABLE;
        } else if (t == RdmaCmAbi.EVENT_REJECTED) {
            type = ConnectionEventType.REJECTED;
            if (e.status() == -ECONNREFUSED) {
                why += ": nobody listens there, or the listener refused";
            }
        } else if (t == RdmaCmAbi.EVENT_DEVICE_REMOVAL) {
            type = ConnectionEventType.DEVICE_REMOVAL;
        } else {
            type = ConnectionEventType.CONNECT_ERROR;
        }
        fail(type, why, null, e.type() == RdmaCmAbi.EVENT_REJECTED ? e.privateData() : null);
    }

    private void fail(ConnectionEventType type, String message, Throwable cause, byte[] peerData) {
        phase = Phase.ENDED;
        if (bound) {
            // the native queue pair goes to error, and what was posted is flushed; off the device thread, since the
            // kernel's iWARP connection manager holds a disconnect until the handshake under way ended
            disconnectSent = true;
            device.peerBound().execute("rdma_disconnect of " + remote, this::disconnectQuietly);
        }
        qp.broken();
        ConnectException e = new ConnectException(type, message, peerData, cause);
        if (future != null) {
            future.completeExceptionally(e);
        } else {
            notify(new ConnectionEvent(type, qp, peerData, e));
        }
    }

    private void end(ConnectionEventType type) {
        phase = Phase.ENDED;
        qp.broken();
        notify(new ConnectionEvent(type, qp, null, null));
    }

    private void notify(ConnectionEvent event) {
        if (listener == null) {
            return;
        }
        try {
            listener.onEvent(event);
        } catch (RuntimeException e) {
            LOG.error("a connection listener threw on {}", event.type(), e);
        }
    }

    @Override
    public void onTick(long nowNanos) {
        if (nowNanos - deadline < 0) {
            return;
        }
        if (phase == Phase.RESOLVING_ADDR || phase == Phase.RESOLVING_ROUTE) {
            fail(ConnectionEventType.UNREACHABLE, "resolving " + remote + " did not finish within "
                    + resolveTimeout.toMillis() + " ms", null, null);
        } else if (phase == Phase.CONNECTING || phase == Phase.ACCEPTING) {
            fail(ConnectionEventType.CONNECT_ERROR, "the handshake with " + remote + " did not finish within "
                    + connectTimeout.toMillis() + " ms", null, null);
        }
    }

    /** The consumer's disconnect. */
    void disconnect() {
        switch (phase) {
            case ESTABLISHED:
                if (!disconnectSent) {
                    disconnectQuietly(); // DISCONNECTED follows on both sides
                }
                break;
            case RESOLVING_ADDR:
            case RESOLVING_ROUTE:
            case CONNECTING:
            case ACCEPTING:
                fail(ConnectionEventType.CONNECT_ERROR, "disconnected by the consumer before the connection was "
                        + "established", null, null);
                break;
            default:
                break;
        }
    }

    /** The device is closing: the connection ends with DEVICE_REMOVAL (or fails, if not yet established). */
    void deviceClosing() {
        if (phase == Phase.ESTABLISHED) {
            disconnectQuietly();
            end(ConnectionEventType.DEVICE_REMOVAL);
        } else if (phase != Phase.ENDED && phase != Phase.CLOSED) {
            fail(ConnectionEventType.DEVICE_REMOVAL, "the device " + device.name() + " was closed", null, null);
        }
    }

    /** Ends everything: no more events reach the listener; the native queue pair and the identifier are destroyed. */
    void close() {
        if (phase == Phase.CLOSED) {
            return;
        }
        if (phase == Phase.ESTABLISHED && !disconnectSent) {
            disconnectQuietly();
        }
        if (future != null && !future.isDone()) {
            future.completeExceptionally(new ConnectException(ConnectionEventType.CONNECT_ERROR,
                    "the queue pair was closed while connecting", null, null));
        }
        phase = Phase.CLOSED;
        closing = true;
        device.loop().unregister(id.address());
        if (everEstablished) {
            // here, in order with the events the device thread handles: over InfiniBand's CM the other end of a pair
            // in this process answers the disconnect from this thread, and the destruction waits for that answer
            destroy(device.loop().errno());
            return;
        }
        // siw destroys the queue pair and identifier of a handshake under way only once it ended; meanwhile the device
        // thread acknowledges the identifier's events, which rdma_destroy_id waits for
        device.peerBound().execute("destroying the queue pair and rdma_cm identifier of " + remote, this::destroy);
    }

    private void destroy(MemorySegment errno) {
        try {
            if (bound) {
                device.runtime().cm().destroyQp(id);
            }
        } catch (VerbsException e) {
            LOG.warn("rdma_destroy_qp failed: {}", e.getMessage());
        }
        try {
            device.runtime().cm().destroyId(id, errno);
        } catch (VerbsException e) {
            LOG.warn("rdma_destroy_id failed: {}", e.getMessage());
        }
    }

    boolean isOpen() {
        return phase != Phase.CLOSED;
    }

    private void disconnectQuietly() {
        disconnectSent = true;
        disconnectQuietly(device.loop().errno());
    }

    private void disconnectQuietly(MemorySegment errno) {
        try {
            device.runtime().cm().disconnect(id, errno);
        } catch (VerbsException e) {
            LOG.debug("rdma_disconnect: {}", e.getMessage());
        }
    }

    private static int millis(long nanos) {
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, nanos / 1_000_000));
    }
}
