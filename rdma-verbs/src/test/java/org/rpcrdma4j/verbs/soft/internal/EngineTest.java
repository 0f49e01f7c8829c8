package org.rpcrdma4j.verbs.soft.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** An engine thread outlives whatever one of its handlers, tasks or timers throws, Errors included. */
@Timeout(60)
class EngineTest {

    /** A handler whose every readiness event throws an Error. */
    private static final class FailingHandler implements Engine.Handler {
        final CompletableFuture<Throwable> failure = new CompletableFuture<>();
        SelectionKey key;

        @Override
        public void onReady(SelectionKey readyKey) {
            throw new AssertionError("a handler's own failure");
        }

        @Override
        public void onFailure(Throwable cause) {
            key.cancel(); // what a queue pair does: it ends its connection
            failure.complete(cause);
        }
    }

    @Test
    void anErrorInAHandlerFailsThatHandlerAndTheEngineGoesOn() throws Exception {
        Engine engine = new Engine("engine-test", 0);
        engine.start();
        try (ServerSocketChannel server = ServerSocketChannel.open()
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
             SocketChannel client = SocketChannel.open(server.getLocalAddress());
             SocketChannel accepted = server.accept()) {
            accepted.configureBlocking(false);
            FailingHandler handler = new FailingHandler();
            CompletableFuture<Void> registered = new CompletableFuture<>();
            engine.execute(() -> {
                try {
                    handler.key = accepted.register(engine.selector, SelectionKey.OP_READ, handler);
                    registered.complete(null);
                } catch (IOException e) {
                    registered.completeExceptionally(e);
                }
            });
            registered.get(30, TimeUnit.SECONDS);
            client.write(ByteBuffer.wrap(new byte[] {1}));
            assertThat(handler.failure.get(30, TimeUnit.SECONDS)).isInstanceOf(AssertionError.class);

            engine.execute(() -> {
                throw new AssertionError("a task's own failure");
            });
            CompletableFuture<Boolean> later = new CompletableFuture<>();
            engine.execute(() -> later.complete(engine.isEngineThread()));
            assertThat(later.get(30, TimeUnit.SECONDS)).as("a task after the failures ran on the engine").isTrue();
        } finally {
            engine.stop();
        }
    }
}
