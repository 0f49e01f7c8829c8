package org.rpcrdma4j.mount.bench;

import java.util.List;
import java.util.Locale;

/** The benchmark table: one line per workload, MB/s (10^6 bytes per second), IOPS and latency in microseconds. */
public final class BenchReport {
    private BenchReport() {
    }

    public static String header() {
        return String.format(Locale.ROOT, "%-10s %9s %9s %9s %9s %9s %9s %9s %9s%n", "workload", "ops", "MB/s",
                "IOPS", "p50 us", "p90 us", "p99 us", "p99.9 us", "max us");
    }

    public static String line(BenchResult r) {
        return String.format(Locale.ROOT, "%-10s %9d %9.1f %9.0f %9.0f %9.0f %9.0f %9.0f %9.0f%n",
                r.workload().label(), r.ops(), r.mbPerSecond(), r.iops(), r.micros(50), r.micros(90), r.micros(99),
                r.micros(99.9), r.maxMicros());
    }

    public static String table(List<BenchResult> results) {
        StringBuilder sb = new StringBuilder(header());
        results.forEach(r -> sb.append(line(r)));
        return sb.toString();
    }
}
