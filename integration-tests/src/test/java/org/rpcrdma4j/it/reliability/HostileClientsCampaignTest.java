package org.rpcrdma4j.it.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

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
import org.rpcrdma4j.nfs.client.ReadReply;
import org.rpcrdma4j.nfs.vfs.MemoryVfs;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.RdmaProviders;
import org.rpcrdma4j.verbs.ResourceCounts;
import org.rpcrdma4j.xprt.XprtCounter;
import org.rpcrdma4j.xprt.server.ServerCounter;

/**
 * Campaign 2, hostile clients against the RDMA server: while a well-behaved NFS client writes and reads back files
 * over RDMA without pause, {@code reliability.hostileClients.inputs} (default 400) hostile RPC-over-RDMA connections
 * each send one of {@link HostileMessages#KINDS} (malformed headers, hundreds of read segments, a write chunk claiming
 * billions of segments, read chunks out of bounds or of absurd length or with made-up STags, positions beyond the
 * message, DONE/ERROR from a client, garbage RPC bodies, and floods of calls far beyond the credits granted), and
 * {@code reliability.hostileClients.junk} (default 100) TCP connections send junk instead of MPA (random bytes, HTTP,
 * MPA Requests with a wrong key or an absurd private data length, a valid MPA Request followed by garbage).
 * <p>
 * Asserted: the well-behaved client never fails and every byte it reads back is right; afterwards the server still
 * accepts and serves a new connection, holds only the good client's connection, its registered pages are back to
 * what the idle good client holds, its thread count and the heap (after collection) did not grow beyond a small
 * bound, and Netty reports no leak.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class HostileClientsCampaignTest {
    private static final int INPUTS = Integer.getInteger("reliability.hostileClients.inputs", 400);
    private static final int JUNK = Integer.getInteger("reliability.hostileClients.junk", 100);
    private static final long SEED = 8166L;

    private NfsRdmaRig rig;
    private RdmaDevice hostileDevice;
    private final MemoryVfs vfs = new MemoryVfs(64L << 20);

    @AfterEach
    void close() throws Exception {
        if (rig != null) {
            rig.close();
        }
        if (hostileDevice != null) {
            hostileDevice.close();
        }
        vfs.close();
    }

    @Test
    void theServerStaysUpAndAWellBehavedClientCompletesItsWorkByteExact() throws Exception {
        LeakWatch.start();
        Figures figures = new Figures("hostile-clients");
        rig = new NfsRdmaRig(vfs, false, Map.of(), b -> b.credits(32));
        NfsClient good = rig.mount(NfsClientConfig.defaults().withCallTimeout(Duration.ofSeconds(30)),
                b -> b.maxCredits(32));
        FileHandle fh = good.createFile("/good");
        good.write(fh, 0, Unpooled.wrappedBuffer(new byte[1]), StableHow.FILE_SYNC);
        Thread.sleep(100);
        int idlePages = rig.rdma.registeredPagesInUse();
        long heapBefore = usedHeapAfterGc();
        int threadsBefore = Thread.activeCount();

        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger goodOps = new AtomicInteger();
        ExecutorService exec = Executors.newSingleThreadExecutor();
        Future<?> goodRun = exec.submit(() -> {
            Random rnd = new Random(1);
            while (!stop.get()) {
                byte[] data = new byte[1 + rnd.nextInt(100_000)];
                rnd.nextBytes(data);
                good.write(fh, 0, Unpooled.wrappedBuffer(data), StableHow.FILE_SYNC);
                ByteBuf back = Unpooled.buffer(data.length);
                ReadReply r = good.read(fh, 0, back);
                assertThat(r.count()).isEqualTo(data.length);
                byte[] got = new byte[back.readableBytes()];
                back.getBytes(back.readerIndex(), got);
                assertThat(got).isEqualTo(data);
                goodOps.addAndGet(2);
            }
            return null;
        });

        Map<String, Integer> outcomes = new TreeMap<>();
        InetSocketAddress server = rig.rdma.boundAddress();
        hostileDevice = RdmaProviders.select("soft").open(Map.of("name", "hostile-clients", "engineThreads", "1"));
        try (HostileClient hostile = new HostileClient(hostileDevice)) {
            HostileMessages messages = new HostileMessages(SEED, hostile.exposed.rkey(), hostile.exposed.iova());
            byte[] pdata = RpcRdmaPrivateData.of(false, 4096, 4096).encode();
            for (int i = 0; i < INPUTS; i++) {
                String kind = HostileMessages.KINDS[i % HostileMessages.KINDS.length];
                try (HostileClient.Conn c = hostile.connect(server, pdata)) {
                    if (kind.equals("credit-flood")) {
                        for (int k = 0; k < 200 && !c.lost; k++) {
                            c.send(HostileMessages.valid(k));
                        }
                    } else {
                        c.send(messages.build(kind));
                    }
                    HostileClient.Outcome o = c.outcome(Duration.ofMillis(200));
                    outcomes.merge(kind + ":" + o, 1, Integer::sum);
                }
                assertThat(goodRun.isDone()).as("the good client stopped early").isFalse();
            }
        }
        Map<String, Integer> junkOutcomes = new TreeMap<>();
        Random rnd = new Random(SEED);
        for (int i = 0; i < JUNK; i++) {
            junkOutcomes.merge(junk(server, i % 5, rnd), 1, Integer::sum);
        }
        stop.set(true);
        goodRun.get(60, TimeUnit.SECONDS);
        exec.shutdown();

        // the server still serves, and holds nothing for the hostile connections
        try (NfsClient fresh = NfsClient.mount("rdma://127.0.0.1:" + server.getPort() + NfsRdmaRig.EXPORT
                + "?mountport=" + rig.nfs.port(), NfsClientConfig.defaults().withTransportFactory(
                new org.rpcrdma4j.nfs.client.rdma.RdmaDataTransportFactory(
                        org.rpcrdma4j.xprt.client.RdmaClientConfig.builder().provider("soft",
                                Map.of("name", "fresh-client", "engineThreads", "1")).jmx(false).build())))) {
            assertThat(fresh.readAll("/good")).isEqualTo(good.readAll("/good"));
        }
        NfsRdmaRig.await("only the good client's connection left", () -> rig.rdma.connectionCount() == 1);
        NfsRdmaRig.await("registered pages back to the idle good client's",
                () -> rig.rdma.registeredPagesInUse() == idlePages);
        assertThat(hostileDevice.resourceCounts()).isEqualTo(ResourceCounts.NONE);
        long heapGrowth = usedHeapAfterGc() - heapBefore;
        int threadGrowth = Thread.activeCount() - threadsBefore;
        Map<ServerCounter, Long> counters = rig.rdma.counters();
        figures.put("hostileConnections", INPUTS).put("junkConnections", JUNK)
                .put("goodClientOps", goodOps.get())
                .put("goodClientReconnects", rig.transport.transport().stats().get(XprtCounter.RECONNECTS))
                .put("outcomes", outcomes).put("junkOutcomes", junkOutcomes)
                .put("serverAccepted", counters.get(ServerCounter.CONNECTIONS_ACCEPTED))
                .put("serverRejected", counters.get(ServerCounter.CONNECTIONS_REJECTED))
                .put("errVersSent", counters.get(ServerCounter.ERR_VERS_SENT))
                .put("errChunkSent", counters.get(ServerCounter.ERR_CHUNK_SENT))
                .put("droppedGarbage", counters.get(ServerCounter.DROPPED_GARBAGE))
                .put("droppedCreditViolation", counters.get(ServerCounter.DROPPED_CREDIT_VIOLATION))
                .put("droppedReadFailed", counters.get(ServerCounter.DROPPED_READ_FAILED))
                .put("heapGrowthKiB", heapGrowth / 1024).put("threadGrowth", threadGrowth)
                .report();
        assertThat(goodOps.get()).as("the good client worked all along").isPositive();
        assertThat(rig.transport.transport().stats().get(XprtCounter.RECONNECTS)).isZero();
        assertThat(heapGrowth).as("heap growth after collection").isLessThan(64L << 20);
        assertThat(threadGrowth).as("thread growth").isLessThan(16);
        rig.closeAndCheck();
        assertThat(LeakWatch.leaks()).as("Netty leak reports (level %s)", LeakWatch.level()).isEmpty();
    }

    /** One TCP connection speaking junk instead of MPA; returns what the server did. */
    private static String junk(InetSocketAddress server, int kind, Random rnd) throws Exception {
        byte[] bytes;
        String name;
        switch (kind) {
            case 0 -> {
                name = "random";
                bytes = new byte[1 + rnd.nextInt(4096)];
                rnd.nextBytes(bytes);
            }
            case 1 -> {
                name = "http";
                bytes = "GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
            }
            case 2 -> {
                name = "mpa-wrong-key";
                bytes = mpaRequest("MPA ID Req Frbme", 0);
            }
            case 3 -> {
                name = "mpa-absurd-pdata-length";
                bytes = Arrays.copyOf(mpaRequest("MPA ID Req Frame", 0xFFFF), 20 + 100);
            }
            default -> {
                name = "mpa-then-garbage";
                byte[] req = mpaRequest("MPA ID Req Frame", 0);
                byte[] garbage = new byte[2000];
                rnd.nextBytes(garbage);
                bytes = Arrays.copyOf(req, req.length + garbage.length);
                System.arraycopy(garbage, 0, bytes, req.length, garbage.length);
            }
        }
        try (Socket s = new Socket()) {
            s.connect(server, 10_000);
            s.setSoTimeout(1000);
            OutputStream out = s.getOutputStream();
            InputStream in = s.getInputStream();
            try {
                out.write(bytes);
                out.flush();
            } catch (java.io.IOException e) {
                return name + ":closed";
            }
            byte[] buf = new byte[4096];
            try {
                while (in.read(buf) >= 0) {
                    // drain whatever the server says (an MPA Reply with the reject bit, at most)
                }
                return name + ":closed";
            } catch (SocketTimeoutException e) {
                return name + ":open-after-1s";
            } catch (java.io.IOException e) {
                return name + ":reset";
            }
        }
    }

    /** An MPA Request header (rev 2, no flags) with {@code key} and a private data length field. */
    private static byte[] mpaRequest(String key, int pdLength) {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(20);
        b.put(key.getBytes(StandardCharsets.US_ASCII));
        b.put((byte) 0).put((byte) 2).putShort((short) pdLength);
        return b.array();
    }

    private static long usedHeapAfterGc() throws InterruptedException {
        Runtime rt = Runtime.getRuntime();
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(30);
        }
        return rt.totalMemory() - rt.freeMemory();
    }
}
