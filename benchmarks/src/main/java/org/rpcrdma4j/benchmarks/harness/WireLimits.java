package org.rpcrdma4j.benchmarks.harness;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.atomic.AtomicLong;

import org.rpcrdma4j.benchmarks.verbs.VerbsPair;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.Opcode;
import org.rpcrdma4j.verbs.RecvWorkRequest;
import org.rpcrdma4j.verbs.RegisteredMemory;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.WcStatus;
import org.rpcrdma4j.verbs.WorkCompletion;

/**
 * The wire rows: plain Java NIO over loopback TCP (the limit every transport here runs into, the software device
 * included, since it speaks iWARP over TCP) and the software iWARP device's RDMA WRITE, RDMA READ and SEND at 1 MiB.
 * Each runs on the calling thread plus the threads it needs (one reader; the device's engines).
 */
final class WireLimits {
    static final int SIZE = 1 << 20;
    static final int RDMA_DEPTH = 8;
    /** Receives the server keeps posted in the SEND row: room for every message in flight, twice over. */
    static final int SEND_RECEIVES = RDMA_DEPTH * 4;

    private WireLimits() {
    }

    /** Reader buffer sizes tried for the raw TCP row; the best counts (the copy out of the socket is cache-bound). */
    static final int[] READ_SIZES = {64 << 10, 256 << 10, 1 << 20};

    /**
     * MiB/s of 1 MiB writes from one thread, drained by another, over loopback TCP: the best of three runs whose
     * reader reads 64 KiB, 256 KiB and 1 MiB at a time (each a third of the window, after its own warm-up).
     */
    static Rate rawTcp(HarnessConfig config) throws IOException, InterruptedException {
        Rate best = null;
        for (int readSize : READ_SIZES) {
            Rate r = rawTcp(config.warmup().toNanos() / READ_SIZES.length,
                    config.measure().toNanos() / READ_SIZES.length, readSize);
            if (best == null || r.mibPerSecond() > best.mibPerSecond()) {
                best = r;
            }
        }
        return best;
    }

    /** A wire row's figures: payload MiB/s, and process CPU time per MiB moved (µs). */
    record Rate(double mibPerSecond, double cpuMicrosPerMib) {
        static Rate of(long bytes, long nanos, long cpuNanos) {
            double mib = bytes / (double) (1 << 20);
            return new Rate(WireLimits.mibPerSecond(bytes, nanos), mib == 0 ? 0 : cpuNanos / 1000.0 / mib);
        }
    }

    private static Rate rawTcp(long warmupNanos, long measureNanos, int readSize)
            throws IOException, InterruptedException {
        try (ServerSocketChannel server = ServerSocketChannel.open()
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
             SocketChannel writer = SocketChannel.open(server.getLocalAddress());
             SocketChannel reader = server.accept()) {
            writer.setOption(StandardSocketOptions.TCP_NODELAY, true);
            AtomicLong received = new AtomicLong();
            Thread drain = new Thread(() -> {
                ByteBuffer sink = ByteBuffer.allocateDirect(readSize);
                try {
                    int n;
                    while ((n = reader.read(sink.clear())) >= 0) {
                        received.addAndGet(n);
                    }
                } catch (IOException e) {
                    // the writer closed: done
                }
            }, "harness-tcp-drain");
            drain.start();
            ByteBuffer source = ByteBuffer.allocateDirect(SIZE);
            long warm = System.nanoTime() + warmupNanos;
            while (System.nanoTime() < warm) {
                writeFully(writer, source);
            }
            long r0 = received.get();
            long c0 = Harness.Allocation.cpu();
            long t0 = System.nanoTime();
            long end = t0 + measureNanos;
            while (System.nanoTime() < end) {
                writeFully(writer, source);
            }
            long r1 = received.get();
            long t1 = System.nanoTime();
            long c1 = Harness.Allocation.cpu();
            writer.shutdownOutput();
            drain.join(10_000);
            return Rate.of(r1 - r0, t1 - t0, c1 - c0);
        }
    }

