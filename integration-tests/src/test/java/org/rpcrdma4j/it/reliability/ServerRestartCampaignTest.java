package org.rpcrdma4j.it.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.rpcrdma4j.it.fault.FaultProxy.Direction;
import org.rpcrdma4j.it.fault.LeakWatch;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.client.NfsClient;
import org.rpcrdma4j.nfs.client.NfsClientConfig;
import org.rpcrdma4j.nfs.client.UnstableWriter;
import org.rpcrdma4j.nfs.client.v4.Nfs41Client;
import org.rpcrdma4j.nfs.vfs.LocalVfs;
import org.rpcrdma4j.xprt.XprtCounter;
import org.rpcrdma4j.xprt.client.RdmaClientStats;

/**
 * Campaign 5, server restart during a write workload over RDMA: a client uploads a file with UNSTABLE WRITEs (the
 * nfs module's {@link UnstableWriter}); twice during the upload the servers "crash" — the RDMA and NFS servers stop,
 * the file on disk loses what was written unstably since the last COMMIT (it is overwritten with zeros, what stable
 * storage held), and new servers start on a new {@link LocalVfs} instance (a new write verifier) behind the same
 * address. The client's transport reconnects by itself, the writes after the restart go to the new server, and the
 * COMMIT's verifier differs from the one the lost writes were acknowledged with, so the writer sends them again.
 * <p>
 * Asserted: the file on disk is byte for byte the data uploaded; every range written before a crash was resent; the
 * verifier the COMMIT returned is the last server's; the transport reconnected; pools and devices are back to empty
 * after close; no Netty leak. The NFSv4.1 client's upload goes through such a crash too, which also takes its session
 * and client id.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ServerRestartCampaignTest {
    private static final int CHUNK = 256 * 1024;
    private static final int SIZE = 6 * 1024 * 1024 + 321;

    @TempDir
    Path dir;
    @TempDir
    Path localDir;
    private NfsRdmaRig rig;
    /** The prefix of the file a COMMIT made stable (a crash keeps it). */
    private long committedBytes;

    @AfterEach
    void close() throws Exception {
        if (rig != null) {
            rig.close();
        }
    }

    @Test
    void theClientReconnectsSeesTheNewVerifierAndResendsWhatTheRestartLost() throws Exception {
        LeakWatch.start();
        Figures figures = new Figures("server-restart");
        byte[] data = new byte[SIZE];
        new Random(5).nextBytes(data);
        rig = new NfsRdmaRig(LocalVfs.open(dir), false, Map.of(), b -> { });
        NfsClient client = rig.mount(NfsClientConfig.defaults().withCallTimeout(Duration.ofSeconds(30)), b -> b);
        FileHandle fh = client.createFile("/f");
        UnstableWriter writer = client.unstableWriter(fh, (offset, length, dst) -> dst.writeBytes(data,
                (int) offset, length));
        int ranges = (SIZE + CHUNK - 1) / CHUNK;
        int[] crashAfter = {ranges / 3, 2 * ranges / 3};
        int lost = 0;
        int sinceCommit = 0;
        int restarts = 0;
        for (int r = 0; r < ranges; r++) {
            int off = r * CHUNK;
            writer.write(off, Math.min(CHUNK, SIZE - off));
            sinceCommit++;
            if (r == ranges / 6) {
                writer.commit(); // a COMMIT before the first crash: those ranges are stable and never resent
                sinceCommit = 0;
                committedBytes = (long) (r + 1) * CHUNK;
            }
            if (r + 1 == crashAfter[0] || r + 1 == crashAfter[1]) {
                writer.flush();
                crash();
                restarts++;
                lost += sinceCommit;
                sinceCommit = 0;
            }
        }
        long verifier = writer.commit();
        RdmaClientStats stats = rig.transport.transport().stats();
        figures.put("bytes", SIZE).put("ranges", ranges).put("restarts", restarts)
                .put("rangesLostByRestarts", lost).put("resends", writer.resends())
                .put("reconnects", stats.get(XprtCounter.RECONNECTS))
                .put("retransmits", stats.get(XprtCounter.RETRANSMITS)).report();
        byte[] onDisk = Files.readAllBytes(dir.resolve("f"));
        assertThat(onDisk.length).isEqualTo(SIZE);
        assertThat(java.util.Arrays.mismatch(onDisk, data)).as("first wrong byte of the file on disk").isEqualTo(-1);
        assertThat(java.util.Arrays.mismatch(client.readAll("/f"), data)).as("first wrong byte read back over RDMA")
                .isEqualTo(-1);
        assertThat(writer.resends()).as("every range written unstably before a crash, sent again")
                .isGreaterThanOrEqualTo(lost);
        assertThat(verifier).isEqualTo(((LocalVfs) rig.nfs.exports().byPath(NfsRdmaRig.EXPORT).vfs())
                .writeVerifier());
        assertThat(stats.get(XprtCounter.RECONNECTS)).isGreaterThanOrEqualTo(restarts);
        rig.closeAndCheck();
        assertThat(LeakWatch.leaks()).as("Netty leak reports (level %s)", LeakWatch.level()).isEmpty();
    }

    /**
     * The NFSv4.1 client's upload over RDMA with the server "crashing" in the middle: the new server has a new boot
     * (its sessions and client ids gone) and a new write verifier, and the file lost everything written so far (none of
     * it committed). The client reconnects, finds its session and client id gone, makes new ones, opens the file
     * again, goes on writing, and after its COMMIT writes again, FILE_SYNC, every range whose verifier is the old
     * server's. Asserted: the upload ends with every byte on the server's disk, and read back over RDMA; the crash
     * came while the upload was running; a second client id was made; pools and devices back to empty; no leak.
     */
    @Test
    void theNfs41ClientsUploadSurvivesARestartThatLosesItsUnstableData() throws Exception {
        LeakWatch.start();
        Figures figures = new Figures("server-restart-v4.1");
        byte[] data = new byte[24 * 1024 * 1024 + 123];
        new Random(41).nextBytes(data);
        Path src = Files.write(localDir.resolve("src"), data);
        rig = new NfsRdmaRig(LocalVfs.open(dir), false, Map.of(), b -> { });
        Nfs41Client client = (Nfs41Client) rig.mount("4.1", NfsClientConfig.defaults()
                .withCallTimeout(Duration.ofSeconds(30)), b -> b);
        // the WRITE data the server pulls comes slowly, so that the crash falls well before the upload's COMMIT
        rig.proxy.delay(Direction.TO_SERVER, 5);
        long t0 = System.nanoTime();
        CompletableFuture<Long> upload = CompletableFuture.supplyAsync(() -> {
            try {
                return client.upload(src, "/g");
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        Path file = dir.resolve("g");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while ((!Files.exists(file) || Files.size(file) < (4 << 20)) && !upload.isDone()
                && System.nanoTime() - deadline < 0) {
            Thread.sleep(1);
        }
        assertThat(upload.isDone()).as("the upload still running when the server crashes").isFalse();
        long sizeAtCrash = Files.size(file);
        long crashMillis = (System.nanoTime() - t0) / 1_000_000;
        rig.restart(() -> {
            // nothing was committed: losing every byte written is what a crash may do
            assertThat(rig.nfs.nfs4().operationCounts()).as("operations before the crash").doesNotContainKey("COMMIT");
            Files.write(file, new byte[(int) Files.size(file)]);
        }, LocalVfs::open, dir);
        assertThat(upload.get(120, TimeUnit.SECONDS)).isEqualTo(data.length);

        RdmaClientStats stats = rig.transport.transport().stats();
        figures.put("bytes", data.length).put("fileSizeAtCrash", sizeAtCrash).put("crashAtMillis", crashMillis)
                .put("uploadMillis", (System.nanoTime() - t0) / 1_000_000)
                .put("clientIds", client.session().clientIdsCreated())
                .put("reconnects", stats.get(XprtCounter.RECONNECTS))
                .put("retransmits", stats.get(XprtCounter.RETRANSMITS)).report();
        assertThat(java.util.Arrays.mismatch(Files.readAllBytes(file), data)).as("first wrong byte of the file on disk")
                .isEqualTo(-1);
        assertThat(java.util.Arrays.mismatch(client.readAll("/g"), data)).as("first wrong byte read back over RDMA")
                .isEqualTo(-1);
        assertThat(client.session().clientIdsCreated()).as("a new client id at the new server").isEqualTo(2);
        assertThat(stats.get(XprtCounter.RECONNECTS)).isPositive();
        rig.closeAndCheck();
        assertThat(LeakWatch.leaks()).as("Netty leak reports (level %s)", LeakWatch.level()).isEmpty();
    }

    /**
     * Stops the servers, loses the file's unstable data (stable storage kept the committed prefix; beyond it, zeros
     * of the file's size), starts new ones.
     */
    private void crash() throws Exception {
        Path file = dir.resolve("f");
        rig.restart(() -> {
            byte[] held = Files.readAllBytes(file);
            java.util.Arrays.fill(held, (int) Math.min(committedBytes, held.length), held.length, (byte) 0);
            Files.write(file, held);
        }, LocalVfs::open, dir);
    }
}
