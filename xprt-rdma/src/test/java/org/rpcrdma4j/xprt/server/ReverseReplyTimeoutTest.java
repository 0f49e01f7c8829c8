package org.rpcrdma4j.xprt.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.EOFException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.xdr.XdrOpaque;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.xprt.client.RdmaClientConfig;
import org.rpcrdma4j.xprt.client.RdmaClientTransport;
import org.rpcrdma4j.xprt.TestDevices;

/**
 * A reverse-direction call the client never answers does not hold the connection's reverse credits forever: after the
 * server's reverse reply timeout the connection is dropped, the waiting callback fails with an
 * {@link EOFException}, and the client's forward call, sent again on the new connection, is served.
 */
@Timeout(120)
class ReverseReplyTimeoutTest extends ServerFixture {
    private final CallbackPrograms.Server serverProgram = new CallbackPrograms.Server();

    @Override
    void configure(RdmaRpcServer.Builder builder) {
        builder.program(new OncRpcProgram(CallbackPrograms.SERVER_PROGRAM, CallbackPrograms.VERSION), serverProgram)
                .reverseReplyTimeout(Duration.ofSeconds(1));
    }

    @Test
    void anUnansweredCallbackDropsTheConnectionAfterTheReverseReplyTimeout() throws Exception {
        CallbackPrograms.Client client = new CallbackPrograms.Client();
        RdmaClientTransport t = RdmaClientTransport.connect(address, RdmaClientConfig.builder()
                .provider(TestDevices.PROVIDER, TestDevices.options(Map.of("name", "reverse-timeout-client", "engineThreads", "1")))
                .reconnectDelay(Duration.ofMillis(50), Duration.ofMillis(100))
                .reverseProgram(new OncRpcProgram(CallbackPrograms.CLIENT_PROGRAM, CallbackPrograms.VERSION), client)
                .jmx(false).build());
        try {
            long dropped = counter(ServerCounter.DROPPED_REVERSE_TIMEOUT);
            byte[] data = {1, 2, 3, 4, 5};
            CompletableFuture<byte[]> forward = CompletableFuture.supplyAsync(() -> {
                try {
                    XdrOpaque result = new XdrOpaque();
                    new RpcCall(CallbackPrograms.SERVER_PROGRAM, CallbackPrograms.VERSION, new RpcAuthTypeNone(), t)
                            .call(CallbackPrograms.SLOW_TRIP, new XdrOpaque(data), result, 60, TimeUnit.SECONDS);
                    return result.getOpaque();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            // the client's program sits on the callback; the server's caller would wait 60 s for it
            assertThat(client.entered.await(60, TimeUnit.SECONDS)).isTrue();
            await("the connection dropped for the unanswered callback",
                    () -> counter(ServerCounter.DROPPED_REVERSE_TIMEOUT) - dropped == 1);
            await("the server's callback failed", () -> !serverProgram.failures.isEmpty());
            assertThat(serverProgram.failures.peek()).isInstanceOf(EOFException.class);
            assertThat(forward).isNotDone();
            // the client's program answers from now on: the forward call, sent again, calls back and is served
            client.release.countDown();
            assertThat(forward.get(60, TimeUnit.SECONDS)).isEqualTo(CallbackPrograms.expectedReply(data));
            assertThat(counter(ServerCounter.DROPPED_REVERSE_TIMEOUT) - dropped).isEqualTo(1);
        } finally {
            t.close();
        }
    }
}
