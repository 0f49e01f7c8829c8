package org.rpcrdma4j.nfs.server.rdma;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.SetAttributes;
import org.rpcrdma4j.nfs.StableHow;
import org.rpcrdma4j.nfs.client.NfsClient;
import org.rpcrdma4j.nfs.client.NfsClientConfig;
import org.rpcrdma4j.nfs.client.rdma.RdmaDataTransportFactory;
import org.rpcrdma4j.nfs.server.NfsServer;
import org.rpcrdma4j.nfs.vfs.BlockMemory;
import org.rpcrdma4j.nfs.vfs.MemoryVfs;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.RdmaProviders;
import org.rpcrdma4j.verbs.ResourceCounts;
import org.rpcrdma4j.xprt.client.RdmaClientConfig;
import org.rpcrdma4j.xprt.server.ServerCounter;

/**
 * A {@link MemoryVfs} whose blocks live in the RDMA server's registered memory lends them to READs: the data reaches
 * the client byte for byte over RDMA (RDMA WRITE straight from the file's blocks, counted as zero-copy; a hole's zeros
 * are copied) and over TCP (a gathering write of the same blocks), and every block goes back once the file is removed
 * and the replies that carried it have completed.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NfsRdmaServerLendingTest {
    private final AtomicReference<NfsRdmaServer> serverRef = new AtomicReference<>();
    private final AtomicInteger blocksOut = new AtomicInteger();
    private MemoryVfs vfs;
    private RdmaDevice clientDevice;
    private NfsRdmaServer server;
    private RdmaDataTransportFactory factory;

    /** Blocks from the server's registered pool, counted. */
    private final class ServerBlocks implements BlockMemory {
        @Override
        public io.netty.buffer.ByteBuf allocate(int size) {
            io.netty.buffer.ByteBuf b = serverRef.get().rdma().bufferAllocator().allocate(size);
            assertThat(serverRef.get().rdma().bufferAllocator().isRegistered(b)).isTrue();
            blocksOut.incrementAndGet();
            return org.rpcrdma4j.nfs.WatchedBuffer.over(b.nioBuffer(0, size), () -> {
                blocksOut.decrementAndGet();
                b.release();
            });
        }

        @Override
        public boolean lends() {
            return true;
        }
    }

    @BeforeEach
    void start() throws Exception {
        vfs = new MemoryVfs(64L << 20, new ServerBlocks());
        server = NfsRdmaServer.start(
                NfsServer.builder().bindAddress("127.0.0.1").port(0).export("/m", vfs),
                org.rpcrdma4j.xprt.server.RdmaRpcServer.builder().bindAddress(InetAddress.getLoopbackAddress())
                        .port(0).provider("soft", Map.of()).jmx(false));
        serverRef.set(server);
        clientDevice = RdmaProviders.select("soft").open(Map.of());
        factory = new RdmaDataTransportFactory(RdmaClientConfig.builder().device(clientDevice).jmx(false).build());
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
        vfs.close();
        assertThat(clientDevice.resourceCounts()).isEqualTo(ResourceCounts.NONE);
        clientDevice.close();
    }

    private static byte[] pattern(int seed, int n) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static byte[] read(NfsClient client, FileHandle fh, long offset, int count) throws Exception {
        ByteBuf sink = Unpooled.buffer(count);
        int n = client.read(fh, offset, sink).count();
        byte[] out = new byte[n];
        sink.getBytes(0, out);
        return out;
    }

    @Test
    void lentBlocksReachTheClientOverRdmaAndTcpAndGoBackWhenTheFileIsRemoved() throws Exception {
        byte[] data = pattern(11, (1 << 20) + 70_000);
        long holeAt = 2L << 20; // a hole from the end of the data to here, then 5000 bytes
        byte[] far = pattern(12, 5000);
        byte[] expected = new byte[(int) holeAt + far.length];
        System.arraycopy(data, 0, expected, 0, data.length);
        System.arraycopy(far, 0, expected, (int) holeAt, far.length);
        String rdmaUrl = "rdma://127.0.0.1:" + server.rdmaPort() + "/m?mountport=" + server.tcpPort();
        try (NfsClient client = NfsClient.mount(rdmaUrl, NfsClientConfig.defaults().withTransportFactory(factory))) {
            FileHandle fh = client.createFile("/f");
            client.write(fh, 0, Unpooled.wrappedBuffer(data, 0, 1 << 20), StableHow.FILE_SYNC);
            client.write(fh, 1 << 20, Unpooled.wrappedBuffer(data, 1 << 20, data.length - (1 << 20)),
                    StableHow.FILE_SYNC);
            client.write(fh, holeAt, Unpooled.wrappedBuffer(far), StableHow.FILE_SYNC);
            Map<ServerCounter, Long> before = server.rdma().counters();

            byte[] first = read(client, fh, 0, 1 << 20);
            assertThat(first).isEqualTo(Arrays.copyOf(expected, 1 << 20));
            Map<ServerCounter, Long> afterData = server.rdma().counters();
            assertThat(afterData.get(ServerCounter.ZERO_COPY_BYTES) - before.get(ServerCounter.ZERO_COPY_BYTES))
                    .as("the READ went out of the file's own blocks").isEqualTo(1 << 20);
            assertThat(afterData.get(ServerCounter.COPIED_REPLY_BYTES)
                    - before.get(ServerCounter.COPIED_REPLY_BYTES)).isZero();

            // across the end of the data, the hole and the far bytes
            assertThat(read(client, fh, 1 << 20, 1 << 20)).isEqualTo(Arrays.copyOfRange(expected, 1 << 20,
                    2 << 20));
            assertThat(read(client, fh, 2 << 20, 1 << 20)).isEqualTo(Arrays.copyOfRange(expected, 2 << 20,
                    expected.length));
            assertThat(server.rdma().counters().get(ServerCounter.COPIED_REPLY_BYTES)
                    - before.get(ServerCounter.COPIED_REPLY_BYTES)).as("the hole's zeros are copied")
                    .isPositive();

            // a READ at an unaligned offset, then the file is overwritten: later READs see the new bytes
            assertThat(read(client, fh, 12_345, 300_000)).isEqualTo(Arrays.copyOfRange(expected, 12_345,
                    312_345));
            byte[] newer = pattern(13, 200_000);
            client.write(fh, 100_000, Unpooled.wrappedBuffer(newer), StableHow.UNSTABLE);
            System.arraycopy(newer, 0, expected, 100_000, newer.length);
            assertThat(read(client, fh, 0, 400_000)).isEqualTo(Arrays.copyOf(expected, 400_000));
        }
        String tcpUrl = "tcp://127.0.0.1:" + server.tcpPort() + "/m";
        try (NfsClient client = NfsClient.mount(tcpUrl)) {
            assertThat(client.readAll("/f")).isEqualTo(expected);
            FileHandle fh = client.resolve("/f");
            client.setattr(fh, SetAttributes.NONE.withSize(1000L));
            assertThat(client.readAll("/f")).isEqualTo(Arrays.copyOf(expected, 1000));
            client.remove(client.resolve("/"), "f");
        }
        assertThat(blocksOut.get()).as("every block back after the remove").isZero();
    }
}
