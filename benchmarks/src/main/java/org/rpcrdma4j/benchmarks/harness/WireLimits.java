package org.rpcrdma4j.benchmarks.harness;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
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
    /** Sinks the cold row's reader fills in turn: as many as the NFS rows keep calls in flight by default. */
    static final int COLD_SINKS = 16;

    /**
     * MiB/s of 1 MiB writes of one buffer from one thread, drained by another, over loopback TCP: the best of three
     * runs whose reader reads 64 KiB, 256 KiB and 1 MiB at a time into one buffer (each a third of the window,
     * after its own warm-up). Everything stays in the caches: the most loopback TCP does here.
     */
    static Rate rawTcp(Duration warmup, Duration measure) throws IOException, InterruptedException {
        Rate best = null;
        for (int readSize : READ_SIZES) {
            Rate r = rawTcp(warmup.toNanos() / READ_SIZES.length, measure.toNanos() / READ_SIZES.length, SIZE,
                    readSize, 1);
            if (best == null || r.mibPerSecond() > best.mibPerSecond()) {
                best = r;
            }
        }
        return best;
    }

    /**
     * MiB/s of loopback TCP moving the memory the NFS 1 MiB rows move: 1 MiB writes taken in turn from a
     * {@code sourceBytes} buffer (the file's size), read 64 KiB at a time into {@value #COLD_SINKS} sinks of 1 MiB in
     * turn (the calls in flight); the copies in and out of the socket now miss the caches, as the NFS rows' do.
     */
    static Rate coldTcp(Duration warmup, Duration measure, long sourceBytes) throws IOException, InterruptedException {
        return rawTcp(warmup.toNanos(), measure.toNanos(), (int) Math.min(sourceBytes, 1 << 30), 64 << 10,
                COLD_SINKS);
    }

    /** A wire row's figures: payload MiB/s, and process CPU time per MiB moved (µs). */
    record Rate(double mibPerSecond, double cpuMicrosPerMib) {
        static Rate of(long bytes, long nanos, long cpuNanos) {
            double mib = bytes / (double) (1 << 20);
            return new Rate(WireLimits.mibPerSecond(bytes, nanos), mib == 0 ? 0 : cpuNanos / 1000.0 / mib);
        }
    }

    /**
     * 1 MiB writes from a {@code sourceBytes} buffer in turn, drained by a thread reading {@code readSize} bytes at a
     * time into {@code sinks} buffers of 1 MiB in turn.
     */
    private static Rate rawTcp(long warmupNanos, long measureNanos, int sourceBytes, int readSize, int sinks)
            throws IOException, InterruptedException {
        try (ServerSocketChannel server = ServerSocketChannel.open()
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
             SocketChannel writer = SocketChannel.open(server.getLocalAddress());
             SocketChannel reader = server.accept()) {
            writer.setOption(StandardSocketOptions.TCP_NODELAY, true);
            AtomicLong received = new AtomicLong();
            Thread drain = new Thread(() -> {
                ByteBuffer sink = ByteBuffer.allocateDirect(sinks == 1 ? readSize : sinks * SIZE);
                long at = 0;
                try {
                    int n;
                    do {
                        if (sinks == 1) {
                            sink.clear();
                        } else {
                            int base = (int) ((at / SIZE) % sinks) * SIZE;
                            int offset = (int) (at % SIZE);
                            sink.limit(base + Math.min(SIZE, offset + readSize)).position(base + offset);
                        }
                        n = reader.read(sink);
                        if (n > 0) {
                            at += n;
                            received.addAndGet(n);
                        }
                    } while (n >= 0);
                } catch (IOException e) {
                    // the writer closed: done
                }
            }, "harness-tcp-drain");
            drain.start();
            ByteBuffer source = ByteBuffer.allocateDirect(sourceBytes);
            for (int i = 0; i < sourceBytes; i += 4096) {
                source.put(i, (byte) i); // touch every page before the window
            }
            int[] next = {0};
            long warm = System.nanoTime() + warmupNanos;
            while (System.nanoTime() < warm) {
                writeNext(writer, source, next);
            }
            long r0 = received.get();
            long c0 = Harness.Allocation.cpu();
            long t0 = System.nanoTime();
            long end = t0 + measureNanos;
            while (System.nanoTime() < end) {
                writeNext(writer, source, next);
            }
            long r1 = received.get();
            long t1 = System.nanoTime();
            long c1 = Harness.Allocation.cpu();
            writer.shutdownOutput();
            drain.join(10_000);
            return Rate.of(r1 - r0, t1 - t0, c1 - c0);
        }
    }

    /** Writes the next 1 MiB of {@code source} (from its start again at its end). */
    private static void writeNext(SocketChannel channel, ByteBuffer source, int[] next) throws IOException {
        int base = next[0];
        source.limit(base + SIZE).position(base);
        while (source.hasRemaining()) {
            channel.write(source);
        }
        next[0] = base + SIZE >= source.capacity() ? 0 : base + SIZE;
    }

    /**
     * MiB/s of 1 MiB RDMA WRITEs, RDMA READs or SENDs ({@code opcode}), {@value #RDMA_DEPTH} in flight. For SENDs the
     * server keeps {@value #SEND_RECEIVES} receives of 1 MiB posted, reposting each one as its completion is polled.
     */
    static Rate softRdma(HarnessConfig config, Opcode opcode, Duration warmup, Duration measure) throws Exception {
        boolean send = opcode == Opcode.SEND;
        try (VerbsPair pair = new VerbsPair(config.device(), send ? SEND_RECEIVES : RDMA_DEPTH * 2)) {
            int rw = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ;
            RegisteredMemory local = pair.register(SIZE, rw);
            RegisteredMemory remote = pair.register(SIZE, rw);
            VerbsPair.wakes(pair.clientSendCq, Thread.currentThread());
            SendWorkRequest wr = VerbsPair.request(opcode, local, remote, SIZE);
            RecvWorkRequest recv = null;
            if (send) {
                recv = new RecvWorkRequest(1);
                recv.addSge().set(remote, 0, SIZE);
                for (int i = 0; i < SEND_RECEIVES; i++) {
                    pair.server.postRecv(recv);
                }
            }
            WorkCompletion[] batch = VerbsPair.completions(32);
            long[] completed = new long[1];
            int[] outstanding = new int[1];
            long warm = System.nanoTime() + warmup.toNanos();
            pump(pair, wr, recv, batch, completed, outstanding, warm);
            long done0 = completed[0];
            long c0 = Harness.Allocation.cpu();
            long t0 = System.nanoTime();
            pump(pair, wr, recv, batch, completed, outstanding, t0 + measure.toNanos());
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
