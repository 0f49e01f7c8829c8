package org.rpcrdma4j.it.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.it.fault.LeakWatch;
import org.rpcrdma4j.registration.RegisteredBuffer;
import org.rpcrdma4j.registration.RegisteredBufferPool;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.RdmaProviders;
import org.rpcrdma4j.verbs.ResourceCounts;
import org.rpcrdma4j.verbs.WcStatus;
import org.rpcrdma4j.xprt.XprtCounter;
import org.rpcrdma4j.xprt.client.RdmaCall;
import org.rpcrdma4j.xprt.client.RdmaClientConfig;
import org.rpcrdma4j.xprt.client.RdmaClientStats;
import org.rpcrdma4j.xprt.client.RdmaClientTransport;
import org.rpcrdma4j.xprt.client.fake.TestProgram;

/**
 * Campaign 1, the hostile server ({@link HostileServer}): after every completed call it tries an RDMA READ or an
 * RDMA WRITE with a handle some earlier call exposed. The client calls one at a time — GET (a Write chunk into the
 * caller's registered sink), PUT (a Read chunk from the caller's registered payload), ECHO (a position-zero Read chunk
 * and a Reply chunk) — checks every result byte for byte, then fills the sink with a marker and checks, before it uses
 * that sink again, that the marker is intact: an RDMA WRITE that got through would show there.
 * <p>
 * Several client/server pairs run at once ({@code reliability.hostileServer.pairs}, default 2). Every try costs a
 * connection (the refused access is an iWARP Terminate), so the normal run makes 2,000 tries and the
 * {@code -Preliability} profile 10,000 ({@code reliability.hostileServer.tries}).
 * <p>
 * Asserted: 0 successful tries among at least that many tries the client's device judged, both operations tried,
 * both invalidation paths used (Send With Invalidate and Local Invalidate), every result and every marker intact, the
 * client's registered pages all back in the pool and its device empty after close, and no Netty leak report.
 */
@Timeout(value = 600, unit = TimeUnit.SECONDS)
class HostileServerCampaignTest {
    private static final int TRIES = Integer.getInteger("reliability.hostileServer.tries", 2_000);
    private static final int SINKS = 6;
    private static final int SINK_SIZE = 70_000;
    private static final byte MARKER = (byte) 0xC3;

    private static final int PAIRS = Integer.getInteger("reliability.hostileServer.pairs", 2);

    /** One client, its device, and the hostile server it talks to (on a device of its own). */
    private static final class Pair implements AutoCloseable {
        final RdmaDevice clientDevice;
        final RdmaDevice serverDevice;
        final HostileServer server;
        RdmaClientTransport client;
        int calls;
        int markerChecks;
        RdmaClientStats stats;

        Pair(int n) throws Exception {
            clientDevice = RdmaProviders.select("soft").open(Map.of("name", "hostile-client-" + n,
                    "engineThreads", "1"));
            // the hostile side's device reports refused tries as failed completions (placement confirmed), so that
            // each try is judged; the client's device has its defaults
            serverDevice = RdmaProviders.select("soft").open(Map.of("name", "hostile-server-" + n,
                    "engineThreads", "1", "confirmPlacement", "true"));
            server = new HostileServer(serverDevice);
            client = RdmaClientTransport.connect(server.address(), RdmaClientConfig.builder().device(clientDevice)
                    .binding(TestProgram.BINDING)
                    .reconnectDelay(Duration.ofMillis(1), Duration.ofMillis(50))
                    .keepAlive(Duration.ZERO, Duration.ofSeconds(1))
                    .defaultCallTimeout(Duration.ofSeconds(30))
                    .timeouts(Duration.ofSeconds(5), Duration.ofSeconds(5))
                    .name("hostile-server-client-" + n)
                    .jmx(false).build());
        }

        /** Calls until the server made {@code tries} tries; checks every result and every sink's marker. */
        void run(int tries) throws Exception {
            RegisteredBuffer[] sinks = new RegisteredBuffer[SINKS];
            for (int i = 0; i < SINKS; i++) {
                sinks[i] = client.bufferPool().allocate(SINK_SIZE);
                sinks[i].setBytes(0, filled(SINK_SIZE));
            }
            byte[] echo = TestProgram.pattern(99, 6000);
            RegisteredBuffer payload = client.bufferPool().allocate(SINK_SIZE);
            try {
                for (int k = 0; server.tries() < tries; k++) {
                    assertThat(server.failure).as("the server's own work").isNull();
                    RegisteredBuffer sink = sinks[k % SINKS];
                    assertThat(bytes(sink, 0, SINK_SIZE)).as("sink %d untouched since its call completed", k % SINKS)
                            .isEqualTo(filled(SINK_SIZE));
                    markerChecks++;
                    int count = 4000 + (k * 7919) % 60_000;
                    switch (k % 3) {
                        case 0 -> {
                            client.call(new RdmaCall().message(get(client.nextXid(), count, k)).sink(sink, 0, count)
                                    .reply(Unpooled.buffer(256)));
                            assertThat(bytes(sink, 0, count)).isEqualTo(TestProgram.pattern(k, count));
                        }
                        case 1 -> {
                            byte[] data = TestProgram.pattern(k, count);
                            payload.setBytes(0, data);
                            ByteBuf reply = Unpooled.buffer(256);
                            client.call(new RdmaCall().message(putHead(client.nextXid(), k, count))
                                    .payload(payload, 0, count).reply(reply));
                            int at = TestProgram.results(reply);
                            assertThat(reply.getInt(at)).isEqualTo(count);
                            assertThat(reply.getInt(at + 4)).isEqualTo((int) TestProgram.crc(data, 0, count));
                            assertThat(reply.getInt(at + 8)).isEqualTo(k);
                        }
                        default -> {
                            ByteBuf reply = Unpooled.buffer(8192);
                            client.call(new RdmaCall().message(echoCall(client.nextXid(), echo)).reply(reply));
                            int at = TestProgram.results(reply);
                            assertThat(reply.getInt(at)).isEqualTo(echo.length);
                            assertThat(bytes(reply, at + 4, echo.length)).isEqualTo(echo);
                        }
                    }
                    sink.setBytes(0, filled(SINK_SIZE));
                    calls++;
                }
                for (RegisteredBuffer sink : sinks) {
                    assertThat(bytes(sink, 0, SINK_SIZE)).isEqualTo(filled(SINK_SIZE));
                    markerChecks++;
                }
            } finally {
                for (RegisteredBuffer s : sinks) {
                    s.release();
                }
                payload.release();
            }
            stats = client.stats();
            RegisteredBufferPool pool = client.bufferPool();
            client.close();
            client = null;
            assertThat(pool.pagesInUse()).as("registered pages in use after close").isZero();
            assertThat(clientDevice.resourceCounts()).isEqualTo(ResourceCounts.NONE);
        }

