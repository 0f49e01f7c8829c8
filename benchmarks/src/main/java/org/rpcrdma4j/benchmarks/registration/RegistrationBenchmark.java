package org.rpcrdma4j.benchmarks.registration;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
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
import org.rpcrdma4j.verbs.AcceptParameters;
import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.ConnectParameters;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.QueuePairConfig;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.RdmaListener;
import org.rpcrdma4j.verbs.RdmaProviders;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.WorkCompletion;

/**
 * One RPC's worth of registration on the software iWARP device: map a scatter list (4 KiB or 1 MiB, page-aligned),
 * post the pending chain (FRWR's REG_MR), invalidate, and wait for the invalidation to finish (FRWR: the signaled
 * LOCAL_INV completion; FMR: the unmap thread's synthetic completion; REG_MR: synchronous). The client's queue pair
 * is connected to a peer over loopback in this JVM. Steady state must allocate nothing for FRWR ({@code -prof gc}).
 * <pre>
 * mvn -B -pl benchmarks -am package -DskipTests
 * java -jar benchmarks/target/benchmarks.jar registration -prof gc
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Dio.netty.leakDetection.level=disabled"})
public class RegistrationBenchmark {

    @Param({"FRWR", "FMR", "REG_MR"})
    public String mode;

    @Param({"4096", "1048576"})
    public int size;

    private RdmaDevice device;
    private ProtectionDomain pd;
    private ProtectionDomain peerPd;
    private CompletionQueue deviceCq;
    private CompletionQueue cq;
    private CompletionQueue peerCq;
    private RdmaListener listener;
    private QueuePair qp;
    private QueuePair peerQp;
    private RegisteredBufferPool buffers;
    private RegistrationPool pool;
    private Registration registration;
    private RegisteredBuffer buffer;
    private ScatterList list;
    private final WorkCompletion[] batch = {new WorkCompletion(), new WorkCompletion(), new WorkCompletion(),
        new WorkCompletion()};
    private final Done done = new Done();
    private final Registration[] pipeline = new Registration[BATCH];
    private int xid;

    /** RPCs in flight per invocation of {@link #pipelined()}. */
    static final int BATCH = 16;

    static final class Done implements InvalidationListener {
        boolean fired;
        int count;

        @Override
        public void onInvalidated(Registration registration) {
            fired = true;
            count++;
        }
    }

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        device = RdmaProviders.select("soft").open(Map.of());
        pd = device.allocProtectionDomain();
        peerPd = device.allocProtectionDomain();
        buffers = RegisteredBufferPool.create(pd, new BufferPoolConfig(4 << 20, 1, 1, Duration.ofSeconds(10)));
        pool = RegistrationPool.create(pd, RegistrationConfig.defaults(BATCH)
                .withMode(RegistrationMode.valueOf(mode)));
        deviceCq = device.createCompletionQueue(4096);
        cq = pool.wrap(deviceCq);
        peerCq = device.createCompletionQueue(256);
        qp = pd.createQueuePair(new QueuePairConfig(deviceCq, deviceCq, 1024, 16, 1, 1, 64));
        peerQp = peerPd.createQueuePair(new QueuePairConfig(peerCq, peerCq, 64, 16, 1, 1, 64));
        listener = device.connectionManager().listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                request -> {
                    try {
                        request.accept(peerQp, new AcceptParameters(new byte[0], 16, 16), event -> { });
                    } catch (VerbsException e) {
                        request.reject(new byte[0]);
                    }
                });
        device.connectionManager().connect(qp, listener.localAddress(), new ConnectParameters(new byte[0], 16, 16),
                event -> { }).get(30, TimeUnit.SECONDS);
        pool.attach(qp);
        registration = pool.newRegistration();
        for (int i = 0; i < BATCH; i++) {
            pipeline[i] = pool.newRegistration();
        }
        buffer = buffers.allocate(size);
        list = new ScatterList(size / 4096 + 1).add(buffer, 0, size);
    }

    @Benchmark
    public int mapAndInvalidate() throws Exception {
        Registration r = registration.begin(xid++);
        int segments = r.map(list, ChunkRole.READ_CHUNK_SOURCE);
        SendWorkRequest chain = r.pendingChain();
        if (chain != null) {
            qp.postSend(chain);
        }
        if (!r.invalidate(done)) {
            while (!done.fired) {
                int n = cq.poll(batch);
                for (int i = 0; i < n; i++) {
                    if (pool.owns(batch[i].wrId)) {
                        pool.onCompletion(batch[i]);
                    }
                }
                if (n == 0) {
                    Thread.onSpinWait();
                }
            }
            done.fired = false;
            done.count = 0;
        }
        return segments;
    }

    /**
     * {@value #BATCH} RPCs at once: map and post all, invalidate all, then wait for every invalidation. The device's
     * completion latency is paid once per batch, so the time per operation approaches the CPU cost of one RPC's
     * registration (both threads of the device and of the benchmark included).
     */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int pipelined() throws Exception {
        int segments = 0;
        for (Registration r : pipeline) {
            r.begin(xid++);
            segments += r.map(list, ChunkRole.READ_CHUNK_SOURCE);
            SendWorkRequest chain = r.pendingChain();
            if (chain != null) {
                qp.postSend(chain);
            }
        }
        int pending = 0;
        for (Registration r : pipeline) {
            if (!r.invalidate(done)) {
                pending++;
            }
        }
        while (done.count < pending) {
            int n = cq.poll(batch);
            for (int i = 0; i < n; i++) {
                if (pool.owns(batch[i].wrId)) {
                    pool.onCompletion(batch[i]);
                }
            }
            if (n == 0) {
                Thread.onSpinWait();
            }
        }
        done.count = 0;
        done.fired = false;
        return segments;
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        buffer.release();
        qp.close();
        peerQp.close();
        listener.close();
        pool.close();
        buffers.close();
        cq.close();
        peerCq.close();
        pd.close();
        peerPd.close();
        device.close();
    }
}
