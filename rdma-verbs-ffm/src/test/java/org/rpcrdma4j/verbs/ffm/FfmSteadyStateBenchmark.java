package org.rpcrdma4j.verbs.ffm;

import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The provider's data path under JMH, for {@code -prof gc} (which counts what every thread allocated, the device
 * thread that takes completion events included): a round is a receive, a WRITE+SEND chain and their completions
 * ({@link SteadyStatePair}), polled or waited for through completion events. Runs where there is a device (the guest:
 * {@code FfmGuestTest}); {@code address} is the RDMA interface's IPv4 address.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class FfmSteadyStateBenchmark {
    @Param("10.0.2.15")
    public String address;

    /** {@code poll}: spin on the queues; {@code notify}: arm them and park until the device thread's event. */
    @Param({"poll", "notify"})
    public String wait;

    private SteadyStatePair pair;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        pair = new SteadyStatePair(address, "notify".equals(wait));
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        pair.close();
    }

    @Benchmark
    public void round() throws Exception {
        pair.round();
    }
}
