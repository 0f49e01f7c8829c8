package org.rpcrdma4j.verbs.soft.internal;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.SelectionKey;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.rpcrdma4j.verbs.ConnectionManager.ConnectionRequestHandler;
import org.rpcrdma4j.verbs.RdmaListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A listening TCP socket. Each accepted connection gets a {@link PassiveHandshake} on an engine in turn; whatever
 * happens to it (junk, a bare connect, a timeout) closes that socket only.
 * <p>
 * At most {@code maxPendingHandshakes} accepted connections of the device wait for their handshake to end; one
 * accepted beyond that is closed at once. When accepting fails (no file descriptor left, say) the listener stops
 * accepting for {@value #ACCEPT_BACKOFF_MILLIS} ms, instead of finding the connection waiting again at once and
 * failing again in a loop.
 */
final class SoftListener implements RdmaListener, Engine.Handler {
    private static final Logger LOG = LoggerFactory.getLogger(SoftListener.class);
    /** How long the listener stops accepting after an accept failed. */
    static final long ACCEPT_BACKOFF_MILLIS = 500;
    /** Connections refused for the handshake bound are logged at WARN once in this many. */
    private static final int REFUSALS_PER_WARNING = 1000;

    final Engine engine;
    private final SoftConnectionManager cm;
    private final ServerSocketChannel server;
    private final ConnectionRequestHandler handler;
    private final InetSocketAddress localAddress;
    private SelectionKey key;
    private boolean closed;
    private Engine.Timer backoff;
    private long refused;

    SoftListener(SoftConnectionManager cm, ServerSocketChannel server, ConnectionRequestHandler handler,
                 Engine engine) throws IOException {
        this.cm = cm;
        this.server = server;
        this.handler = handler;
        this.engine = engine;
        this.localAddress = (InetSocketAddress) server.getLocalAddress();
    }

    void start() {
        engine.execute(() -> {
            try {
                if (!closed) {
                    key = server.register(engine.selector, SelectionKey.OP_ACCEPT, this);
                }
            } catch (IOException e) {
                LOG.warn("listener on {} cannot register", localAddress, e);
                closeOnEngine();
            }
        });
    }

    @Override
    public InetSocketAddress localAddress() {
        return localAddress;
    }

    @Override
    public void onReady(SelectionKey readyKey) throws IOException {
        for (int i = 0; i < 64; i++) {
            SocketChannel channel;
            try {
                channel = server.accept();
            } catch (IOException e) {
                backOff(e);
                return;
            }
            if (channel == null) {
                return;
            }
            if (!cm.reservePassive()) {
                refuse(channel);
                continue;
            }
            try {
                cm.configure(channel);
            } catch (IOException e) {
                LOG.debug("accepted socket cannot be configured", e);
                channel.close();
                cm.releasePassive();
                continue;
            }
            Engine target = cm.device.pickEngine();
            PassiveHandshake handshake = new PassiveHandshake(cm, channel, handler, target);
            target.execute(handshake::start);
        }
    }

    /** Accepting failed: no accepting for a while (the failed connection stays queued, its key ready). */
    private void backOff(IOException e) {
        LOG.warn("listener on {} failed to accept; accepting again in {} ms", localAddress, ACCEPT_BACKOFF_MILLIS, e);
        if (key == null || !key.isValid() || backoff != null) {
            return;
        }
        key.interestOps(0);
        backoff = engine.timer(TimeUnit.MILLISECONDS.toNanos(ACCEPT_BACKOFF_MILLIS), () -> {
            backoff = null;
            if (!closed && key.isValid()) {
                key.interestOps(SelectionKey.OP_ACCEPT);
            }
        });
    }

    /** Closes a connection accepted beyond {@code maxPendingHandshakes}. */
    private void refuse(SocketChannel channel) {
        if (refused++ % REFUSALS_PER_WARNING == 0) {
            LOG.warn("listener on {}: {} connections wait for their MPA handshake; closing new ones ({} so far)",
                    localAddress, cm.device.options().maxPendingHandshakes(), refused);
        }
        try {
            channel.close();
        } catch (IOException e) {
            LOG.debug("closing a refused connection", e);
        }
    }

    @Override
    public void onFailure(Throwable cause) {
        LOG.warn("listener on {} failed to accept", localAddress, cause);
    }

    @Override
    public void close() {
        CompletableFuture<Void> done = new CompletableFuture<>();
        engine.execute(() -> {
            closeOnEngine();
            done.complete(null);
        });
        if (!Engine.onAnyEngine() && !engine.inEngine() && !cm.device.isClosed()) {
            try {
                done.get(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException e) {
                LOG.warn("listener on {} did not close in time", localAddress, e);
            }
        }
        if (cm.device.isClosed()) {
            cm.listenerClosed(this);
        }
    }

    /** Closes the socket and releases the port (engine thread). Idempotent. */
    void closeOnEngine() {
        if (closed) {
            return;
        }
        closed = true;
        if (backoff != null) {
            backoff.cancel();
            backoff = null;
        }
        if (key != null) {
            key.cancel();
        }
        try {
            server.close();
            engine.flushCancelledKeys();
        } catch (IOException e) {
            LOG.debug("closing listener on {}", localAddress, e);
        }
        cm.listenerClosed(this);
    }

    @Override
    public String toString() {
        return "SoftListener[" + localAddress + "]";
    }
}