        @Override
        public void close() {
            if (client != null) {
                client.close();
            }
            server.close();
            clientDevice.close();
            serverDevice.close();
        }
    }

    private final java.util.List<Pair> pairs = new java.util.ArrayList<>();

    @AfterEach
    void close() {
        pairs.forEach(Pair::close);
    }

    @Test
    void noRdmaReadOrWriteWithAHandleOfACompletedCallSucceeds() throws Exception {
        LeakWatch.start();
        Figures figures = new Figures("hostile-server");
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(PAIRS);
        try {
            java.util.List<java.util.concurrent.Future<?>> runs = new java.util.ArrayList<>();
            for (int i = 0; i < PAIRS; i++) {
                Pair p = new Pair(i);
                pairs.add(p);
                int share = (TRIES + PAIRS - 1) / PAIRS;
                runs.add(pool.submit(() -> {
                    p.run(share);
                    return null;
                }));
            }
            for (java.util.concurrent.Future<?> f : runs) {
                f.get(500, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        Map<WcStatus, java.util.concurrent.atomic.AtomicInteger> statuses = new EnumMap<>(WcStatus.class);
        long reads = 0, writes = 0, skipped = 0, given = 0, calls = 0, served = 0, connections = 0, marker = 0;
        long reconnects = 0, retransmits = 0, remoteInv = 0;
        for (Pair p : pairs) {
            p.server.statuses.forEach((k, v) -> statuses.computeIfAbsent(k,
                    x -> new java.util.concurrent.atomic.AtomicInteger()).addAndGet(v.get()));
            reads += p.server.readTries.get();
            writes += p.server.writeTries.get();
            skipped += p.server.skippedOpen.get();
            given += p.server.handlesGiven.get();
            served += p.server.served.get();
            connections += p.server.connections.get();
            calls += p.calls;
            marker += p.markerChecks;
            reconnects += p.stats.get(XprtCounter.RECONNECTS);
            retransmits += p.stats.get(XprtCounter.RETRANSMITS);
            remoteInv += p.stats.get(XprtCounter.REMOTE_INVALIDATIONS);
            assertThat(p.server.failure).as("the server's own work").isNull();
        }
        int successes = statuses.get(WcStatus.SUCCESS).get();
        figures.put("pairs", PAIRS).put("tries", reads + writes).put("rdmaReads", reads).put("rdmaWrites", writes)
                .put("successes", successes).put("statuses", nonZero(statuses))
                .put("openHandlesSkipped", skipped).put("handlesGiven", given)
                .put("calls", calls).put("served", served).put("connections", connections)
                .put("reconnects", reconnects).put("retransmits", retransmits)
                .put("remoteInvalidations", remoteInv).put("sinkMarkerChecks", marker)
                .report();
        assertThat(successes).as("RDMA READ/WRITE with a handle of a completed call that succeeded").isZero();
        assertThat(reads + writes).isGreaterThanOrEqualTo(TRIES);
        assertThat(reads).isPositive();
        assertThat(writes).isPositive();
        assertThat(remoteInv).as("both invalidation paths used").isPositive();
        assertThat(LeakWatch.leaks()).as("Netty leak reports (level %s)", LeakWatch.level()).isEmpty();
    }

    static Map<WcStatus, Integer> nonZero(Map<WcStatus, java.util.concurrent.atomic.AtomicInteger> counts) {
        Map<WcStatus, Integer> m = new EnumMap<>(WcStatus.class);
        counts.forEach((k, v) -> {
            if (v.get() > 0) {
                m.put(k, v.get());
            }
        });
        return m;
    }

    private static byte[] filled(int n) {
        byte[] b = new byte[n];
        java.util.Arrays.fill(b, MARKER);
        return b;
    }

    static byte[] bytes(ByteBuf b, int index, int length) {
        byte[] out = new byte[length];
        b.getBytes(index, out);
        return out;
    }

    private static ByteBuf get(int xid, int count, int seed) {
        return TestProgram.header(Unpooled.buffer(), xid, TestProgram.GET).writeInt(count).writeInt(seed);
    }

    private static ByteBuf putHead(int xid, int tag, int length) {
        return TestProgram.header(Unpooled.buffer(), xid, TestProgram.PUT).writeInt(tag).writeInt(length);
    }

    private static ByteBuf echoCall(int xid, byte[] data) {
        ByteBuf b = TestProgram.header(Unpooled.buffer(), xid, TestProgram.ECHO);
        return b.writeInt(data.length).writeBytes(data).writeZero((4 - (data.length & 3)) & 3);
    }
}
