package org.rpcrdma4j.benchmarks.codec;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.List;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * Adds {@code cpu.time.norm}: CPU time of the benchmark's worker threads per operation, in nanoseconds, averaged
 * over the iterations, and {@code cpu.time.min}, the quietest iteration's. On a machine shared with other builds the
 * time a worker spends descheduled inflates {@code ns/op} but not these figures (a busy sibling core still slows the
 * worker down), so A/B comparisons of a few nanoseconds stay readable under load: run many short iterations
 * ({@code -i 20 -r 200ms}) and compare the minima.
 * <p>
 * {@code java -jar benchmarks/target/benchmarks.jar 'RpcRdmaCodecBenchmark' -prof org.rpcrdma4j.benchmarks.codec.ThreadCpuProfiler}
 */
public class ThreadCpuProfiler implements InternalProfiler {

    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private long before;

    @Override
    public String getDescription() {
        return "CPU time of the JMH worker threads per operation";
    }

    @Override
    public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
        before = workerCpuTime();
    }

    @Override
    public List<? extends Result> afterIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams,
                                                 IterationResult result) {
        long cpu = workerCpuTime() - before;
        long ops = result.getMetadata().getAllOps();
        double perOp = ops == 0 ? Double.NaN : (double) cpu / ops;
        return List.of(new ScalarResult("cpu.time.norm", perOp, "ns/op", AggregationPolicy.AVG),
                new ScalarResult("cpu.time.min", perOp, "ns/op", AggregationPolicy.MIN));
    }

    /** Sum of the CPU time of the live JMH worker threads (they persist across the iterations of a fork). */
    private long workerCpuTime() {
        long sum = 0;
        for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (info != null && info.getThreadName().contains("jmh-worker")) {
                long t = threads.getThreadCpuTime(info.getThreadId());
                if (t > 0) {
                    sum += t;
                }
            }
        }
        return sum;
    }
}
