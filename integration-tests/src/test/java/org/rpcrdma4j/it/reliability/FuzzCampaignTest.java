package org.rpcrdma4j.it.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.codec.RpcRdmaPrivateData;
import org.rpcrdma4j.it.fault.LeakWatch;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.StableHow;
import org.rpcrdma4j.nfs.client.NfsClient;
import org.rpcrdma4j.nfs.client.NfsClientConfig;
import org.rpcrdma4j.nfs.vfs.MemoryVfs;
import org.rpcrdma4j.registration.RegisteredBuffer;
import org.rpcrdma4j.registration.RegisteredBufferPool;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.RdmaProviders;
import org.rpcrdma4j.verbs.ResourceCounts;
import org.rpcrdma4j.xprt.XprtCounter;
import org.rpcrdma4j.xprt.client.ClientCounter;
import org.rpcrdma4j.xprt.client.RdmaCall;
import org.rpcrdma4j.xprt.client.RdmaClientConfig;
import org.rpcrdma4j.xprt.client.RdmaClientStats;
import org.rpcrdma4j.xprt.client.RdmaClientTransport;
import org.rpcrdma4j.xprt.client.RdmaTransportException;
import org.rpcrdma4j.xprt.client.fake.TestProgram;
import org.rpcrdma4j.xprt.server.ServerCounter;

/**
 * Campaign 4, fuzzing the receive paths with mutated valid traffic ({@link Mutator}): half the inputs go to the
 * server, half to the client ({@code reliability.fuzz.inputs}, default 50,000 in all; {@code -Pfuzz}: 1,000,000).
 * <ul>
 * <li>Server: valid NFSv3 calls over RDMA (NULL, GETATTR, ACCESS, inline WRITE and READ, and — one in ten — a WRITE
 * whose data is a Read chunk and a READ with a Write chunk, both in the fuzzing client's registered memory) are
 * mutated and sent, eight at a time, each batch followed by a valid NULL call whose reply proves the server still
 * answers on the connection (or the connection ended, and a new one is made). No answer and no end within 10 s is a
 * hang.</li>
 * <li>Client: the {@link HostileServer} in fuzzing mode sends, before every reply, a mutated copy of it; the client
 * transport calls NULL, ECHO, GET (Write chunk) and PUT (inline and Read chunk) one at a time.</li>
 * </ul>
 * Asserted: no hang; the client's calls end with a result or a typed {@link RdmaTransportException} (never another
 * exception, never a timeout); after the fuzzing both sides serve valid traffic byte-exact; the server holds no
 * fuzzing connection and its registered pages are back; the client's pages and devices are back to empty after
 * close; Netty reports no leak.
 */
@Timeout(value = 3600, unit = TimeUnit.SECONDS)
class FuzzCampaignTest {
    private static final int INPUTS = Integer.getInteger("reliability.fuzz.inputs", 50_000);
    private static final long SEED = Long.getLong("reliability.fuzz.seed", 5666L);
    private static final Duration HANG = Duration.ofSeconds(10);
    /** Mutated calls sent before each probe. */
    private static final int BATCH = 8;

    @org.junit.jupiter.api.io.TempDir
    java.nio.file.Path dir;
    private NfsRdmaRig rig;
    private RdmaDevice fuzzDevice;
    private RdmaDevice clientDevice;
    private RdmaDevice serverDevice;
    private HostileServer hostileServer;
    private RdmaClientTransport client;
    private final MemoryVfs vfs = new MemoryVfs(64L << 20);

    @AfterEach
    void close() throws Exception {
        if (client != null) {
            client.close();
        }
        if (hostileServer != null) {
            hostileServer.close();
        }
        for (RdmaDevice d : new RdmaDevice[] {fuzzDevice, clientDevice, serverDevice}) {
            if (d != null) {
                d.close();
            }
        }
        if (rig != null) {
            rig.close();
        }
        vfs.close();
    }

    // ------------------------------------------------------------------ the server's receive path

