package org.rpcrdma4j.nfs.client;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;
import org.rpcrdma4j.nfs.server.NfsServer;
import org.rpcrdma4j.nfs.testing.Bytes;
import org.rpcrdma4j.nfs.vfs.MemoryVfs;

/**
 * Prints upload and download throughput over loopback TCP (not a test: it asserts nothing and is off unless
 * {@code -Dnfs.measure=true}). {@code mvn -B -pl nfs -am verify -Dtest=TransferMeasurement -Dnfs.measure=true
 * -Dsurefire.failIfNoSpecifiedTests=false}
 */
@EnabledIfSystemProperty(named = "nfs.measure", matches = "true")
class TransferMeasurement {
    @TempDir
    Path temp;

    @Test
    void measure() throws Exception {
        long size = 256L << 20;
        Path src = temp.resolve("src");
        Path back = temp.resolve("back");
        Bytes.writeRandomFile(src, size, 1);
        try (MemoryVfs vfs = new MemoryVfs(1L << 30);
             NfsServer server = NfsServer.builder().bindAddress("127.0.0.1").port(0).export("/m", vfs).build()
                     .start();
             NfsClient nfs = NfsClient.mount("tcp://127.0.0.1:" + server.port() + "/m")) {
            for (int round = 0; round < 3; round++) {
                long t0 = System.nanoTime();
                nfs.upload(src, "/f");
                long t1 = System.nanoTime();
                nfs.download("/f", back);
                long t2 = System.nanoTime();
                System.out.printf("round %d: upload %.0f MiB/s, download %.0f MiB/s (256 MiB, window %d x %d KiB)%n",
                        round, 256 / ((t1 - t0) / 1e9), 256 / ((t2 - t1) / 1e9), 16, 1024);
            }
        }
        if (!Bytes.sha256(src).equals(Bytes.sha256(back))) {
            throw new AssertionError("copy differs");
        }
        Files.delete(src);
    }
}
