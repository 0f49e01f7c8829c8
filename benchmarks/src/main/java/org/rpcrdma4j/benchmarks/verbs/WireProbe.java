package org.rpcrdma4j.benchmarks.verbs;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Locale;
import java.util.Map;

import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.Opcode;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.RecvWorkRequest;
import org.rpcrdma4j.verbs.RegisteredMemory;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.WcStatus;
import org.rpcrdma4j.verbs.WorkCompletion;
import org.rpcrdma4j.verbs.soft.internal.SoftQp;

/**
 * Moves a fixed number of messages over the software device (or raw loopback TCP) and prints the CPU time they took,
 * so that figures from outside the JVM over the same run ({@code strace -f -c}, {@code perf stat}) can be divided by
 * a known message count:
 * <pre>
 * java -cp benchmarks.jar org.rpcrdma4j.benchmarks.verbs.WireProbe OP SIZE COUNT [DEPTH] [key=value,...]
 * </pre>
 * {@code OP} is {@code RDMA_WRITE}, {@code RDMA_READ}, {@code SEND} or {@code TCP}; {@code DEPTH} messages are kept
 * in flight (default 8; 1 gives one message and its completion at a time, the small-call pattern); for {@code TCP}
 * it is the reader's read size in KiB (default 64). A warm-up of the
 * same count runs first; the figures printed cover the second run only, and the line "marker" is printed between the
 * two so that a tracer can tell them apart. Not a benchmark with statistics: a probe.
 */
