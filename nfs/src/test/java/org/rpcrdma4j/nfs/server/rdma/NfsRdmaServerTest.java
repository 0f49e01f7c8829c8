package org.rpcrdma4j.nfs.server.rdma;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.net.InetAddress;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.StableHow;
import org.rpcrdma4j.nfs.client.NfsClient;
import org.rpcrdma4j.nfs.client.NfsClientConfig;
import org.rpcrdma4j.nfs.client.rdma.RdmaDataTransportFactory;
import org.rpcrdma4j.nfs.server.NfsServer;
import org.rpcrdma4j.nfs.vfs.MemoryVfs;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.RdmaProviders;
import org.rpcrdma4j.verbs.ResourceCounts;
import org.rpcrdma4j.xprt.client.RdmaClientConfig;
import org.rpcrdma4j.xprt.drc.CachedProcedures;
import org.rpcrdma4j.xprt.drc.DrcConfig;
import org.rpcrdma4j.xprt.drc.DrcCounter;
import org.rpcrdma4j.xprt.drc.DuplicateRequestCache;
import org.rpcrdma4j.xprt.server.RdmaRpcServer;
import org.rpcrdma4j.xprt.server.ServerCounter;

/**
 * Our NFS client against the embedded server over RPC-over-RDMA on the software device: files written over RDMA come
 * back byte for byte over RDMA and over TCP from the same server, READ data leaves the server by RDMA WRITE straight
 * from the buffer the file was read into, and MOUNT is served over TCP.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NfsRdmaServerTest {
    private MemoryVfs vfs;
    private RdmaDevice clientDevice;
    private NfsRdmaServer server;
    private RdmaDataTransportFactory factory;

    @BeforeEach
    void start() throws Exception {
        vfs = new MemoryVfs(64L << 20);
        server = NfsRdmaServer.start(
                NfsServer.builder().bindAddress("127.0.0.1").port(0).export("/m", vfs),
                RdmaRpcServer.builder().bindAddress(InetAddress.getLoopbackAddress())
                        .port(0).provider("soft", Map.of()).keptCallMemory(32L << 20).jmx(false));
        clientDevice = RdmaProviders.select("soft").open(Map.of());
        factory = new RdmaDataTransportFactory(RdmaClientConfig.builder().device(clientDevice).jmx(false).build());
    }

    @AfterEach
    void stop() throws Exception {
        vfs.close();
        assertThat(server.rdma().keptPages()).as("the VFS gave back every call buffer it kept").isZero();
        server.close();
        assertThat(clientDevice.resourceCounts()).isEqualTo(ResourceCounts.NONE);
        clientDevice.close();
    }

    private static byte[] pattern(int seed, int n) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    /**
     * With both sides' default inline thresholds (8192), a 4 KiB WRITE and a 4 KiB READ's reply fit inline with their
     * headers: no chunk is registered and the server pulls nothing with RDMA READ, over NFSv3 and NFSv4.2 alike.
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"3", "4.2"})
    void fourKibWritesAndReadsGoInlineWithTheDefaultThresholds(String version) throws Exception {
        byte[] data = pattern(7, 4096);
        String url = "rdma://127.0.0.1:" + server.rdmaPort() + "/m?mountport=" + server.tcpPort() + "&vers=" + version;
        try (org.rpcrdma4j.nfs.client.NfsMount mount = org.rpcrdma4j.nfs.client.NfsMounts.mount(
                org.rpcrdma4j.nfs.client.NfsUrl.parse(url), NfsClientConfig.defaults().withTransportFactory(factory))) {
            FileHandle fh = mount.createFile("/small-" + version);
            org.rpcrdma4j.xprt.client.RdmaClientTransport rdma =
                    ((org.rpcrdma4j.nfs.client.rdma.RdmaDataTransport) mount.transport()).transport();
            assertThat(rdma.stats().inlineSend()).isEqualTo(8192);
            assertThat(rdma.stats().inlineReceive()).isEqualTo(8192);
            long readChunks = rdma.stats().get(org.rpcrdma4j.xprt.XprtCounter.READ_CHUNK_COUNT);
            long writeChunks = rdma.stats().get(org.rpcrdma4j.xprt.XprtCounter.WRITE_CHUNK_COUNT);
            long pulled = server.rdma().counters().get(ServerCounter.READ_CHUNK_BYTES);
            for (int i = 0; i < 8; i++) {
                mount.write(fh, (long) i * data.length, Unpooled.wrappedBuffer(data), StableHow.UNSTABLE);
            }
            for (int i = 0; i < 8; i++) {
                ByteBuf dst = Unpooled.buffer(data.length);
                mount.read(fh, (long) i * data.length, dst);
                assertThat(io.netty.buffer.ByteBufUtil.getBytes(dst)).isEqualTo(data);
                dst.release();
            }
            assertThat(rdma.stats().get(org.rpcrdma4j.xprt.XprtCounter.READ_CHUNK_COUNT) - readChunks)
                    .as("WRITEs with a Read chunk").isZero();
            assertThat(rdma.stats().get(org.rpcrdma4j.xprt.XprtCounter.WRITE_CHUNK_COUNT) - writeChunks)
                    .as("READs with a Write chunk").isZero();
            assertThat(server.rdma().counters().get(ServerCounter.READ_CHUNK_BYTES) - pulled).isZero();
        }
    }

    @Test
    void filesWrittenOverRdmaReadBackOverRdmaAndTcpWithZeroCopyReads() throws Exception {
        byte[] data = pattern(1, (3 << 20) + 8193); // the tail too large for the 8192-byte inline threshold
        String rdmaUrl = "rdma://127.0.0.1:" + server.rdmaPort() + "/m?mountport=" + server.tcpPort();
        java.nio.file.Path local = java.nio.file.Files.createTempFile("nfs-rdma", ".bin");
        java.nio.file.Path back = java.nio.file.Files.createTempFile("nfs-rdma", ".back");
        try {
            java.nio.file.Files.write(local, data);
            try (NfsClient client = NfsClient.mount(rdmaUrl, NfsClientConfig.defaults().withTransportFactory(factory))) {
                assertThat(client.upload(local, "/f")).isEqualTo(data.length);
                assertThat(client.download("/f", back)).isEqualTo(data.length);
                assertThat(java.nio.file.Files.readAllBytes(back)).isEqualTo(data);
                FileHandle fh = client.resolve("/f");
                assertThat(client.getattr(fh).size()).isEqualTo(data.length);
            }
            Map<ServerCounter, Long> c = server.rdma().counters();
            assertThat(c.get(ServerCounter.READ_CHUNK_BYTES)).as("WRITE data pulled by RDMA READ")
                    .isGreaterThanOrEqualTo(data.length);
            assertThat(c.get(ServerCounter.ZERO_COPY_BYTES)).as("READ data written from the read buffer")
                    .isGreaterThanOrEqualTo(data.length);
            assertThat(c.get(ServerCounter.COPIED_REPLY_BYTES)).isZero();

            String tcpUrl = "tcp://127.0.0.1:" + server.tcpPort() + "/m";
            try (NfsClient client = NfsClient.mount(tcpUrl)) {
                assertThat(client.readAll("/f")).isEqualTo(data);
            }
        } finally {
            java.nio.file.Files.deleteIfExists(local);
            java.nio.file.Files.deleteIfExists(back);
        }
    }

    @Test
    void aOneMibWriteIsPulledWithOneRdmaRead() throws Exception {
        byte[] data = pattern(2, 1 << 20);
        String rdmaUrl = "rdma://127.0.0.1:" + server.rdmaPort() + "/m?mountport=" + server.tcpPort();
        try (NfsClient client = NfsClient.mount(rdmaUrl, NfsClientConfig.defaults().withTransportFactory(factory))) {
            FileHandle fh = client.createFile("/w");
            for (int i = 0; i < 3; i++) {
                Map<ServerCounter, Long> before = server.rdma().counters();
                client.write(fh, (long) i << 20, Unpooled.wrappedBuffer(data),
                        StableHow.UNSTABLE);
                Map<ServerCounter, Long> after = server.rdma().counters();
                // the data lands page-aligned in the sink: 256 pages, one fast registration, one READ
                assertThat(after.get(ServerCounter.RDMA_READS) - before.get(ServerCounter.RDMA_READS))
                        .as("RDMA READs for WRITE %d", i).isEqualTo(1);
            }
            ByteBuf back = Unpooled.buffer(1 << 20);
            client.read(fh, 2L << 20, back);
            byte[] got = new byte[back.readableBytes()];
            back.getBytes(0, got);
            assertThat(got).isEqualTo(data);
        }
    }
    @Test
    void writeDataBecomesTheFilesBlocksWhereItLanded() throws Exception {
        byte[] whole = pattern(3, 1 << 20);
        byte[] ragged = pattern(4, 200_000);
        long raggedAt = (1L << 20) + 5000;
        String rdmaUrl = "rdma://127.0.0.1:" + server.rdmaPort() + "/m?mountport=" + server.tcpPort();
        try (NfsClient client = NfsClient.mount(rdmaUrl, NfsClientConfig.defaults().withTransportFactory(factory))) {
            FileHandle fh = client.createFile("/k");
            long kept = server.rdma().counters().get(ServerCounter.KEPT_CALL_BYTES);
            ByteBuf source = Unpooled.wrappedBuffer(whole.clone());
            client.write(fh, 0, source, StableHow.UNSTABLE);
            // the client's memory changing after the WRITE changes nothing in the file
            source.setZero(0, whole.length);
            long afterWhole = server.rdma().counters().get(ServerCounter.KEPT_CALL_BYTES);
            assertThat(afterWhole - kept).as("the VFS's sixteen 64 KiB blocks, kept").isEqualTo(1 << 20);

            client.write(fh, raggedAt, Unpooled.wrappedBuffer(ragged),
                    StableHow.UNSTABLE);
            assertThat(server.rdma().counters().get(ServerCounter.KEPT_CALL_BYTES) - afterWhole)
                    .as("only the two blocks the ragged WRITE covers whole").isEqualTo(2 * 64 * 1024);

            byte[] expected = new byte[(int) raggedAt + ragged.length];
            System.arraycopy(whole, 0, expected, 0, whole.length);
            System.arraycopy(ragged, 0, expected, (int) raggedAt, ragged.length);
            assertThat(client.readAll("/k")).isEqualTo(expected);
            String tcpUrl = "tcp://127.0.0.1:" + server.tcpPort() + "/m";
            try (NfsClient tcp = NfsClient.mount(tcpUrl)) {
                assertThat(tcp.readAll("/k")).isEqualTo(expected);
            }
            client.remove(client.root(), "k");
        }
        // the file let go of the call memory it kept, and the connection of everything else
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (server.rdma().registeredPagesInUse() != 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(server.rdma().registeredPagesInUse()).isZero();
    }
    @Test
    void writeDataIsKeptBehindTheDuplicateRequestCacheToo() throws Exception {
        DuplicateRequestCache drc = DuplicateRequestCache.create(CachedProcedures.nfsV3(), DrcConfig.DEFAULT);
        MemoryVfs cachedVfs = new MemoryVfs(64L << 20);
        NfsRdmaServer cached = NfsRdmaServer.start(
                NfsServer.builder().bindAddress("127.0.0.1").port(0).export("/c", cachedVfs).duplicateRequestCache(drc),
                RdmaRpcServer.builder().bindAddress(InetAddress.getLoopbackAddress())
                        .port(0).provider("soft", Map.of()).keptCallMemory(32L << 20).jmx(false));
        try {
            byte[] data = pattern(5, 1 << 20);
            String url = "rdma://127.0.0.1:" + cached.rdmaPort() + "/c?mountport=" + cached.tcpPort();
            try (NfsClient client = NfsClient.mount(url, NfsClientConfig.defaults().withTransportFactory(factory))) {
                FileHandle fh = client.createFile("/d");
                client.write(fh, 0, Unpooled.wrappedBuffer(data), StableHow.UNSTABLE);
                assertThat(client.readAll("/d")).isEqualTo(data);
            }
            assertThat(drc.counter(DrcCounter.MISSES)).as("the WRITE and CREATE went through the cache").isPositive();
            assertThat(cached.rdma().counters().get(ServerCounter.KEPT_CALL_BYTES)).isEqualTo(1 << 20);
        } finally {
            cachedVfs.close();
            assertThat(cached.rdma().keptPages()).isZero();
            cached.close();
        }
    }
}
