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
 * @param device      options of the devices the harness opens (wire rows, NFS client and server), e.g.
 *                    {@code confirmPlacement=false}; empty: the software device's defaults. With {@code provider}
 *                    the devices are that provider's ({@code provider=ffm,address=10.0.2.15}: a verbs device), and
 *                    {@code address} is where the NFS rows' servers listen. The memory probe always runs the software
 *                    client's defaults.
 * @param jfr         when not null, the directory each measured NFS window is recorded into with Flight Recorder
 * @param inline      RFC 8797 inline thresholds (send and receive) of the NFS client and server over RDMA; 8192 is
 *                    both sides' default
 * @param settle      the most time a warm-up may be extended beyond {@code warmup} while the JIT compilers are still
 *                    busy ({@link JitSettle}); zero: the warm-up is exactly {@code warmup}
 * @param rounds      how many times each NFS figure is measured, its peers' figures in between (RDMA, oncrpc4j TCP
 *                    and EMC in turn), each time for {@code measure / rounds}: a figure is the median of its rounds
 *                    and a ratio the median of the ratios within each round, so that a change in the machine's state
 *                    during the run (the loopback reader's cache-hot and cache-cold modes, another process) moves
 *                    both sides of a ratio alike. The wire rows take turns in shorter slices
 *                    ({@link #wireSlice()}), as many as fill {@code measure}
 * @param sameThread  whether the NFS server over RDMA runs its calls on the connections' threads
 *                    ({@code RdmaRpcServer.Builder.sameThreadDispatch}; the {@code MemoryVfs} never blocks) instead of
 *                    its dispatch pool (the default)
 */
public record HarnessConfig(boolean quick, Duration warmup, Duration measure, long fileBytes, int outstanding,
                            String only, Map<String, String> device, Path jfr, int inline, Duration settle,
                            int rounds, boolean sameThread) {

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
        if (rounds < 1 || rounds > 20) {
            throw new IllegalArgumentException("rounds within 1..20: " + rounds);
        }
    }

    /**
     * 3 s warm-up (extended by up to 30 s while the JIT is still compiling) and 6 s window per figure in three rounds
     * of 2 s, a 64 MiB file, 16 outstanding: about five minutes in all on an idle machine.
     */
    public static HarnessConfig fullRun() {
        return new HarnessConfig(false, Duration.ofSeconds(3), Duration.ofSeconds(6), 64L << 20, 16, null, Map.of(),
                null, 8192, Duration.ofSeconds(30), 3, false);
    }

    /** A smoke run of a few seconds: every row is measured, briefly, in two rounds. */
    public static HarnessConfig quickRun() {
        return new HarnessConfig(true, Duration.ofMillis(150), Duration.ofMillis(250), 16L << 20, 16, null, Map.of(),
                null, 8192, Duration.ZERO, 2, false);
    }

    public HarnessConfig withWindows(Duration newWarmup, Duration newMeasure) {
        return new HarnessConfig(quick, newWarmup, newMeasure, fileBytes, outstanding, only, device, jfr, inline,
                settle, rounds, sameThread);
    }

    public HarnessConfig withOnly(String filter) {
        return new HarnessConfig(quick, warmup, measure, fileBytes, outstanding, filter, device, jfr, inline, settle,
                rounds, sameThread);
    }

    /**
     * Where the NFS rows' servers listen: the device option {@code address} (the interface of a verbs device), or null
     * for a loopback address of the harness's choosing.
     */
    public String listenAddress() {
        return device.get("address");
    }

    /** The RDMA rows' device as the report names it: {@code soft iWARP}, or the provider the options name. */
    public String deviceName() {
        String provider = device.get("provider");
        return provider == null || provider.equals("soft") ? "soft iWARP" : provider;
    }

    /** With device options parsed from {@code key=value,key=value}. */
    public HarnessConfig withDevice(String options) {
        Map<String, String> map = new HashMap<>();
        for (String kv : options.split(",")) {
            int eq = kv.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("device options are key=value,...: " + options);
            }
            map.put(kv.substring(0, eq).trim(), kv.substring(eq + 1).trim());
        }
        return new HarnessConfig(quick, warmup, measure, fileBytes, outstanding, only, map, jfr, inline, settle,
                rounds, sameThread);
    }

    /** Recording each measured NFS window into {@code directory}. */
    public HarnessConfig withJfr(Path directory) {
        return new HarnessConfig(quick, warmup, measure, fileBytes, outstanding, only, device, directory, inline,
                settle, rounds, sameThread);
    }

    /** With both sides' inline thresholds at {@code bytes}. */
    public HarnessConfig withInline(int bytes) {
        return new HarnessConfig(quick, warmup, measure, fileBytes, outstanding, only, device, jfr, bytes, settle,
                rounds, sameThread);
    }

    /** With warm-ups extended by at most {@code max} while the JIT compilers are busy (zero: never). */
    public HarnessConfig withSettle(Duration max) {
        return new HarnessConfig(quick, warmup, measure, fileBytes, outstanding, only, device, jfr, inline, max,
                rounds, sameThread);
    }

    /** With the RDMA server running calls on its connections' threads ({@code sameThreadDispatch}). */
    public HarnessConfig withSameThread() {
        return new HarnessConfig(quick, warmup, measure, fileBytes, outstanding, only, device, jfr, inline, settle,
                rounds, true);
    }

    /** Measuring each figure in {@code n} rounds. */
    public HarnessConfig withRounds(int n) {
        return new HarnessConfig(quick, warmup, measure, fileBytes, outstanding, only, device, jfr, inline, settle, n,
                sameThread);
    }

    /**
     * The windows of round {@code round} (from 0) of a figure: the whole warm-up before the first, a short one
     * (at most a second: the code is compiled, only the connection and caches need it) before each later one; the
     * measured window is {@code measure / rounds}.
     */
    Duration warmupOf(int round) {
        return round == 0 ? warmup : atMost(warmup, Duration.ofSeconds(1));
    }

    /** The measured window of one round. */
    Duration roundWindow() {
        return measure.dividedBy(rounds);
    }

    /** The longest slice a wire row runs before the next row takes its turn. */
    static final Duration WIRE_SLICE = Duration.ofMillis(200);

    /**
     * How long a wire row runs in each turn: {@link #WIRE_SLICE}, or a round's window if shorter. Loopback TCP's rate
     * here swings by 2x from one second to the next; rows that take turns within a fraction of a second see the same
     * machine.
     */
    Duration wireSlice() {
        return atMost(roundWindow(), WIRE_SLICE);
    }

    /** The unmeasured run of a wire row's new connection before its slice, once the row has been warmed up. */
    static final Duration WIRE_RECONNECT_WARMUP = Duration.ofMillis(100);

    /** {@link #WIRE_RECONNECT_WARMUP}, or the warm-up if shorter. */
    Duration wireReconnectWarmup() {
        return atMost(warmup, WIRE_RECONNECT_WARMUP);
    }

    private static Duration atMost(Duration d, Duration max) {
        return d.compareTo(max) < 0 ? d : max;
    }

    /** How many turns the wire rows take: as many slices as fill the measured window. */
    int wireSlices() {
        return (int) Math.max(1, measure.toNanos() / wireSlice().toNanos());
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
