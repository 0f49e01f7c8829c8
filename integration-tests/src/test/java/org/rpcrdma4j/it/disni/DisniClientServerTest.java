package org.rpcrdma4j.it.disni;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeUnix;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.xdr.XdrOpaque;
import org.dcache.oncrpc4j.xdr.XdrVoid;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.rpcrdma4j.verbs.ResourceCounts;
import org.rpcrdma4j.xprt.XprtCounter;
import org.rpcrdma4j.xprt.client.RdmaClientConfig;
import org.rpcrdma4j.xprt.client.RdmaClientTransport;
import org.rpcrdma4j.xprt.server.RdmaRpcServer;
import org.rpcrdma4j.xprt.server.ServerCounter;

/**
 * {@link RdmaRpcServer} and {@link RdmaClientTransport}, both on the {@code disni} provider, with an unmodified
 * oncrpc4j program and oncrpc4j's own {@link RpcCall}: NULL, and echoes of a small payload (inline both ways) and of
 * 1 MiB (a position-zero Read chunk the server pulls with RDMA READs, a Reply chunk it fills with RDMA WRITEs). The
 * bytes that come back are compared with those sent; the server's counters show which path each call took.
 */
@ExtendWith(DisniRun.class)
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class DisniClientServerTest {
    private static final int MIB = 1 << 20;

    private final EchoProgram echo = new EchoProgram();
    private RdmaRpcServer server;
    private RdmaClientTransport client;

    @BeforeEach
    void start() throws Exception {
        server = RdmaRpcServer.builder()
                .name("disni-echo")
                .provider("disni", DisniRun.options())
                .bindAddress(DisniRun.address())
                .port(0)
                .maxCallSize(2 * MIB)
                .maxReadChunkBytes(2 * MIB)
                .registeredMemory(64L * MIB)
                .stopTimeout(Duration.ofSeconds(10))
                .jmx(false)
                .program(new OncRpcProgram(EchoProgram.PROGRAM, EchoProgram.VERSION), echo)
                .build();
        server.start();
        client = RdmaClientTransport.connect(server.boundAddress(), RdmaClientConfig.builder()
                .provider("disni", DisniRun.options())
                .maxPayloadSize(2 * MIB)
                .defaultMaxReplySize(2 * MIB)
                .bufferPool(32L * MIB, Duration.ofSeconds(10))
                .jmx(false)
                .build());
    }

    @AfterEach
    void stop() throws Exception {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (server.connectionCount() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(server.connectionCount()).as("the server let go of the connection").isZero();
            ResourceCounts left = server.device().resourceCounts();
            server.stop();
            assertThat(left.queuePairs()).as("queue pairs left on the server's device").isZero();
        }
    }

    private RpcCall call() {
        return new RpcCall(EchoProgram.PROGRAM, EchoProgram.VERSION,
                new RpcAuthTypeUnix(1000, 1000, new int[] {1000}, 0, "disni-it"), client);
    }

    private static byte[] pattern(long seed, int n) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    private byte[] echo(byte[] data) throws Exception {
        XdrOpaque result = new XdrOpaque();
        call().call(EchoProgram.ECHO, new XdrOpaque(data), result, 120, TimeUnit.SECONDS);
        return result.getOpaque();
    }

    @Test
    void nullCallIsAnswered() throws Exception {
        call().call(EchoProgram.NULL, XdrVoid.XDR_VOID, XdrVoid.XDR_VOID, 60, TimeUnit.SECONDS);
        call().call(EchoProgram.NULL, XdrVoid.XDR_VOID, XdrVoid.XDR_VOID, 60, TimeUnit.SECONDS);
        assertThat(echo.nulls.get()).isEqualTo(2);
        assertThat(server.counters().get(ServerCounter.REPLIES)).isEqualTo(2);
        assertThat(server.counters().get(ServerCounter.CONNECTIONS_ACCEPTED)).isEqualTo(1);
    }

    @Test
    void smallPayloadsComeBackByteForByteInline() throws Exception {
        for (int n : new int[] {0, 1, 3, 100, 900}) {
            byte[] data = pattern(n, n);
            assertThat(echo(data)).as("echo of %d bytes", n).isEqualTo(data);
        }
        assertThat(echo.echoes.get()).isEqualTo(5);
        assertThat(server.counters().get(ServerCounter.INLINE_REPLIES)).isEqualTo(5);
        assertThat(server.counters().get(ServerCounter.RDMA_READS)).isZero();
    }

    @Test
    void oneMebibyteGoesOutInAReadChunkAndComesBackInAReplyChunk() throws Exception {
        for (int round = 0; round < 3; round++) {
            byte[] data = pattern(1000 + round, MIB);
            byte[] back = echo(data);
            assertThat(back.length).isEqualTo(MIB);
            assertThat(back).as("round %d", round).isEqualTo(data);
        }
        assertThat(server.counters().get(ServerCounter.READ_CHUNK_BYTES)).as("bytes pulled with RDMA READ")
                .isGreaterThanOrEqualTo(3L * MIB);
        assertThat(server.counters().get(ServerCounter.RDMA_READS)).isPositive();
        assertThat(server.counters().get(ServerCounter.REPLY_CHUNKS)).isEqualTo(3);
        assertThat(server.counters().get(ServerCounter.REPLY_CHUNK_BYTES)).isGreaterThanOrEqualTo(3L * MIB);
        assertThat(server.counters().get(ServerCounter.RDMA_WRITES)).isPositive();
        assertThat(client.stats().get(XprtCounter.REPLY_CHUNK_COUNT)).isEqualTo(3);
    }

    @Test
    void smallAndLargeCallsInterleaveOnOneConnection() throws Exception {
        for (int round = 0; round < 4; round++) {
            byte[] small = pattern(round, 200);
            byte[] large = pattern(round + 50, MIB - 4096 * round - 7);
            assertThat(echo(large)).as("large, round %d", round).isEqualTo(large);
            assertThat(echo(small)).as("small, round %d", round).isEqualTo(small);
        }
        assertThat(echo.echoes.get()).isEqualTo(8);
        assertThat(server.counters().get(ServerCounter.CONNECTIONS_ACCEPTED)).isEqualTo(1);
    }
}
