package org.rpcrdma4j.mount;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.rpcrdma4j.nfs.vfs.LocalVfs;

/**
 * Ctrl-C in the middle of a transfer, simulated by interrupting the command's thread while the server holds its
 * READs or WRITEs: the command ends with status 130 and nothing is left under the target's name, nor any temporary
 * file.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class InterruptedTransferTest {
    @TempDir
    Path temp;
    private Path exported;
    private Path local;
    private GateVfs vfs;
    private TcpServerFixture server;

    @BeforeEach
    void start() throws IOException {
        exported = Files.createDirectories(temp.resolve("exported"));
        local = Files.createDirectories(temp.resolve("local"));
        vfs = new GateVfs(LocalVfs.open(exported));
        server = new TcpServerFixture(vfs);
    }

    @AfterEach
    void stop() throws IOException {
        vfs.release();
        server.close();
    }

    private String url() {
        return server.url();
    }

    private static byte[] random(int n) {
        byte[] b = new byte[n];
        new Random(5).nextBytes(b);
        return b;
    }

    private static List<String> names(Path dir) throws IOException {
        try (var s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    /** Runs the command on its own thread, interrupts it once the server holds an operation, returns its result. */
    private Cli.Result interruptWhileHeld(String... args) throws Exception {
        AtomicReference<Cli.Result> result = new AtomicReference<>();
        Thread worker = new Thread(() -> result.set(Cli.run(args)), "transfer");
        worker.start();
        assertThat(vfs.awaitHeld(30)).as("the transfer reached the server").isTrue();
        worker.interrupt();
        vfs.release(); // the server goes on answering, as a real one would
        worker.join(TimeUnit.SECONDS.toMillis(30));
        assertThat(worker.isAlive()).as("the command ended after the interrupt").isFalse();
        return result.get();
    }

    @Test
    void interruptedDownloadLeavesNoFileUnderTheTargetName() throws Exception {
        Files.write(exported.resolve("big.bin"), random(4 << 20));
        vfs.holdReads();
        Cli.Result r = interruptWhileHeld("get", url(), "/big.bin", local.toString(), "--io-size", "64k",
                "--window", "4");
        assertThat(r.code()).as(r.toString()).isEqualTo(ExitCode.INTERRUPTED.code());
        assertThat(r.err()).isEqualTo("rpcrdma get: interrupted\n");
        assertThat(names(local)).as("no big.bin, no partial file").isEmpty();
    }

    @Test
    void interruptedUploadLeavesNoRemoteFile() throws Exception {
        Path src = Files.write(local.resolve("big.bin"), random(4 << 20));
        vfs.holdWrites();
        Cli.Result r = interruptWhileHeld("put", url(), src.toString(), "/big.bin", "--io-size", "64k",
                "--window", "4");
        assertThat(r.code()).as(r.toString()).isEqualTo(ExitCode.INTERRUPTED.code());
        assertThat(r.err()).isEqualTo("rpcrdma put: interrupted\n");
        assertThat(names(exported)).as("no big.bin, no temporary file").isEmpty();
    }
}
