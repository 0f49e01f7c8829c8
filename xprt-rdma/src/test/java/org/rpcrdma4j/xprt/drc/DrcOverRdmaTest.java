package org.rpcrdma4j.xprt.drc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rpcrdma4j.xprt.drc.DrcOverTcpTest.awaitCounter;

import java.io.IOException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.xprt.client.RdmaClientConfig;
import org.rpcrdma4j.xprt.client.RdmaClientTransport;
import org.rpcrdma4j.xprt.server.RdmaRpcServer;
import org.rpcrdma4j.xprt.server.ServerCounter;
import org.rpcrdma4j.xprt.TestDevices;

/**
 * The cache in front of a program served by the RDMA server, with the project's RDMA client, which after losing its
 * connection resends every unanswered call with the same xid on a new one. The connection runs through a
 * {@link TcpProxy} (the software device carries each queue pair over one TCP connection) that the test cuts after the
 * server executed the call: the client gets the original reply on its new connection, through the new call's write
 * chunk when the result is DDP-eligible, and the program ran once.
 */
@Timeout(120)
class DrcOverRdmaTest {
    private static final AtomicInteger SERVERS = new AtomicInteger();

    private final LedgerProgram ledger = new LedgerProgram();
    private final DuplicateRequestCache drc = DuplicateRequestCache.create(CachedProcedures.of(LedgerProgram.PROGRAM,
            LedgerProgram.VERSION, LedgerProgram.APPEND, LedgerProgram.SLOW_APPEND, LedgerProgram.BLOB),
            DrcConfig.builder().maxReplyBytes(16 * 1024).build());
    private final ExecutorService callers = Executors.newCachedThreadPool();
    private RdmaRpcServer server;
    private TcpProxy proxy;
    private RdmaClientTransport client;
    private ReplyHold hold;

    /** Serves {@code program} (through the builder's cache option when asked), behind a proxy, and connects. */
    private void start(RpcDispatchable program, boolean cacheOption) throws IOException {
        TestDevices.assumeSoft("a TCP proxy in the connection's path: the software device's iWARP runs over TCP");
        RdmaRpcServer.Builder b = RdmaRpcServer.builder()
                .name("drc-rdma-" + SERVERS.incrementAndGet())
                .provider(TestDevices.PROVIDER, TestDevices.options(Map.of("name", "drc-server", "engineThreads", "1")))
                .bindAddress(TestDevices.address())
                .port(0)
                .stopTimeout(Duration.ofSeconds(5))
                .jmx(false)
                .program(new OncRpcProgram(LedgerProgram.PROGRAM, LedgerProgram.VERSION), program)
                .binding(new LedgerBinding());
        if (cacheOption) {
            b.duplicateRequestCache(drc);
        }
        server = b.build();
        server.start();
        proxy = new TcpProxy(server.boundAddress());
        client = RdmaClientTransport.connect(proxy.address(), RdmaClientConfig.builder()
                .provider(TestDevices.PROVIDER, TestDevices.options(Map.of("name", "drc-client", "engineThreads", "1")))
                .binding(new LedgerBinding())
                .jmx(false)
                .build());
    }

