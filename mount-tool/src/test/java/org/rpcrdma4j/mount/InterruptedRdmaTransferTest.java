package org.rpcrdma4j.mount;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.rpcrdma4j.mount.server.EmbeddedServer;

/**
 * Ctrl-C in the middle of a download over RDMA: data has reached the temporary file and READs are in flight when the
 * command's thread is interrupted; nothing is left, under the target name or the temporary one.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class InterruptedRdmaTransferTest {
    @TempDir
    Path temp;

    @Test
    void interruptedDownloadOverRdmaLeavesNothingBehind() throws Exception {
        Path exported = Files.createDirectories(temp.resolve("exported"));
        Path local = Files.createDirectories(temp.resolve("local"));
        Random random = new Random(9);
        byte[] block = new byte[1 << 20];
        try (OutputStream out = Files.newOutputStream(exported.resolve("big.bin"))) {
            for (int i = 0; i < 256; i++) {
                random.nextBytes(block);
                out.write(block);
            }
        }
        try (EmbeddedServer server = EmbeddedServer.start(
                EmbeddedServer.Settings.local(exported, "/export", "soft", Map.of()))) {
            Cli.Running get = Cli.start("get", server.rdmaUrl("127.0.0.1"), "/big.bin", local.toString(),
                    "--io-size", "256k", "--window", "8");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (sizeOfAny(local) == 0 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertThat(sizeOfAny(local)).as("data arrived before the interrupt").isPositive();
            Cli.Result r = get.interrupt(30);
            assertThat(r.code()).as(r.toString()).isEqualTo(ExitCode.INTERRUPTED.code());
            assertThat(r.err()).isEqualTo("rpcrdma get: interrupted\n");
            assertThat(names(local)).as("no big.bin, no partial file").isEmpty();
        }
    }

    private static long sizeOfAny(Path dir) throws IOException {
        long total = 0;
        try (var s = Files.list(dir)) {
            for (Path p : s.toList()) {
                try {
                    total += Files.size(p);
                } catch (IOException e) {
                    // removed meanwhile
                }
            }
        }
        return total;
    }

    private static List<String> names(Path dir) throws IOException {
        try (var s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }
}
