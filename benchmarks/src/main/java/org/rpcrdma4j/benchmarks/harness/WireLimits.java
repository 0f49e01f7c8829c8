package org.rpcrdma4j.benchmarks.harness;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

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
 * included, since it speaks iWARP over TCP: once with a reader that stays in its caches, once moving the NFS rows'
 * memory) and the software iWARP device's RDMA WRITE, RDMA READ and SEND at 1 MiB.
 * <p>
 * Each row is a {@link Stream}, a connection that moves data in slices: the harness runs a short slice of each row in
 * turn, so that the rows of one turn see the machine in the same state (on a 2-core virtual machine loopback TCP's
 * rate swings by 2x from one second to the next). A slice moves messages for its time, then waits until every one of
 * them is through, so that no row's tail runs in the next row's slice. Each runs on the calling thread plus the
 * threads it needs (one reader; the device's engines).
 */
final class WireLimits {
    static final int SIZE = 1 << 20;
    static final int RDMA_DEPTH = 8;
    /** No completion for this long: the device stalled (a 1 MiB message takes milliseconds). */
    static final long STALL_NANOS = TimeUnit.SECONDS.toNanos(30);
    /** Receives the server keeps posted in the SEND row: room for every message in flight, twice over. */
    static final int SEND_RECEIVES = RDMA_DEPTH * 4;
    /** Bytes per read of the raw TCP readers: a little more than one of the device's segments. */
    static final int SEGMENT_READ = 64 << 10;
    /** Sinks the cold row's reader fills in turn: as many as the NFS rows keep calls in flight by default. */
    static final int COLD_SINKS = 16;
    /** {@code sinks} of a reader that reads into one scratch buffer of its read size, over and over. */
    static final int SCRATCH = 0;

    private WireLimits() {
    }

    /** A wire row's figures: payload MiB/s, and process CPU time per MiB moved (µs). */
    record Rate(double mibPerSecond, double cpuMicrosPerMib) {
        static Rate of(long bytes, long nanos, long cpuNanos) {
            double mib = bytes / (double) (1 << 20);
            return new Rate(WireLimits.mibPerSecond(bytes, nanos), mib == 0 ? 0 : cpuNanos / 1000.0 / mib);
        }
    }

    /** One wire row, connected: moves 1 MiB messages a slice at a time. */
    interface Stream extends AutoCloseable {
        /** Moves messages for {@code nanos}, then waits until all of them are through: their rate and CPU cost. */
        Rate slice(long nanos) throws Exception;
    }

    /**
     * Loopback TCP with a reader that never leaves its caches: 1 MiB writes of one buffer, read
     * {@value #SEGMENT_READ} bytes at a time into one scratch buffer (256 KiB and 1 MiB reads ran at half this rate
     * and less).
     */
    static Stream scratchTcp() throws IOException {
        return new TcpStream(SIZE, SEGMENT_READ, SCRATCH);
    }

    /**
     * Loopback TCP moving the memory the NFS 1 MiB rows move: 1 MiB writes taken in turn from a {@code sourceBytes}
     * buffer (the file's size), read {@value #SEGMENT_READ} bytes at a time into {@value #COLD_SINKS} sinks of 1 MiB
     * in turn (the calls in flight); the copies in and out of the socket miss the caches, as the NFS rows' do.
     */
    static Stream coldTcp(long sourceBytes) throws IOException {
        return new TcpStream((int) Math.min(sourceBytes, 1 << 30), SEGMENT_READ, COLD_SINKS);
    }

    /**
     * 1 MiB RDMA WRITEs, RDMA READs or SENDs ({@code opcode}), {@value #RDMA_DEPTH} in flight, over a pair of queue
     * pairs of the software device. For SENDs the server keeps {@value #SEND_RECEIVES} receives of 1 MiB posted,
     * reposting each one as its completion is polled. The thread that opens it must be the one that runs its slices.
     */
    static Stream softRdma(HarnessConfig config, Opcode opcode) throws Exception {
        return new DeviceStream(config, opcode);
    }

    static double mibPerSecond(long bytes, long nanos) {
        return bytes / (double) (1 << 20) / (nanos / 1e9);
    }

    /**
     * 1 MiB writes from a {@code sourceBytes} buffer in turn, drained by a thread reading {@code readSize} bytes at a
     * time into {@code sinks} buffers of 1 MiB in turn ({@link #SCRATCH}: into one buffer of {@code readSize}).
     */
    private static final class TcpStream implements Stream {
        private final ServerSocketChannel server;
        private final SocketChannel writer;
        private final SocketChannel reader;
        private final AtomicLong received = new AtomicLong();
        private final Thread drain;
        private final ByteBuffer source;
        private long written;
        private int next;

        TcpStream(int sourceBytes, int readSize, int sinks) throws IOException {
            server = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            writer = SocketChannel.open(server.getLocalAddress());
            reader = server.accept();
            writer.setOption(StandardSocketOptions.TCP_NODELAY, true);
            drain = new Thread(() -> drain(readSize, sinks), "harness-tcp-drain");
            drain.setDaemon(true);
            drain.start();
            source = ByteBuffer.allocateDirect(sourceBytes);
            for (int i = 0; i < sourceBytes; i += 4096) {
                source.put(i, (byte) i); // touch every page before the first slice
            }
        }

        private void drain(int readSize, int sinks) {
            ByteBuffer sink = ByteBuffer.allocateDirect(sinks == SCRATCH ? readSize : sinks * SIZE);
            long at = 0;
            try {
                int n;
                do {
                    if (sinks == SCRATCH) {
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
                // closed: done
            }
        }

        @Override
        public Rate slice(long nanos) throws IOException {
            long c0 = Harness.Allocation.cpu();
            long t0 = System.nanoTime();
            long end = t0 + nanos;
            long bytes = 0;
            while (System.nanoTime() < end) {
                writeNext();
                bytes += SIZE;
            }
            written += bytes;
            while (received.get() < written) {
                LockSupport.parkNanos(20_000);
            }
            long t1 = System.nanoTime();
            return Rate.of(bytes, t1 - t0, Harness.Allocation.cpu() - c0);
        }

        /** Writes the next 1 MiB of the source (from its start again at its end). */
        private void writeNext() throws IOException {
            source.limit(next + SIZE).position(next);
            while (source.hasRemaining()) {
                writer.write(source);
            }
            next = next + SIZE >= source.capacity() ? 0 : next + SIZE;
        }

        @Override
        public void close() throws Exception {
            try (server; writer; reader) {
                writer.shutdownOutput();
                drain.join(10_000);
            }
        }
    }

    private static final class DeviceStream implements Stream {
        private final VerbsPair pair;
        private final SendWorkRequest wr;
        private final RecvWorkRequest recv;
        private final WorkCompletion[] batch = VerbsPair.completions(32);
        private int outstanding;
        /** When the device last completed anything (a send, a receive), for {@link #STALL_NANOS}. */
        private long progressAt;

        DeviceStream(HarnessConfig config, Opcode opcode) throws Exception {
            boolean send = opcode == Opcode.SEND;
            pair = new VerbsPair(config.device(), send ? SEND_RECEIVES : RDMA_DEPTH * 2);
            try {
                int rw = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ;
                RegisteredMemory local = pair.register(SIZE, rw);
                RegisteredMemory remote = pair.register(SIZE, rw);
                VerbsPair.wakes(pair.clientSendCq, Thread.currentThread());
                wr = VerbsPair.request(opcode, local, remote, SIZE);
                if (send) {
                    recv = new RecvWorkRequest(1);
                    recv.addSge().set(remote, 0, SIZE);
                    for (int i = 0; i < SEND_RECEIVES; i++) {
                        pair.server.postRecv(recv);
                    }
                } else {
                    recv = null;
                }
            } catch (Exception | Error e) {
                pair.close();
                throw e;
            }
        }

        @Override
        public Rate slice(long nanos) throws Exception {
            long c0 = Harness.Allocation.cpu();
            long t0 = System.nanoTime();
            long end = t0 + nanos;
            long completed = 0;
            progressAt = t0;
            while (System.nanoTime() < end) {
                while (outstanding < RDMA_DEPTH) {
                    pair.client.postSend(wr);
                    outstanding++;
                }
                int n = reap();
                outstanding -= n;
                completed += n;
            }
            while (outstanding > 0) {
                int n = reap();
                outstanding -= n;
                completed += n;
            }
            long t1 = System.nanoTime();
            return Rate.of(completed * SIZE, t1 - t0, Harness.Allocation.cpu() - c0);
        }

        /** Reposts the receives the server consumed; how many. */
        private int repostReceives() throws Exception {
            int received = pair.serverRecvCq.poll(batch);
            for (int i = 0; i < received; i++) {
                if (batch[i].status != WcStatus.SUCCESS) {
                    throw new IllegalStateException("receive failed: " + batch[i]);
                }
                pair.server.postRecv(recv);
            }
            return received;
        }

        /**
         * Reposts the receives the server consumed (SEND), then polls or waits for the client's completions. Fails,
         * instead of waiting for ever, when the device completes nothing for {@link #STALL_NANOS}, or when the
         * thread is interrupted (a test's timeout).
         */
        private int reap() throws Exception {
            int received = recv != null ? repostReceives() : 0;
            int n = VerbsPair.pollOrWait(pair.clientSendCq, batch);
            for (int i = 0; i < n; i++) {
                if (batch[i].status != WcStatus.SUCCESS) {
                    throw new IllegalStateException("work request failed: " + batch[i]);
                }
            }
            long now = System.nanoTime();
            if (n > 0 || received > 0) {
                progressAt = now;
            } else if (now - progressAt > STALL_NANOS) {
                throw new IllegalStateException("the device completed none of the " + outstanding + " work requests"
                        + " outstanding, and received nothing, for " + TimeUnit.NANOSECONDS.toSeconds(STALL_NANOS)
                        + " s: a stalled queue pair");
            }
            if (Thread.interrupted()) {
                throw new InterruptedException("stopped waiting for the device's completions");
            }
            return n;
        }

        @Override
        public void close() throws Exception {
            pair.close();
        }
    }
}
