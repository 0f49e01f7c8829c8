package org.rpcrdma4j.xprt.server;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
import org.rpcrdma4j.registration.RegisteredArena;
import org.rpcrdma4j.registration.RegisteredBuffer;
import org.rpcrdma4j.registration.RegisteredBufferPool;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.RdmaProviders;

/**
 * The server's lookup of a reply piece in its registered arenas ({@link RegisteredMemoryIndex#find}) and the record of
 * a buffer's arena on each allocation ({@link RegisteredMemoryIndex#record}), with as many arenas as a server holds
 * (4096 of 4 MiB for a 16 GiB in-memory export), beside a scan of every arena, the lookup the index did before. Each
 * operation looks up one of 64 addresses spread over the arenas. Allocation must be 0 ({@code -prof gc}).
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar RegisteredMemoryIndexBenchmark -prof gc
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class RegisteredMemoryIndexBenchmark {
    private static final int ARENA = 64 * 1024;

    @Param({"16", "1024", "4096"})
    public int arenas;

    private RdmaDevice device;
    private ProtectionDomain pd;
    private RegisteredBufferPool pool;
    private final List<RegisteredBuffer> buffers = new ArrayList<>();
    private final RegisteredMemoryIndex index = new RegisteredMemoryIndex();
    private final RegisteredMemoryIndex.Location location = new RegisteredMemoryIndex.Location();
    private RegisteredArena[] scanned;
    private final long[] addresses = new long[64];
    private final RegisteredBuffer[] recorded = new RegisteredBuffer[64];
    private int next;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        device = RdmaProviders.select("soft").open(Map.of("name", "index-bench"));
        pd = device.allocProtectionDomain();
        pool = RegisteredBufferPool.create(pd, new BufferPoolConfig(ARENA, 1, arenas, Duration.ofSeconds(5)));
        scanned = new RegisteredArena[arenas];
        for (int i = 0; i < arenas; i++) {
            RegisteredBuffer b = pool.allocate(ARENA);
            buffers.add(b);
            index.record(b);
            scanned[i] = b.arena();
        }
        for (int i = 0; i < addresses.length; i++) {
            RegisteredBuffer b = buffers.get((int) ((long) i * arenas / addresses.length));
            addresses[i] = b.arena().nativeAddress() + 4096;
            recorded[i] = b;
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        buffers.forEach(RegisteredBuffer::release);
        pool.close();
        pd.close();
        device.close();
    }

    @Benchmark
    public boolean find() {
        return index.find(addresses[next++ & 63], 4096, location);
    }

    @Benchmark
    public void record() {
        index.record(recorded[next++ & 63]);
    }

    /** The lookup as a scan of every arena. */
    @Benchmark
    public boolean scan() {
        long address = addresses[next++ & 63];
        for (RegisteredArena a : scanned) {
            long base = a.nativeAddress();
            if (address >= base && address + 4096 <= base + a.size()) {
                location.lkey = a.lkey();
                location.iova = a.address((int) (address - base));
                return true;
            }
        }
        return false;
    }
}