    @Test
    void theServerSurvivesMutatedCallsAndStillServes() throws Exception {
        LeakWatch.start();
        Figures figures = new Figures("fuzz-server");
        // on disk, not in memory: a mutated WRITE offset reaches MemoryVfs's block index overflow (see
        // MemoryVfsHugeOffsetTest); the fuzzing is about the transport's receive path
        rig = new NfsRdmaRig(org.rpcrdma4j.nfs.vfs.LocalVfs.open(dir), false, Map.of(), b -> b.credits(32));
        NfsClient good = rig.mount(NfsClientConfig.defaults(), b -> b);
        FileHandle root = good.root();
        FileHandle file = good.createFile("/fuzz");
        FileHandle goodFile = good.createFile("/good");
        // the baseline before any call with a Read chunk: the server returns a call's sink when its reply's Send
        // completes, which may be after the client already has the reply (the 8192-byte WRITE below holds 3 pages)
        int idlePages = rig.rdma.registeredPagesInUse();
        good.write(file, 0, Unpooled.wrappedBuffer(TestProgram.pattern(1, 8192)), StableHow.FILE_SYNC);
        InetSocketAddress server = rig.rdma.boundAddress();
        fuzzDevice = RdmaProviders.select("soft").open(Map.of("name", "fuzz-client", "engineThreads", "1"));
        Mutator mutator = new Mutator(SEED);
        Map<String, Integer> outcomes = new TreeMap<>();
        int inputs = INPUTS / 2;
        int connections = 0;
        int sent = 0;
        byte[] pdata = RpcRdmaPrivateData.of(false, 4096, 4096).encode();
        try (HostileClient fuzz = new HostileClient(fuzzDevice)) {
            NfsCalls calls = new NfsCalls(root.toByteArray(), file.toByteArray(), fuzz.exposed.rkey(),
                    fuzz.exposed.iova());
            HostileClient.Conn conn = fuzz.connect(server, pdata);
            connections++;
            int ping = 0x50000000;
            for (int i = 0; i < inputs; i += BATCH) {
                // a batch of mutated calls (well within the 32 credits), then a valid NULL call as a probe
                for (int k = 0; k < BATCH && i + k < inputs && !conn.lost; k++) {
                    conn.send(mutator.mutate(calls.template(mutator.random())));
                    sent++;
                }
                int pingXid = ping++;
                conn.send(NfsCalls.nullCall(pingXid));
                String outcome = awaitPing(conn, pingXid);
                outcomes.merge(outcome, 1, Integer::sum);
                if (!outcome.equals("answered")) {
                    conn.close();
                    conn = fuzz.connect(server, pdata);
                    connections++;
                }
            }
            conn.close();
        }
        // the server still serves a well-behaved client, byte-exact
        byte[] data = TestProgram.pattern(2, 100_000);
        good.write(goodFile, 0, Unpooled.wrappedBuffer(data), StableHow.FILE_SYNC);
        assertThat(good.readAll("/good")).isEqualTo(data);
        NfsRdmaRig.await("only the good client's connection left", () -> rig.rdma.connectionCount() == 1);
        NfsRdmaRig.await("registered pages back", () -> rig.rdma.registeredPagesInUse() == idlePages);
        assertThat(fuzzDevice.resourceCounts()).isEqualTo(ResourceCounts.NONE);
        Map<ServerCounter, Long> counters = rig.rdma.counters();
        figures.put("inputs", sent).put("batchesOf", BATCH).put("batchOutcomes", outcomes)
                .put("connections", connections)
                .put("serverCalls", counters.get(ServerCounter.CALLS))
                .put("errVersSent", counters.get(ServerCounter.ERR_VERS_SENT))
                .put("errChunkSent", counters.get(ServerCounter.ERR_CHUNK_SENT))
                .put("droppedGarbage", counters.get(ServerCounter.DROPPED_GARBAGE))
                .put("messagesDropped", counters.get(ServerCounter.MESSAGES_DROPPED))
                .put("seed", SEED).report();
        assertThat(outcomes).doesNotContainKey("hang");
        assertThat(sent).as("mutated calls that reached a live connection").isGreaterThan(inputs / 2);
        assertThat(rig.transport.transport().stats().get(XprtCounter.RECONNECTS)).isZero();
        rig.closeAndCheck();
        assertThat(LeakWatch.leaks()).as("Netty leak reports (level %s)", LeakWatch.level()).isEmpty();
    }

    /** Reads answers until the ping's reply ("answered"), the connection's end ("disconnected") or a hang. */
    private static String awaitPing(HostileClient.Conn conn, int pingXid) throws Exception {
        long deadline = System.nanoTime() + HANG.toNanos();
        while (System.nanoTime() - deadline < 0) {
            byte[] m = conn.receive(HANG);
            if (m == null) {
                return conn.lost ? "disconnected" : "hang";
            }
            if (m.length >= 4 && ByteBuffer.wrap(m).getInt(0) == pingXid) {
                return "answered";
            }
        }
        return "hang";
    }

    // ------------------------------------------------------------------ the client's receive path