    private static void writeFully(SocketChannel channel, ByteBuffer source) throws IOException {
        source.clear();
        while (source.hasRemaining()) {
            channel.write(source);
        }
    }

    /**
     * MiB/s of 1 MiB RDMA WRITEs, RDMA READs or SENDs ({@code opcode}), {@value #RDMA_DEPTH} in flight. For SENDs the
     * server keeps {@value #SEND_RECEIVES} receives of 1 MiB posted, reposting each one as its completion is polled.
     */
    static Rate softRdma(HarnessConfig config, Opcode opcode) throws Exception {
        boolean send = opcode == Opcode.SEND;
        try (VerbsPair pair = new VerbsPair(config.device(), send ? SEND_RECEIVES : RDMA_DEPTH * 2)) {
            int rw = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ;
            RegisteredMemory local = pair.register(SIZE, rw);
            RegisteredMemory remote = pair.register(SIZE, rw);
            VerbsPair.wakes(pair.clientSendCq, Thread.currentThread());
            SendWorkRequest wr = new SendWorkRequest(1);
            wr.opcode = opcode;
            wr.flags = SendWorkRequest.SIGNALED;
            wr.addSge().set(local, 0, SIZE);
            wr.rkey = remote.rkey();
            wr.remoteAddress = remote.address(0);
            RecvWorkRequest recv = null;
            if (send) {
                recv = new RecvWorkRequest(1);
                recv.addSge().set(remote, 0, SIZE);
                for (int i = 0; i < SEND_RECEIVES; i++) {
                    pair.server.postRecv(recv);
                }
            }
            WorkCompletion[] batch = new WorkCompletion[32];
            for (int i = 0; i < batch.length; i++) {
                batch[i] = new WorkCompletion();
            }
            long[] completed = new long[1];
            int[] outstanding = new int[1];
            long warm = System.nanoTime() + config.warmup().toNanos();
            pump(pair, wr, recv, batch, completed, outstanding, warm);
            long done0 = completed[0];
            long c0 = Harness.Allocation.cpu();
            long t0 = System.nanoTime();
            pump(pair, wr, recv, batch, completed, outstanding, t0 + config.measure().toNanos());
            long done1 = completed[0];
            long t1 = System.nanoTime();
            long c1 = Harness.Allocation.cpu();
            while (outstanding[0] > 0) {
                outstanding[0] -= reap(pair, recv, batch);
            }
            return Rate.of((done1 - done0) * SIZE, t1 - t0, c1 - c0);
        }
    }

    private static void pump(VerbsPair pair, SendWorkRequest wr, RecvWorkRequest recv, WorkCompletion[] batch,
                             long[] completed, int[] outstanding, long until) throws Exception {
        while (System.nanoTime() < until) {
            while (outstanding[0] < RDMA_DEPTH) {
                pair.client.postSend(wr);
                outstanding[0]++;
            }
            int n = reap(pair, recv, batch);
            outstanding[0] -= n;
            completed[0] += n;
        }
    }

    /** Reposts the receives the server consumed (SEND), then polls or waits for the client's completions. */
    private static int reap(VerbsPair pair, RecvWorkRequest recv, WorkCompletion[] batch) throws Exception {
        if (recv != null) {
            int received = pair.serverRecvCq.poll(batch);
            for (int i = 0; i < received; i++) {
                if (batch[i].status != WcStatus.SUCCESS) {
                    throw new IllegalStateException("receive failed: " + batch[i]);
                }
                pair.server.postRecv(recv);
            }
        }
        int n = VerbsPair.pollOrWait(pair.clientSendCq, batch);
        for (int i = 0; i < n; i++) {
            if (batch[i].status != WcStatus.SUCCESS) {
                throw new IllegalStateException("work request failed: " + batch[i]);
            }
        }
        return n;
    }

    static double mibPerSecond(long bytes, long nanos) {
        return bytes / (double) (1 << 20) / (nanos / 1e9);
    }
}
