package org.rpcrdma4j.it.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.rpcrdma4j.mount.check.RandomIo;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.FsInfo;
import org.rpcrdma4j.nfs.client.NfsClientConfig;
import org.rpcrdma4j.nfs.client.NfsMount;
import org.rpcrdma4j.nfs.client.NfsMounts;
import org.rpcrdma4j.nfs.client.NfsUrl;
import org.rpcrdma4j.nfs.server.NfsServer;
import org.rpcrdma4j.nfs.server.rdma.NfsRdmaServer;
import org.rpcrdma4j.nfs.server.rdma.RdmaServerMemory;
import org.rpcrdma4j.nfs.vfs.LocalVfs;
import org.rpcrdma4j.nfs.vfs.MemoryVfs;
import org.rpcrdma4j.xprt.server.RdmaRpcServer;
import org.rpcrdma4j.xprt.server.ServerCounter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Our NFSv3 and NFSv4.x clients against our server, checked byte for byte with {@link RandomIo}: random READs and
 * WRITEs at unaligned offsets, holes, truncations, COMMITs and bursts of calls in flight, over RDMA (the software
 * device at its defaults) and over TCP, on a local directory ({@code LocalVfs}) and on an in-memory export as
 * {@code serve --memory} makes it (blocks in the RDMA server's registered memory, lent to READs; WRITE blocks kept
 * where the server pulled them). Afterwards the file in the server's file system, and what a fresh mount reads back,
 * must equal the copy {@link RandomIo} kept. {@code -Drandomio.ops=N} and {@code -Drandomio.seed=S} run longer or
 * other sequences (a failure names its seed).
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class OurClientsRandomIoTest {
    private static final Logger LOG = LoggerFactory.getLogger(OurClientsRandomIoTest.class);
    static final int OPS = Integer.getInteger("randomio.ops", 2000);
    static final long SEED = Long.getLong("randomio.seed", 20261207L);
    /** The largest the file grows (holes included). */
    static final int MAX_SIZE = 3 << 20;
    private static final int MEMORY_BLOCK = 64 * 1024;

    @TempDir
    static Path root;
    private static LocalVfs local;
    private static MemoryVfs mem;
    private static NfsRdmaServer server;

    @BeforeAll
    static void start() throws IOException {
        RdmaServerMemory memory = new RdmaServerMemory();
        mem = new MemoryVfs(64L << 20, memory.blocks(MEMORY_BLOCK));
        local = LocalVfs.open(Files.createDirectories(root.resolve("local")));
        server = NfsRdmaServer.start(
                NfsServer.builder().export("/local", local).export("/mem", mem).bindAddress("127.0.0.1").port(0),
                RdmaRpcServer.builder().bindAddress(InetAddress.getLoopbackAddress()).port(0)
                        .provider("soft", Map.of())
                        .registeredMemory((256L << 20) + (64L << 20))
                        .keptCallMemory(32L << 20).jmx(false).name("random-io"),
                memory);
    }

    @AfterAll
    static void stop() throws IOException {
        if (server != null) {
            Map<ServerCounter, Long> c = server.rdma().counters();
            LOG.info("server counters after the random I/O: {}", c);
            server.close();
            assertThat(c.get(ServerCounter.KEPT_CALL_BYTES)).as("WRITE blocks kept by the in-memory export")
                    .isPositive();
            assertThat(c.get(ServerCounter.ZERO_COPY_BYTES)).as("READ data RDMA-written from where it was read")
                    .isPositive();
            for (ServerCounter bad : List.of(ServerCounter.ERR_VERS_SENT, ServerCounter.ERR_CHUNK_SENT,
                    ServerCounter.DROPPED_GARBAGE, ServerCounter.DROPPED_INTERNAL_ERROR,
                    ServerCounter.DROPPED_NO_RESOURCES)) {
                assertThat(c.get(bad)).as(bad.name()).isZero();
            }
        }
        if (local != null) {
            local.close();
        }
        if (mem != null) {
            mem.close();
        }
    }

    @ParameterizedTest(name = "{0} NFSv{2} on {1}")
    @CsvSource({
        "rdma, /local, 3", "rdma, /mem, 3", "rdma, /local, 4.1", "rdma, /mem, 4.2",
        "tcp, /mem, 3", "tcp, /local, 4.1"
    })
    void randomIoArrivesWhole(String scheme, String export, String version) throws Exception {
        int port = scheme.equals("rdma") ? server.rdmaPort() : server.tcpPort();
        NfsUrl url = NfsUrl.parse(scheme + "://127.0.0.1:" + port + export + "?mountport=" + server.tcpPort()
                + "&vers=" + version);
        long seed = SEED + (scheme + export + version).hashCode();
        String name = "random-" + Long.toHexString(seed);
        RandomIo io;
        try (NfsMount nfs = NfsMounts.mount(url, NfsClientConfig.defaults())) {
            assertThat(nfs.version()).isEqualTo(version);
            FileHandle fh = nfs.createFile("/" + name);
            FsInfo info = nfs.fsinfo(fh);
            int maxIo = Math.min(1 << 20, Math.min(info.rtmax(), info.wtmax()));
            long t0 = System.nanoTime();
            io = new RandomIo(nfs, fh, MAX_SIZE, maxIo, seed).run(OPS);
            LOG.info("{} NFSv{} on {}: {} in {} ms", scheme, version, export, io,
                    (System.nanoTime() - t0) / 1_000_000);
        }
        byte[] expected = io.expected();
        byte[] held = export.equals("/mem") ? memoryFile(name) : Files.readAllBytes(root.resolve("local" + "/" + name));
        assertThat(held).as("the file in the server's %s (%s)", export, io).isEqualTo(expected);
        try (NfsMount fresh = NfsMounts.mount(url, NfsClientConfig.defaults())) {
            assertThat(RandomIo.readBack(fresh, "/" + name)).as("a fresh mount reads back (%s)", io).isEqualTo(expected);
            fresh.remove(fresh.root(), name);
        }
    }

    private static byte[] memoryFile(String name) throws IOException {
        FileHandle fh = mem.lookup(mem.root(), name).handle();
        ByteBuffer held = ByteBuffer.allocate(MAX_SIZE + 1);
        mem.read(fh, 0, held);
        return java.util.Arrays.copyOf(held.array(), held.position());
    }
}