    @AfterEach
    void stop() throws Exception {
        ledger.openGate();
        if (hold != null) {
            hold.release();
        }
        if (client != null) {
            client.close();
        }
        if (server != null) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (server.connectionCount() > 0 || server.registeredPagesInUse() > 0) {
                assertThat(System.nanoTime() - deadline).as("the server let go of every connection and buffer")
                        .isNegative();
                Thread.sleep(5);
            }
            server.stop();
        }
        if (proxy != null) {
            proxy.close();
        }
        callers.shutdownNow();
    }

    /** Calls {@code procedure} with oncrpc4j's RpcCall over the RDMA client, on another thread. */
    private Future<Raw> call(int procedure, XdrAble args) {
        return callers.submit(() -> {
            Raw result = new Raw();
            new RpcCall(LedgerProgram.PROGRAM, LedgerProgram.VERSION, Calls.unix(1000), client)
                    .call(procedure, args, result, 60, TimeUnit.SECONDS);
            return result;
        });
    }

    private static byte[] results(byte[] reply) {
        return Arrays.copyOfRange(reply, Calls.REPLY_HEADER, reply.length);
    }

    @Test
    void aCallWhoseReplyWasLostWithTheConnectionGetsTheOriginalReplyAfterTheReconnect() throws Exception {
        hold = new ReplyHold(drc.wrap(ledger), p -> p == LedgerProgram.APPEND);
        start(hold, false);
        Future<Raw> pending = call(LedgerProgram.APPEND, LedgerProgram.name("a"));
        byte[] held = hold.awaitHeld();
        proxy.dropAll();
        Raw result = pending.get(60, TimeUnit.SECONDS);
        assertThat(result.bytes).isEqualTo(results(held));
        assertThat(Calls.intAt(result.bytes, 0)).as("count").isEqualTo(1);
        assertThat(proxy.accepted()).as("connections").isEqualTo(2);
        assertThat(ledger.executions()).isEqualTo(1);
        assertThat(ledger.count("a")).isEqualTo(1);
        assertThat(drc.counter(DrcCounter.HITS)).isEqualTo(1);
    }

    @Test
    void aCachedDdpResultIsWrittenIntoTheRetransmissionsOwnWriteChunk() throws Exception {
        hold = new ReplyHold(drc.wrap(ledger), p -> p == LedgerProgram.BLOB);
        start(hold, false);
        long writeChunkBytes = server.counters().get(ServerCounter.WRITE_CHUNK_BYTES);
        Future<Raw> pending = call(LedgerProgram.BLOB, new LedgerProgram.Ints(8000, 5));
        byte[] held = hold.awaitHeld();
        proxy.dropAll();
        Raw result = pending.get(60, TimeUnit.SECONDS);
        assertThat(result.bytes).hasSize(4 + 8000).isEqualTo(results(held));
        assertThat(Calls.intAt(result.bytes, 4)).as("serial of the only execution").isEqualTo(1);
        // the lost reply never went out; the replay did, by RDMA WRITE into the new call's write chunk
        assertThat(server.counters().get(ServerCounter.WRITE_CHUNK_BYTES) - writeChunkBytes).isEqualTo(8000);
        assertThat(ledger.executions()).isEqualTo(1);
        assertThat(drc.counter(DrcCounter.HITS)).isEqualTo(1);
    }

    @Test
    void aRetransmissionAfterAReconnectWhileTheCallStillRunsGetsItsReply() throws Exception {
        CountDownLatch entered = ledger.closeGate();
        start(ledger, true); // the server builder's option puts the cache in front
        Future<Raw> pending = call(LedgerProgram.SLOW_APPEND, LedgerProgram.name("s"));
        assertThat(entered.await(30, TimeUnit.SECONDS)).isTrue();
        proxy.dropAll();
        awaitCounter(() -> drc.counter(DrcCounter.IN_PROGRESS_WAITS), 1);
        ledger.openGate();
        Raw result = pending.get(60, TimeUnit.SECONDS);
        assertThat(Calls.intAt(result.bytes, 0)).as("count").isEqualTo(1);
        assertThat(proxy.accepted()).isEqualTo(2);
        assertThat(ledger.executions()).isEqualTo(1);
        assertThat(ledger.count("s")).isEqualTo(1);
        // and an idempotent call went past the cache
        Raw count = call(LedgerProgram.COUNT, LedgerProgram.name("s")).get(60, TimeUnit.SECONDS);
        assertThat(Calls.intAt(count.bytes, 0)).isEqualTo(1);
        assertThat(drc.counter(DrcCounter.NOT_CACHED)).isEqualTo(1);
    }

    /** A result kept as the bytes it arrived as. */
    static final class Raw implements XdrAble {
        byte[] bytes;

        @Override
        public void xdrDecode(XdrDecodingStream xdr) {
            bytes = Calls.bytes((Xdr) xdr);
        }

        @Override
        public void xdrEncode(XdrEncodingStream xdr) {
            throw new UnsupportedOperationException();
        }
    }
}
