package org.rpcrdma4j.it.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.it.fault.LeakWatch;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.StableHow;
import org.rpcrdma4j.nfs.client.NfsClient;
import org.rpcrdma4j.nfs.client.NfsClientConfig;
import org.rpcrdma4j.nfs.client.ReadReply;
import org.rpcrdma4j.nfs.vfs.MemoryVfs;
import org.rpcrdma4j.xprt.XprtCounter;
import org.rpcrdma4j.xprt.client.RdmaClientStats;

/**
 * Campaign 6, credit starvation: the RDMA server grants one credit in every reply while the client (asking for 32)
 * runs {@code reliability.starvation.threads} threads (default 8) of WRITE-then-READ-back on files of their own plus a
 * whole-file upload, so that calls queue for the single credit all the time. Asserted: every operation completes
 * without any failure, every byte reads back right, the client never saw a grant above 1 and waited for credits, and
 * the pools are back to full after close.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class CreditStarvationCampaignTest {
    private static final int THREADS = Integer.getInteger("reliability.starvation.threads", 8);
    private static final int OPS_PER_THREAD = Integer.getInteger("reliability.starvation.ops", 150);

    private NfsRdmaRig rig;
    private final MemoryVfs vfs = new MemoryVfs(64L << 20);

    @AfterEach
    void close() throws Exception {
        if (rig != null) {
            rig.close();
        }
        vfs.close();
    }

    @Test
    void aServerGrantingOneCreditServesEverythingWithoutAFailure() throws Exception {
        LeakWatch.start();
        Figures figures = new Figures("credit-starvation");
        rig = new NfsRdmaRig(vfs, true, Map.of(), b -> b.credits(1));
        NfsClient client = rig.mount(NfsClientConfig.defaults().withCallTimeout(Duration.ofSeconds(60)),
                b -> b.maxCredits(32));
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        List<Future<Integer>> runs = new ArrayList<>();
        try {
            for (int t = 0; t < THREADS; t++) {
                int thread = t;
                runs.add(pool.submit(() -> work(client, thread)));
            }
            byte[] big = new byte[3 * 1024 * 1024 + 17];
            new Random(7).nextBytes(big);
            java.nio.file.Path src = java.nio.file.Files.createTempFile("starvation", ".bin");
            try {
                java.nio.file.Files.write(src, big);
                client.upload(src, "/big");
            } finally {
                java.nio.file.Files.delete(src);
            }
            int ops = 0;
            for (Future<Integer> f : runs) {
                ops += f.get(240, TimeUnit.SECONDS);
            }
            assertThat(client.readAll("/big")).isEqualTo(big);
            RdmaClientStats stats = rig.transport.transport().stats();
            figures.put("threads", THREADS).put("ops", ops).put("uploadBytes", big.length)
                    .put("creditsGranted", stats.creditsGranted())
                    .put("creditWaits", stats.get(XprtCounter.CREDIT_WAITS))
                    .put("calls", stats.get(org.rpcrdma4j.xprt.client.ClientCounter.SENDS)).report();
            assertThat(stats.creditsGranted()).isEqualTo(1);
            assertThat(stats.get(XprtCounter.CREDIT_WAITS)).as("calls waited for the single credit").isPositive();
            assertThat(stats.get(XprtCounter.TIMEOUTS)).isZero();
            assertThat(stats.get(XprtCounter.RECONNECTS)).isZero();
        } finally {
            pool.shutdownNow();
        }
        rig.closeAndCheck();
        assertThat(LeakWatch.leaks()).as("Netty leak reports (level %s)", LeakWatch.level()).isEmpty();
    }

    /** WRITE then READ back, on a file of this thread; returns the operations done. */
    private static int work(NfsClient client, int thread) throws Exception {
        Random rnd = new Random(thread);
        FileHandle fh = client.createFile("/t" + thread);
        byte[] model = new byte[0];
        int ops = 1;
        for (int i = 0; i < OPS_PER_THREAD; i++) {
            int off = rnd.nextInt(128 * 1024);
            byte[] data = new byte[1 + rnd.nextInt(48 * 1024)];
            rnd.nextBytes(data);
            client.write(fh, off, Unpooled.wrappedBuffer(data), rnd.nextBoolean() ? StableHow.FILE_SYNC
                    : StableHow.UNSTABLE);
            if (off + data.length > model.length) {
                model = Arrays.copyOf(model, off + data.length);
            }
            System.arraycopy(data, 0, model, off, data.length);
            ByteBuf dst = Unpooled.buffer(data.length);
            ReadReply r = client.read(fh, off, dst);
            assertThat(r.count()).isEqualTo(data.length);
            byte[] got = new byte[dst.readableBytes()];
            dst.getBytes(dst.readerIndex(), got);
            assertThat(got).isEqualTo(data);
            ops += 2;
        }
        assertThat(client.readAll("/t" + thread)).isEqualTo(model);
        return ops + 1;
    }
}