public final class WireProbe {
    private WireProbe() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println("usage: WireProbe RDMA_WRITE|RDMA_READ|SEND|TCP|PINGPONG SIZE COUNT [DEPTH] "
                    + "[key=value,...]");
            System.exit(2);
        }
        String op = args[0].toUpperCase(Locale.ROOT);
        int size = Integer.parseInt(args[1]);
        long count = Long.parseLong(args[2]);
        int depth = args.length > 3 ? Integer.parseInt(args[3]) : 8;
        Map<String, String> options = VerbsBandwidthBenchmark.parse(args.length > 4 ? args[4] : "");
        if (op.equals("PINGPONG")) {
            pingPong(size, count, options);
        } else if (op.equals("TCPFRAMED")) {
            tcpFramed(size, count, depth);
        } else if (op.equals("TCP")) {
            tcp(size, count, args.length > 3 ? depth << 10 : 64 << 10);
        } else {
            rdma(Opcode.valueOf(op), size, count, depth, options);
        }
    }

    private static void rdma(Opcode opcode, int size, long count, int depth, Map<String, String> options)
            throws Exception {
        boolean send = opcode == Opcode.SEND;
        int receives = depth * 4;
        try (VerbsPair pair = new VerbsPair(options, Math.max(receives, depth * 2))) {
            int rw = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ;
            RegisteredMemory local = pair.register(size, rw);
            RegisteredMemory remote = pair.register(size, rw);
            VerbsPair.wakes(pair.clientSendCq, Thread.currentThread());
            SendWorkRequest wr = VerbsPair.request(opcode, local, remote, size);
            RecvWorkRequest recv = null;
            if (send) {
                recv = new RecvWorkRequest(1);
                recv.addSge().set(remote, 0, size);
                for (int i = 0; i < receives; i++) {
                    pair.server.postRecv(recv);
                }
            }
            WorkCompletion[] batch = VerbsPair.completions(32);
            run(pair, wr, recv, batch, count, depth);
            System.out.println("marker");
            Threads before = Threads.sample();
            long c0 = cpu();
            long t0 = System.nanoTime();
            run(pair, wr, recv, batch, count, depth);
            report(opcode.name(), size, count, System.nanoTime() - t0, cpu() - c0);
            Threads.sample().printSince(before, count);
            printProbeAnswers("responder", pair.server);
        }
    }

    private static void run(VerbsPair pair, SendWorkRequest wr, RecvWorkRequest recv, WorkCompletion[] batch,
                            long count, int depth) throws Exception {
        long posted = 0;
        long done = 0;
        while (done < count) {
            while (posted < count && posted - done < depth) {
                pair.client.postSend(wr);
                posted++;
            }
            if (recv != null) {
                int received = pair.serverRecvCq.poll(batch);
                for (int i = 0; i < received; i++) {
                    check(batch[i]);
                    pair.server.postRecv(recv);
                }
            }
            int n = VerbsPair.pollOrWait(pair.clientSendCq, batch);
            for (int i = 0; i < n; i++) {
                check(batch[i]);
            }
            done += n;
        }
    }

    /**
     * Request/response, one outstanding: the client Sends {@code size} bytes, a responder thread answers each with a
     * Send of the same size, the client waits for the answer before the next. Both Sends are signaled; their
     * completions are drained on the way (with placement confirmation they come with the peer's probe answers).
     */
    private static void pingPong(int size, long count, Map<String, String> options) throws Exception {
        try (VerbsPair pair = new VerbsPair(options, 64)) {
            RegisteredMemory clientMem = pair.register(2 * size, Access.LOCAL_WRITE);
            RegisteredMemory serverMem = pair.register(2 * size, Access.LOCAL_WRITE);
            SendWorkRequest call = new SendWorkRequest(1);
            call.opcode = Opcode.SEND;
            call.flags = SendWorkRequest.SIGNALED;
            call.addSge().set(clientMem, 0, size);
            SendWorkRequest reply = new SendWorkRequest(1);
            reply.opcode = Opcode.SEND;
            reply.flags = SendWorkRequest.SIGNALED;
            reply.addSge().set(serverMem, 0, size);
            RecvWorkRequest clientRecv = new RecvWorkRequest(1);
            clientRecv.addSge().set(clientMem, size, size);
            RecvWorkRequest serverRecv = new RecvWorkRequest(1);
            serverRecv.addSge().set(serverMem, size, size);
            for (int i = 0; i < 8; i++) {
                pair.client.postRecv(clientRecv);
                pair.server.postRecv(serverRecv);
            }
            Thread responder = new Thread(() -> {
                WorkCompletion[] b = VerbsPair.completions(8);
                try {
                    for (long i = 0; i < 2 * count; ) {
                        int n = VerbsPair.pollOrWait(pair.serverRecvCq, b);
                        for (int k = 0; k < n; k++) {
                            check(b[k]);
                            pair.server.postRecv(serverRecv);
                            pair.server.postSend(reply);
                            i++;
                        }
                        drainSends(pair.serverSendCq, b);
                    }
                } catch (Exception e) {
                    e.printStackTrace();
                }
            }, "responder");
            VerbsPair.wakes(pair.serverRecvCq, responder);
            VerbsPair.wakes(pair.clientRecvCq, Thread.currentThread());
            responder.start();
            WorkCompletion[] b = VerbsPair.completions(8);
            pingPongRun(pair, call, clientRecv, b, count);
            System.out.println("marker");
            Threads before = Threads.sample();
            long c0 = cpu();
            long t0 = System.nanoTime();
            pingPongRun(pair, call, clientRecv, b, count);
            report("PINGPONG", size, count, System.nanoTime() - t0, cpu() - c0);
            Threads.sample().printSince(before, count);
            responder.join(10_000);
            printProbeAnswers("client", pair.client);
            printProbeAnswers("responder", pair.server);
        }
    }

    private static void pingPongRun(VerbsPair pair, SendWorkRequest call, RecvWorkRequest recv, WorkCompletion[] b,
                                    long count) throws Exception {
        for (long i = 0; i < count; i++) {
            pair.client.postSend(call);
            int n;
            while ((n = VerbsPair.pollOrWait(pair.clientRecvCq, b)) == 0) {
                drainSends(pair.clientSendCq, b);
            }
            check(b[0]);
            pair.client.postRecv(recv);
            drainSends(pair.clientSendCq, b);
        }
    }

    private static void drainSends(org.rpcrdma4j.verbs.CompletionQueue cq, WorkCompletion[] b) {
        int n;
        while ((n = cq.poll(b)) > 0) {
            for (int k = 0; k < n; k++) {
                check(b[k]);
            }
        }
    }

    /** The soft device's held-probe-answer counters of {@code qp} (over both runs); nothing for other devices. */
    private static void printProbeAnswers(String who, QueuePair qp) {
        if (qp instanceof SoftQp soft) {
            System.out.printf(Locale.ROOT, "  %s's probe answers (both runs): %d held, %d sent with other output (%d by "
                            + "a posting thread), %d sent when the hold expired%n", who, soft.probeAnswersHeld(),
                    soft.probeAnswersCarried(), soft.probeAnswersCarriedByPoster(), soft.probeAnswerHoldsExpired());
        }
    }

    private static void check(WorkCompletion wc) {
        if (wc.status != WcStatus.SUCCESS) {
            throw new IllegalStateException("work request failed: " + wc);
        }
    }

    private static void tcp(int size, long count, int readSize) throws Exception {
        try (ServerSocketChannel server = ServerSocketChannel.open()
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
             SocketChannel writer = SocketChannel.open(server.getLocalAddress());
             SocketChannel reader = server.accept()) {
            writer.setOption(StandardSocketOptions.TCP_NODELAY, true);
            Thread drain = drain(reader, readSize);
            ByteBuffer source = ByteBuffer.allocateDirect(size);
            for (long i = 0; i < count; i++) {
                writeFully(writer, source);
            }
            System.out.println("marker");
            Threads before = Threads.sample();
            long c0 = cpu();
            long t0 = System.nanoTime();
            for (long i = 0; i < count; i++) {
                writeFully(writer, source);
            }
            long t1 = System.nanoTime();
            long c1 = cpu();
            Threads after = Threads.sample();
            writer.shutdownOutput();
            drain.join(10_000);
            report("TCP", size, count, t1 - t0, c1 - c0);
            after.printSince(before, count);
        }
    }

    /**
     * Raw TCP, but each message written as the device frames it: {@code frame}-byte payload pieces between a 16-byte
     * header and a 4-byte trailer, up to 16 frames per gathering write (the kernel's cost of that shape, no device).
     */
    private static void tcpFramed(int size, long count, int frame) throws Exception {
        try (ServerSocketChannel server = ServerSocketChannel.open()
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
             SocketChannel writer = SocketChannel.open(server.getLocalAddress());
             SocketChannel reader = server.accept()) {
            writer.setOption(StandardSocketOptions.TCP_NODELAY, true);
            Thread drain = drain(reader, 64 << 10);
            ByteBuffer source = ByteBuffer.allocateDirect(size);
            ByteBuffer[] views = new ByteBuffer[16];
            ByteBuffer[] headers = new ByteBuffer[16];
            ByteBuffer[] trailers = new ByteBuffer[16];
            for (int i = 0; i < 16; i++) {
                views[i] = source.duplicate();
                headers[i] = ByteBuffer.allocateDirect(16);
                trailers[i] = ByteBuffer.allocateDirect(4);
            }
            ByteBuffer[] gather = new ByteBuffer[48];
            for (int pass = 0; pass < 2; pass++) {
                if (pass == 1) {
                    System.out.println("marker");
                }
                Threads before = Threads.sample();
                long c0 = cpu();
                long t0 = System.nanoTime();
                for (long m = 0; m < count; m++) {
                    int done = 0;
                    while (done < size) {
                        int n = 0;
                        for (int f = 0; f < 16 && done < size; f++) {
                            int len = Math.min(frame, size - done);
                            gather[n++] = headers[f].clear();
                            gather[n++] = views[f].limit(done + len).position(done);
                            gather[n++] = trailers[f].clear();
                            done += len;
                        }
                        long left = 0;
                        for (int i = 0; i < n; i++) {
                            left += gather[i].remaining();
                        }
                        while (left > 0) {
                            left -= writer.write(gather, 0, n);
                        }
                    }
                }
                long t1 = System.nanoTime();
                long c1 = cpu();
                if (pass == 1) {
                    report("TCPFRAMED", size, count, t1 - t0, c1 - c0);
                    Threads.sample().printSince(before, count);
                }
            }
            writer.shutdownOutput();
            drain.join(10_000);
        }
    }

    /** Starts a thread that reads {@code reader} {@code readSize} bytes at a time and drops them, until it closes. */
    private static Thread drain(SocketChannel reader, int readSize) {
        Thread drain = new Thread(() -> {
            ByteBuffer sink = ByteBuffer.allocateDirect(readSize);
            try {
                while (reader.read(sink.clear()) >= 0) {
                    // drop
                }
            } catch (java.io.IOException e) {
                // closed
            }
        }, "probe-tcp-drain");
        drain.start();
        return drain;
    }

    private static void writeFully(SocketChannel channel, ByteBuffer source) throws java.io.IOException {
        source.clear();
        while (source.hasRemaining()) {
            channel.write(source);
        }
    }

    private static void report(String what, int size, long count, long nanos, long cpuNanos) {
        double mib = count * (double) size / (1 << 20);
        System.out.printf(Locale.ROOT, "%s %d B x %d: %.0f MiB/s, %.1f us CPU per message, %.0f us CPU per MiB, "
                        + "%.1f us per message%n", what, size, count, mib / (nanos / 1e9), cpuNanos / 1e3 / count,
                cpuNanos / 1e3 / mib, nanos / 1e3 / count);
    }

    private static long cpu() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    /** Per-thread CPU time and context switches from /proc (Linux), to see which thread pays and how often it sleeps. */
    private static final class Threads {
        final java.util.Map<String, long[]> byTid = new java.util.TreeMap<>();

        static Threads sample() {
            Threads t = new Threads();
            java.io.File[] tasks = new java.io.File("/proc/self/task").listFiles();
            if (tasks == null) {
                return t;
            }
            for (java.io.File task : tasks) {
                try {
                    String comm = java.nio.file.Files.readString(task.toPath().resolve("comm")).trim();
                    String stat = java.nio.file.Files.readString(task.toPath().resolve("stat"));
                    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
                    long vol = 0;
                    long invol = 0;
                    for (String line : java.nio.file.Files.readAllLines(task.toPath().resolve("status"))) {
                        if (line.startsWith("voluntary_ctxt_switches:")) {
                            vol = Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                        } else if (line.startsWith("nonvoluntary_ctxt_switches:")) {
                            invol = Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                        }
                    }
                    t.byTid.put(task.getName() + " " + comm, new long[] {ticks, vol, invol});
                } catch (java.io.IOException | RuntimeException e) {
                    // the thread ended meanwhile
                }
            }
            return t;
        }

        void printSince(Threads before, long count) {
            for (java.util.Map.Entry<String, long[]> e : byTid.entrySet()) {
                long[] b = before.byTid.getOrDefault(e.getKey(), new long[3]);
                long[] a = e.getValue();
                long ticks = a[0] - b[0];
                if (ticks == 0 && a[1] == b[1]) {
                    continue;
                }
                System.out.printf(Locale.ROOT, "  %-28s cpu %6d ms  %.2f vol + %.2f invol switches per message%n",
                        e.getKey(), ticks * 10, (a[1] - b[1]) / (double) count, (a[2] - b[2]) / (double) count);
            }
        }
    }
}
