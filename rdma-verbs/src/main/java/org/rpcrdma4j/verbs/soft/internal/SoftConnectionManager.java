package org.rpcrdma4j.verbs.soft.internal;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.rpcrdma4j.verbs.ConnectException;
import org.rpcrdma4j.verbs.ConnectParameters;
import org.rpcrdma4j.verbs.ConnectionEventType;
import org.rpcrdma4j.verbs.ConnectionInfo;
import org.rpcrdma4j.verbs.ConnectionListener;
import org.rpcrdma4j.verbs.ConnectionManager;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.RdmaListener;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * The connection manager: MPA connection setup over TCP. The active side runs an {@link ActiveHandshake} on the
 * queue pair's engine; a {@link SoftListener} accepts TCP connections and runs a {@link PassiveHandshake} for each
 * on an engine in turn.
 */
final class SoftConnectionManager implements ConnectionManager {
    /** A handshake in progress, so that closing the device can abort it. */
    interface Handshake {
        Engine engine();

        void abort(String why);
    }

    final SoftDevice device;
    private final Set<Handshake> handshakes = ConcurrentHashMap.newKeySet();
    /** Accepted connections whose passive handshake has not ended, bounded by {@code maxPendingHandshakes}. */
    private final AtomicInteger pendingPassive = new AtomicInteger();
    private final Set<SoftListener> listeners = ConcurrentHashMap.newKeySet();

    SoftConnectionManager(SoftDevice device) {
        this.device = device;
    }

    @Override
    public CompletableFuture<ConnectionInfo> connect(QueuePair queuePair, InetSocketAddress remote,
                                                     ConnectParameters parameters, ConnectionListener listener) {
        CompletableFuture<ConnectionInfo> future = new CompletableFuture<>();
        if (device.isClosed()) {
            return failed(future, ConnectionEventType.CONNECT_ERROR, "device '" + device.name() + "' is closed");
        }
        if (!(queuePair instanceof SoftQp qp) || qp.device != device) {
            return failed(future, ConnectionEventType.CONNECT_ERROR, "not a queue pair of this device: " + queuePair);
        }
        if (parameters.privateData().length > device.attributes().maxPrivateData()) {
            return failed(future, ConnectionEventType.CONNECT_ERROR, "private data of "
                    + parameters.privateData().length + " bytes exceeds " + device.attributes().maxPrivateData());
        }
        if (remote.isUnresolved()) {
            return failed(future, ConnectionEventType.UNREACHABLE, "cannot resolve " + remote.getHostString());
        }
        if (!qp.claimForConnection()) {
            return failed(future, ConnectionEventType.CONNECT_ERROR,
                    "queue pair " + qp.qpNum() + " is not an unused queue pair in INIT (" + qp.state() + ")");
        }
        ActiveHandshake handshake = new ActiveHandshake(this, qp, remote, parameters, listener, future);
        qp.engine.execute(handshake::start);
        return future;
    }

    private static CompletableFuture<ConnectionInfo> failed(CompletableFuture<ConnectionInfo> future,
                                                            ConnectionEventType type, String message) {
        future.completeExceptionally(new ConnectException(type, message, null, null));
        return future;
    }

    @Override
    public RdmaListener listen(InetSocketAddress bindAddress, ConnectionRequestHandler handler)
            throws VerbsException {
        device.checkOpen();
        ServerSocketChannel server = null;
        try {
            server = ServerSocketChannel.open();
            server.configureBlocking(false);
            server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            server.bind(bindAddress, 128);
            SoftListener listener = new SoftListener(this, server, handler, device.pickEngine());
            listeners.add(listener);
            device.listenerOpened();
            listener.start();
            return listener;
        } catch (IOException e) {
            if (server != null) {
                try {
                    server.close();
                } catch (IOException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            throw new VerbsException("cannot listen on " + bindAddress + ": " + e.getMessage(), e);
        }
    }

    void configure(SocketChannel channel) throws IOException {
        channel.configureBlocking(false);
        channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
        int size = device.options().socketBufferSize();
        if (size > 0) {
            channel.setOption(StandardSocketOptions.SO_SNDBUF, size);
            channel.setOption(StandardSocketOptions.SO_RCVBUF, size);
        }
    }

    /**
     * Takes a place for one more passive handshake; false when {@code maxPendingHandshakes} are pending already.
     * The place is given back by {@link #passiveEnded}.
     */
    boolean reservePassive() {
        int max = device.options().maxPendingHandshakes();
        for (;;) {
            int n = pendingPassive.get();
            if (n >= max) {
                return false;
            }
            if (pendingPassive.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }

    /** A passive handshake ended (accepted, rejected or closed): its place is free. */
    void passiveEnded(PassiveHandshake handshake) {
        handshakes.remove(handshake);
        releasePassive();
    }

    /** Gives back a place taken by {@link #reservePassive} for a connection that got no handshake. */
    void releasePassive() {
        pendingPassive.decrementAndGet();
    }

    void added(Handshake handshake) {
        handshakes.add(handshake);
    }

    void removed(Handshake handshake) {
        handshakes.remove(handshake);
    }

    void listenerClosed(SoftListener listener) {
        if (listeners.remove(listener)) {
            device.listenerClosed();
        }
    }

    /** Aborts the handshakes and closes the listeners of one engine (device close; on that engine). */
    void closeAll(Engine engine) {
        for (Handshake handshake : new ArrayList<>(handshakes)) {
            if (handshake.engine() == engine) {
                handshake.abort("device closed");
            }
        }
        for (SoftListener listener : new ArrayList<>(listeners)) {
            if (listener.engine == engine) {
                listener.closeOnEngine();
            }
        }
    }
}
