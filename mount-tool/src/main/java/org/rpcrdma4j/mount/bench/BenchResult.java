package org.rpcrdma4j.mount.bench;

import java.util.LinkedHashMap;
import java.util.Map;

import org.HdrHistogram.Histogram;

/**
 * One workload's outcome.
 *
 * @param workload what ran
 * @param ops      calls completed
 * @param bytes    data moved
 * @param nanos    from the first call to the last reply (for writes, to the COMMIT's reply)
 * @param latency  round-trip time of each call, in nanoseconds
 */
public record BenchResult(Workload workload, long ops, long bytes, long nanos, Histogram latency) {

    public double mbPerSecond() {
        return nanos == 0 ? 0 : bytes / 1e6 / (nanos / 1e9);
    }

    public double iops() {
        return nanos == 0 ? 0 : ops / (nanos / 1e9);
    }

    /** Latency at {@code percentile} (0..100) in microseconds. */
    public double micros(double percentile) {
        return latency.getTotalCount() == 0 ? 0 : latency.getValueAtPercentile(percentile) / 1e3;
    }

    public double maxMicros() {
        return latency.getTotalCount() == 0 ? 0 : latency.getMaxValue() / 1e3;
    }

    /** The numbers as a JSON-ready map. */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("workload", workload.label());
        m.put("ops", ops);
        m.put("bytes", bytes);
        m.put("seconds", nanos / 1e9);
        m.put("mb_per_s", mbPerSecond());
        m.put("iops", iops());
        Map<String, Object> lat = new LinkedHashMap<>();
        lat.put("p50", micros(50));
        lat.put("p90", micros(90));
        lat.put("p99", micros(99));
        lat.put("p99.9", micros(99.9));
        lat.put("max", maxMicros());
        m.put("latency_us", lat);
        return m;
    }
}