    @Test
    void theClientSurvivesMutatedRepliesAndStillWorks() throws Exception {
        LeakWatch.start();
        Figures figures = new Figures("fuzz-client");
        clientDevice = RdmaProviders.select("soft").open(Map.of("name", "fuzz-client-side", "engineThreads", "1"));
        serverDevice = RdmaProviders.select("soft").open(Map.of("name", "fuzz-server-side", "engineThreads", "1"));
        hostileServer = new HostileServer(serverDevice);
        hostileServer.probing = false;
        Mutator mutator = new Mutator(SEED + 1);
        hostileServer.mutator = mutator::mutate;
        client = RdmaClientTransport.connect(hostileServer.address(), RdmaClientConfig.builder().device(clientDevice)
                .binding(TestProgram.BINDING)
                .reconnectDelay(Duration.ofMillis(1), Duration.ofMillis(50))
                .keepAlive(Duration.ZERO, Duration.ofSeconds(1))
                .defaultCallTimeout(HANG)
                .jmx(false).build());
        Map<String, Integer> outcomes = new TreeMap<>();
        RegisteredBuffer sink = client.bufferPool().allocate(8192);
        RegisteredBuffer payload = client.bufferPool().allocate(8192);
        payload.setBytes(0, TestProgram.pattern(3, 8192));
        int inputs = INPUTS - INPUTS / 2;
        try {
            for (int i = 0; i < inputs; i++) {
                RdmaCall call = call(i, sink, payload, Unpooled.buffer(512));
                try {
                    client.call(call);
                    outcomes.merge("completed", 1, Integer::sum);
                } catch (RdmaTransportException e) {
                    outcomes.merge(e.getClass().getSimpleName(), 1, Integer::sum);
                }
            }
            hostileServer.mutator = null;
            // valid traffic afterwards: every kind, byte-exact
            for (int i = 0; i < 40; i++) {
                ByteBuf reply = Unpooled.buffer(512);
                client.call(call(i, sink, payload, reply));
                check(i, reply, sink);
            }
        } finally {
            sink.release();
            payload.release();
        }
        RdmaClientStats stats = client.stats();
        figures.put("inputs", hostileServer.mutatedSent.get()).put("calls", inputs).put("outcomes", outcomes)
                .put("badReplies", stats.get(XprtCounter.BAD_REPLY_COUNT))
                .put("unknownXidReplies", stats.get(XprtCounter.UNKNOWN_XID_REPLIES))
                .put("rdmaErrors", stats.get(XprtCounter.RDMA_ERRORS))
                .put("backchannelDropped", stats.get(ClientCounter.BACKCHANNEL_CALLS_DROPPED))
                .put("reconnects", stats.get(XprtCounter.RECONNECTS))
                .put("timeouts", stats.get(XprtCounter.TIMEOUTS))
                .put("seed", SEED + 1).report();
        assertThat(hostileServer.failure).as("the fuzzing server's own work").isNull();
        assertThat(stats.get(XprtCounter.TIMEOUTS)).as("calls that hung until their timeout").isZero();
        assertThat(hostileServer.tries()).isZero();
        assertThat(outcomes).doesNotContainKey("RdmaCallTimeoutException");
        RegisteredBufferPool pool = client.bufferPool();
        client.close();
        client = null;
        assertThat(pool.pagesInUse()).isZero();
        assertThat(clientDevice.resourceCounts()).isEqualTo(ResourceCounts.NONE);
        assertThat(LeakWatch.leaks()).as("Netty leak reports (level %s)", LeakWatch.level()).isEmpty();
    }

    private RdmaCall call(int i, RegisteredBuffer sink, RegisteredBuffer payload, ByteBuf reply) {
        int xid = client.nextXid();
        return switch (i % 5) {
            case 0 -> new RdmaCall().message(TestProgram.header(Unpooled.buffer(), xid, TestProgram.NULL))
                    .reply(reply);
            case 1 -> {
                ByteBuf m = TestProgram.header(Unpooled.buffer(), xid, TestProgram.ECHO);
                m.writeInt(100).writeBytes(TestProgram.pattern(i, 100));
                yield new RdmaCall().message(m).reply(reply);
            }
            case 2 -> new RdmaCall().message(TestProgram.header(Unpooled.buffer(), xid, TestProgram.GET)
                    .writeInt(5000).writeInt(i)).sink(sink, 0, 5000).reply(reply);
            case 3 -> new RdmaCall().message(TestProgram.header(Unpooled.buffer(), xid, TestProgram.PUT)
                    .writeInt(i).writeInt(500)).payload(payload, 0, 500).reply(reply);
            default -> new RdmaCall().message(TestProgram.header(Unpooled.buffer(), xid, TestProgram.PUT)
                    .writeInt(i).writeInt(6000)).payload(payload, 0, 6000).reply(reply);
        };
    }

    private static void check(int i, ByteBuf reply, RegisteredBuffer sink) throws Exception {
        int at = TestProgram.results(reply);
        switch (i % 5) {
            case 1 -> assertThat(HostileServerCampaignTest.bytes(reply, at + 4, 100))
                    .isEqualTo(TestProgram.pattern(i, 100));
            case 2 -> assertThat(HostileServerCampaignTest.bytes(sink, 0, 5000)).isEqualTo(TestProgram.pattern(i, 5000));
            case 3, 4 -> {
                int n = i % 5 == 3 ? 500 : 6000;
                assertThat(reply.getInt(at)).isEqualTo(n);
                assertThat(reply.getInt(at + 4)).isEqualTo((int) TestProgram.crc(TestProgram.pattern(3, 8192), 0, n));
            }
            default -> {
            }
        }
    }
}
