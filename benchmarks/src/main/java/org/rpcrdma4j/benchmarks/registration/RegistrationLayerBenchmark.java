package org.rpcrdma4j.benchmarks.registration;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

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
import org.rpcrdma4j.registration.BufferPoolConfig;
import org.rpcrdma4j.registration.ChunkRole;
import org.rpcrdma4j.registration.InvalidationListener;
import org.rpcrdma4j.registration.RegisteredBuffer;
import org.rpcrdma4j.registration.RegisteredBufferPool;
import org.rpcrdma4j.registration.Registration;
import org.rpcrdma4j.registration.RegistrationConfig;
import org.rpcrdma4j.registration.RegistrationMode;
import org.rpcrdma4j.registration.RegistrationPool;
import org.rpcrdma4j.registration.ScatterList;
import org.rpcrdma4j.verbs.ConnectionInfo;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.QpState;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.QueuePairConfig;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.RdmaProviders;
import org.rpcrdma4j.verbs.RecvWorkRequest;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.WorkCompletion;

/**
 * The registration layer's own CPU cost for FRWR, without the device's round trip: handles are real fast-register
 * MRs of the software device, but the queue pair is a stand-in that executes nothing and returns the signaled
 * LOCAL_INV's completion at once. One operation = begin + map (page list filled, REG_MR prepared with a new key) +
 * pending chain + invalidate (LOCAL_INV chain built) + the completion routed back to the pool. With an aligned
 * buffer each size takes one handle, so ns/op is the cost per handle.
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar RegistrationLayer -prof gc
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Dio.netty.leakDetection.level=disabled"})
public class RegistrationLayerBenchmark {

    @Param({"4096", "1048576"})
    public int size;

    private RdmaDevice device;
    private ProtectionDomain pd;
    private RegisteredBufferPool buffers;
    private RegistrationPool pool;
    private Registration registration;
    private RegisteredBuffer buffer;
    private ScatterList list;
    private final NullQueuePair qp = new NullQueuePair();
    private final Listener listener = new Listener();
    private int xid;

    static final class Listener implements InvalidationListener {
        int calls;

        @Override
        public void onInvalidated(Registration registration) {
            calls++;
        }
    }

    /** Executes nothing; keeps the last signaled work request's completion for the benchmark to route. */
    static final class NullQueuePair implements QueuePair {
        final WorkCompletion completion = new WorkCompletion();
        boolean pending;

        @Override
        public void postSend(SendWorkRequest chain) {
            for (SendWorkRequest wr = chain; wr != null; wr = wr.next) {
                if (wr.signaled()) {
                    completion.clear();
                    completion.wrId = wr.wrId;
                    pending = true;
                }
            }
        }

        @Override
        public int qpNum() {
            return 0;
        }

        @Override
        public QpState state() {
            return QpState.RTS;
        }

        @Override
        public ProtectionDomain protectionDomain() {
            return null;
        }

        @Override
        public QueuePairConfig config() {
            return null;
        }

        @Override
        public ConnectionInfo connectionInfo() {
            return null;
        }

        @Override
        public void postRecv(RecvWorkRequest chain) {
        }

        @Override
        public void disconnect() {
        }

        @Override
        public void close() {
        }
    }

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        device = RdmaProviders.select("soft").open(Map.of());
        pd = device.allocProtectionDomain();
        buffers = RegisteredBufferPool.create(pd, new BufferPoolConfig(4 << 20, 1, 1, Duration.ofSeconds(10)));
        pool = RegistrationPool.create(pd, RegistrationConfig.defaults(4).withMode(RegistrationMode.FRWR));
        pool.attach(qp);
        registration = pool.newRegistration();
        buffer = buffers.allocate(size);
        list = new ScatterList(size / 4096 + 1).add(buffer, 0, size);
    }

    @Benchmark
    public int mapAndInvalidate() throws Exception {
        Registration r = registration.begin(xid++);
        int segments = r.map(list, ChunkRole.WRITE_CHUNK_SINK);
        SendWorkRequest chain = r.pendingChain();
        qp.postSend(chain);
        if (!r.invalidate(listener)) {
            qp.pending = false;
            pool.onCompletion(qp.completion);
        }
        return segments;
    }

    /**
     * As {@link #mapAndInvalidate()}, with the scatter list built from the buffer first, as a client does for every
     * call's Write chunk sink (the list's per-page pieces are part of the cost).
     */
    @Benchmark
    public int buildListMapAndInvalidate() throws Exception {
        list.clear().add(buffer, 0, size);
        return mapAndInvalidate();
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        if (listener.calls == 0) {
            throw new IllegalStateException("no invalidation finished: the benchmark measured nothing");
        }
        buffer.release();
        pool.close();
        buffers.close();
        pd.close();
        device.close();
    }
}
