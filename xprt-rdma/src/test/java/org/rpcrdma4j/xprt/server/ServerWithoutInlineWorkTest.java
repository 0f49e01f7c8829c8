package org.rpcrdma4j.xprt.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.xprt.client.RdmaClientConfig;
import org.rpcrdma4j.xprt.client.RdmaClientTransport;
import org.rpcrdma4j.xprt.TestDevices;

/** With {@code inlineAgentWork(false)} on both sides, every piece of a connection's work is its agent thread's. */
@Timeout(60)
class ServerWithoutInlineWorkTest extends ServerFixture {

    @Override
    void configure(RdmaRpcServer.Builder builder) {
        builder.inlineAgentWork(false);
    }

    @Test
    void callsAreAnsweredWithoutInlineRounds() throws Exception {
        try (RdmaClientTransport rdma = RdmaClientTransport.connect(address, RdmaClientConfig.builder()
                .provider(TestDevices.PROVIDER, TestDevices.options(Map.of("name", "no-inline-client", "engineThreads", "1")))
                .binding(new EchoBinding()).inlineAgentWork(false).jmx(false).build())) {
            for (int size : new int[] {1, 333, 4000, 100 * 1024}) {
                EchoProgram.Opaque args = new EchoProgram.Opaque();
                args.bytes = EchoProgram.pattern(size, size);
                EchoProgram.Opaque result = new EchoProgram.Opaque();
                new RpcCall(EchoProgram.PROGRAM, EchoProgram.VERSION, new RpcAuthTypeNone(), rdma)
                        .call(EchoProgram.ECHO, args, result, 30, TimeUnit.SECONDS);
                assertThat(result.bytes).isEqualTo(args.bytes);
            }
            assertThat(rdma.stats().get(org.rpcrdma4j.xprt.client.ClientCounter.INLINE_SENDS)).isZero();
        }
        assertThat(counter(ServerCounter.INLINE_ROUNDS)).isZero();
    }
}
