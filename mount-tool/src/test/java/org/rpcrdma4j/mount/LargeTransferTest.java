package org.rpcrdma4j.mount;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.rpcrdma4j.mount.server.EmbeddedServer;
import org.rpcrdma4j.xprt.server.ServerCounter;

/**
 * NFS end to end at a large size: a 64 MiB file put and got back over RDMA with the one-shot commands, through the
 * embedded server on the software device. Every byte is compared at the server's disk and after the way back, and the
 * server's counters show the data crossed as RDMA READs (WRITE data in read chunks) and RDMA WRITEs (READ data in write
 * chunks), not inline.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class LargeTransferTest {
    private static final long SIZE = 64L << 20;

    @TempDir
    Path temp;

    /** NFSv4.2 (the default) and NFSv3: either way the data moves through no bounce buffer. */
    @org.junit.jupiter.params.ParameterizedTest(name = "vers={0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"4.2", "3"})
    void sixtyFourMebibytesPutAndGotBackOverRdmaByteForByte(String vers) throws IOException {
        Path exported = Files.createDirectories(temp.resolve("exported"));
        Path local = Files.createDirectories(temp.resolve("local"));
        Path src = local.resolve("big.bin");
        writeRandom(src, SIZE, 64);
        try (EmbeddedServer server = EmbeddedServer.start(
                EmbeddedServer.Settings.local(exported, "/export", "soft", Map.of()))) {
            String url = server.rdmaUrl("127.0.0.1") + "&vers=" + vers;

            Cli.Result put = Cli.run("put", "--stats", url, src.toString(), "/big.bin");
            assertThat(put.code()).as(put.toString()).isZero();
            assertThat(counter(put.out(), "pullup_copy_count")).as("bytes copied into registered memory: headers only")
                    .isLessThan(1 << 20);
            assertThat(Files.size(exported.resolve("big.bin"))).isEqualTo(SIZE);
            assertThat(Files.mismatch(src, exported.resolve("big.bin"))).as("first differing byte at the server")
                    .isEqualTo(-1L);
            Map<ServerCounter, Long> afterPut = server.server().rdma().counters();
            assertThat(afterPut.get(ServerCounter.READ_CHUNK_BYTES)).as("WRITE data pulled by RDMA READ")
                    .isGreaterThanOrEqualTo(SIZE);

            Path back = local.resolve("big.back");
            Cli.Result get = Cli.run("get", "--stats", url, "/big.bin", back.toString());
            assertThat(get.code()).as(get.toString()).isZero();
            assertThat(counter(get.out(), "fixup_copy_count")).as("bytes copied out of the transport's sinks: none of "
                    + "the data (no bounce buffer)").isLessThan(1 << 20);
            assertThat(Files.size(back)).isEqualTo(SIZE);
            assertThat(Files.mismatch(src, back)).as("first differing byte after the way back").isEqualTo(-1L);
            Map<ServerCounter, Long> afterGet = server.server().rdma().counters();
            assertThat(afterGet.get(ServerCounter.WRITE_CHUNK_BYTES)
                    - afterPut.get(ServerCounter.WRITE_CHUNK_BYTES)).as("READ data pushed by RDMA WRITE")
                    .isGreaterThanOrEqualTo(SIZE);
        }
        try (var left = Files.list(local)) {
            assertThat(left.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder("big.bin", "big.back");
        }
        try (var left = Files.list(exported)) {
            assertThat(left.map(p -> p.getFileName().toString())).containsExactly("big.bin");
        }
    }

    /** A counter's value in {@code --stats} output (mountstats layout: the name, then the value). */
    private static long counter(String stats, String name) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\s" + name + " (\\d+)").matcher(stats);
        assertThat(m.find()).as(name + " in " + stats).isTrue();
        return Long.parseLong(m.group(1));
    }

    /** {@code size} random bytes (seeded), written a mebibyte at a time. */
    private static void writeRandom(Path file, long size, long seed) throws IOException {
        Random random = new Random(seed);
        byte[] block = new byte[1 << 20];
        try (OutputStream out = Files.newOutputStream(file)) {
            for (long left = size; left > 0; left -= block.length) {
                random.nextBytes(block);
                out.write(block, 0, (int) Math.min(block.length, left));
            }
        }
    }
}
