package org.rpcrdma4j.it.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
import org.rpcrdma4j.nfs.server.rdma.NfsRdmaServer;
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

    @TempDir
    static Path root;
    private static RandomIoServer exports;
    private static NfsRdmaServer server;

    @BeforeAll
    static void start() throws IOException {
        exports = RandomIoServer.start(Files.createDirectories(root.resolve("local")), "random-io");
        server = exports.server();
    }

    @AfterAll
    static void stop() throws IOException {
        if (exports != null) {
            try {
                LOG.info("server counters after the random I/O: {}", exports.checkCounters());
            } finally {
                exports.close();
            }
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
            int maxIo = Math.min(1 << 20, info.largestIo());
            long t0 = System.nanoTime();
            io = new RandomIo(nfs, fh, MAX_SIZE, maxIo, seed).run(OPS);
            LOG.info("{} NFSv{} on {}: {} in {} ms", scheme, version, export, io,
                    (System.nanoTime() - t0) / 1_000_000);
        }
        byte[] expected = io.expected();
        byte[] held = exports.held(export, name, MAX_SIZE);
        assertThat(held).as("the file in the server's %s (%s)", export, io).isEqualTo(expected);
        try (NfsMount fresh = NfsMounts.mount(url, NfsClientConfig.defaults())) {
            assertThat(RandomIo.readBack(fresh, "/" + name)).as("a fresh mount reads back (%s)", io)
                    .isEqualTo(expected);
            fresh.remove(fresh.root(), name);
        }
    }
}
