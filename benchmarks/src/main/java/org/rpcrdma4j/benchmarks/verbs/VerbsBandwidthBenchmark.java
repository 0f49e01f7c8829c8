package org.rpcrdma4j.benchmarks.verbs;

import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.Opcode;
import org.rpcrdma4j.verbs.RecvWorkRequest;
import org.rpcrdma4j.verbs.RegisteredMemory;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.WcStatus;
import org.rpcrdma4j.verbs.WorkCompletion;

/**
 * Bandwidth of the software iWARP device over loopback: RDMA Write, RDMA Read and Send of one message size, kept
 * {@link #depth} deep. One operation = one message posted and (eventually) completed; the {@code bytes} counter
 * gives the payload rate. Compare with {@link NioBandwidthBenchmark} in the same run. With {@code -prof gc}, the
 * allocation per operation covers the whole post/transfer/complete path (engine threads included).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Thread)
public class VerbsBandwidthBenchmark {

    @Param({"RDMA_WRITE", "RDMA_READ", "SEND"})
    public String op;

    @Param({"4096", "65536", "1048576"})
    public int size;

    /** Extra device options, {@code key=value,key=value} (e.g. {@code crc=true}). */
    @Param({""})
    public String options;

    private VerbsPair pair;
    private RegisteredMemory local;
    private RegisteredMemory remote;
    private SendWorkRequest wr;
    private RecvWorkRequest recv;
    private final WorkCompletion[] batch = VerbsPair.completions(32);
    private int depth;
    private int outstanding;

    /** Payload bytes moved, as a rate. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Bytes {
        public long bytes;

        @Setup(Level.Iteration)
        public void reset() {
            bytes = 0;
        }
    }

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        depth = Math.max(4, Math.min(64, (8 << 20) / size));
        pair = new VerbsPair(parse(options), depth * 2);
        int rw = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ;
        local = pair.register(size, rw);
        remote = pair.register(size, rw);
        VerbsPair.wakes(pair.clientSendCq, Thread.currentThread());
        wr = VerbsPair.request(Opcode.valueOf(op), local, remote, size);
        recv = new RecvWorkRequest(1);
        recv.addSge().set(remote, 0, size);
        if (wr.opcode == Opcode.SEND) {
            for (int i = 0; i < depth * 2; i++) {
                pair.server.postRecv(recv);
            }
        }
    }

    static Map<String, String> parse(String options) {
        Map<String, String> map = new java.util.HashMap<>();
        for (String kv : options.split(",")) {
            int eq = kv.indexOf('=');
            if (eq > 0) {
                map.put(kv.substring(0, eq).trim(), kv.substring(eq + 1).trim());
            }
        }
        return map;
    }

    @Benchmark
    public void transfer(Bytes counter) throws Exception {
        while (outstanding >= depth) {
            reap();
        }
        pair.client.postSend(wr);
        outstanding++;
        counter.bytes += size;
    }

    private void reap() throws Exception {
        if (wr.opcode == Opcode.SEND) {
            int received = pair.serverRecvCq.poll(batch);
            for (int i = 0; i < received; i++) {
                pair.server.postRecv(recv);
            }
        }
        int n = VerbsPair.pollOrWait(pair.clientSendCq, batch);
        for (int i = 0; i < n; i++) {
            if (batch[i].status != WcStatus.SUCCESS) {
                throw new IllegalStateException("work request failed: " + batch[i]);
            }
        }
        outstanding -= n;
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        while (outstanding > 0) {
            reap();
        }
        pair.close();
    }
}
