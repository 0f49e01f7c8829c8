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
 */
final class SoftListener implements RdmaListener, Engine.Handler {
    private static final Logger LOG = LoggerFactory.getLogger(SoftListener.class);

    final Engine engine;
    private final SoftConnectionManager cm;
    private final ServerSocketChannel server;
    private final ConnectionRequestHandler handler;
    private final InetSocketAddress localAddress;
    private SelectionKey key;
    private boolean closed;

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
            SocketChannel channel = server.accept();
            if (channel == null) {
                return;
            }
            try {
                cm.configure(channel);
            } catch (IOException e) {
                LOG.debug("accepted socket cannot be configured", e);
                channel.close();
                continue;
            }
            Engine target = cm.device.pickEngine();
            PassiveHandshake handshake = new PassiveHandshake(cm, channel, handler, target);
            target.execute(handshake::start);
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
        if (!Engine.onAnyEngine() && !cm.device.isClosed()) {
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
