package org.rpcrdma4j.benchmarks.harness;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * How long and how big the harness measures.
 *
 * @param quick       the smoke mode run by the unit tests: tiny windows, figures meaningless, no targets judged
 * @param warmup      time each measurement runs before its window opens (JIT, pools, TCP windows)
 * @param measure     the measured window of each figure
 * @param fileBytes   size of the file READs read and of the file WRITEs overwrite (MemoryVfs, in the heap)
 * @param outstanding calls in flight for the throughput rows (the "16 outstanding")
 * @param only        when not null, only the NFS rows whose key contains it ({@code read_1m}, {@code rdma}, ...) run,
 *                    and the wire and memory rows are skipped: for profiling one row. A value starting with
 *                    {@value #WIRE_ONLY}: the wire rows whose key contains it ({@code wire}: all of them), no NFS or
 *                    memory row
 * @param device      options of the software devices the harness opens (wire rows, NFS client and server), e.g.
 *                    {@code confirmPlacement=false}; empty: the device's defaults. The memory probe always runs the
 *                    client's defaults.
 * @param jfr         when not null, the directory each measured NFS window is recorded into with Flight Recorder
 * @param inline      RFC 8797 inline thresholds (send and receive) of the NFS client and server over RDMA; 4096 is
 *                    both sides' default
 * @param settle      the most time a warm-up may be extended beyond {@code warmup} while the JIT compilers are still
 *                    busy ({@link JitSettle}); zero: the warm-up is exactly {@code warmup}
 */
public record HarnessConfig(boolean quick, Duration warmup, Duration measure, long fileBytes, int outstanding,
                            String only, Map<String, String> device, Path jfr, int inline, Duration settle) {

    public HarnessConfig {
        Objects.requireNonNull(warmup, "warmup");
        Objects.requireNonNull(measure, "measure");
        if (measure.isZero() || measure.isNegative() || warmup.isNegative()) {
            throw new IllegalArgumentException("windows must be positive: warmup " + warmup + ", measure " + measure);
        }
        if (fileBytes < (16L << 20) || fileBytes % (1 << 20) != 0) {
            throw new IllegalArgumentException("the file must be a whole number of MiB, at least 16: " + fileBytes);
        }
        if (outstanding < 1 || outstanding > 64) {
            throw new IllegalArgumentException("outstanding within 1..64: " + outstanding);
        }
        device = Map.copyOf(device);
        if (inline < 1024 || inline > 262144) {
            throw new IllegalArgumentException("inline thresholds within 1024..262144: " + inline);
        }
        Objects.requireNonNull(settle, "settle");
        if (settle.isNegative()) {
            throw new IllegalArgumentException("settle must not be negative: " + settle);
        }
    }

    /**
     * 3 s warm-up (extended by up to 30 s while the JIT is still compiling) and 5 s window per figure, a 64 MiB
     * file, 16 outstanding: about three minutes in all on an idle machine.
     */
    public static HarnessConfig fullRun() {
        return new HarnessConfig(false, Duration.ofSeconds(3), Duration.ofSeconds(5), 64L << 20, 16, null, Map.of(),
                null, 4096, Duration.ofSeconds(30));
    }

    /** A smoke run of a few seconds: every row is measured, briefly. */
    public static HarnessConfig quickRun() {
        return new HarnessConfig(true, Duration.ofMillis(150), Duration.ofMillis(250), 16L << 20, 16, null, Map.of(),
                null, 4096, Duration.ZERO);
    }

    public HarnessConfig withWindows(Duration newWarmup, Duration newMeasure) {
        return new HarnessConfig(quick, newWarmup, newMeasure, fileBytes, outstanding, only, device, jfr, inline,
                settle);
    }

    public HarnessConfig withOnly(String filter) {
        return new HarnessConfig(quick, warmup, measure, fileBytes, outstanding, filter, device, jfr, inline, settle);
    }

    /** With software device options parsed from {@code key=value,key=value}. */
    public HarnessConfig withDevice(String options) {
        Map<String, String> map = new HashMap<>();
        for (String kv : options.split(",")) {
            int eq = kv.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("device options are key=value,...: " + options);
            }
            map.put(kv.substring(0, eq).trim(), kv.substring(eq + 1).trim());
        }
        return new HarnessConfig(quick, warmup, measure, fileBytes, outstanding, only, map, jfr, inline, settle);
    }

    /** Recording each measured NFS window into {@code directory}. */
    public HarnessConfig withJfr(Path directory) {
        return new HarnessConfig(quick, warmup, measure, fileBytes, outstanding, only, device, directory, inline,
                settle);
    }

    /** With both sides' inline thresholds at {@code bytes}. */
    public HarnessConfig withInline(int bytes) {
        return new HarnessConfig(quick, warmup, measure, fileBytes, outstanding, only, device, jfr, bytes, settle);
    }

    /** With warm-ups extended by at most {@code max} while the JIT compilers are busy (zero: never). */
    public HarnessConfig withSettle(Duration max) {
        return new HarnessConfig(quick, warmup, measure, fileBytes, outstanding, only, device, jfr, inline, max);
    }

    /** The prefix of the {@code only} values that run wire rows alone. */
    public static final String WIRE_ONLY = "wire";

    /** Whether only the wire rows run. */
    boolean wireOnly() {
        return only != null && only.startsWith(WIRE_ONLY);
    }

    /** Whether the row {@code key} is to be measured. */
    boolean runs(String key) {
        return only == null || key.contains(only);
    }
}
