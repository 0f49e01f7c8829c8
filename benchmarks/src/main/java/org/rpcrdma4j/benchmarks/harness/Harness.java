package org.rpcrdma4j.benchmarks.harness;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.HdrHistogram.Histogram;
import org.rpcrdma4j.benchmarks.harness.NfsRow.Client;
import org.rpcrdma4j.benchmarks.verbs.VerbsPair;
import org.rpcrdma4j.nfs.client.NfsClientConfig;
import org.rpcrdma4j.nfs.client.rdma.RdmaDataTransportFactory;
import org.rpcrdma4j.verbs.Opcode;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.xprt.client.RdmaClientConfig;

/**
 * The end-to-end harness: in one run, on loopback, the wire limits (raw NIO TCP, soft iWARP RDMA WRITE/READ/SEND),
 * NFSv3 READ/WRITE throughput and GETATTR latency over RDMA, over oncrpc4j TCP and with EMC's client against one
 * embedded server, CPU time and allocation per RPC, and memory per mount; printed as markdown tables with ratios and
 * the targets.
 * <pre>
 * mvn -B -q -pl benchmarks -am package -DskipTests
 * java -cp benchmarks/target/benchmarks.jar org.rpcrdma4j.benchmarks.harness.Harness [--quick]
 *     [--only KEY-PART] [--warmup SECONDS] [--measure SECONDS] [--settle SECONDS] [--rounds N]
 *     [--device key=value,...] [--jfr DIR] [--inline N] [--same-thread]
 * </pre>
 * {@code --quick} is the smoke mode the unit tests run (a few seconds; figures meaningless). {@code --only wire} runs
 * the wire rows alone (raw TCP two ways, soft iWARP RDMA WRITE, READ and SEND) and nothing else; {@code --only
 * wire.rdma_read} (or {@code wire.tcp}, {@code wire.cold_tcp}, {@code wire.rdma_write},
 * {@code wire.rdma_send}) one of them. {@code --only KEY-PART}
 * (e.g. {@code read_1m.rdma}) measures just the matching NFS rows and skips the others; {@code --jfr DIR} records each
 * measured NFS window, and only the window, with Flight Recorder into {@code DIR/<key>.jfr}; {@code --device
 * confirmPlacement=false} runs the software devices with other options (see {@code SoftIwarpOptions}), and {@code
 * --device provider=ffm,address=IP} runs the RDMA rows over a verbs device instead (Java 22 or later, with
 * {@code rdma-verbs-ffm}'s jar on the class path), its servers listening at that address; {@code
 * --inline 8192} sets both RDMA sides' inline thresholds; {@code --same-thread} has the RDMA server run its calls on
 * its connections' threads ({@code sameThreadDispatch}). Each NFS figure's warm-up is extended, by at most
 * {@code --settle} seconds (30 by default, 0 turns it off), until the JIT compilers have gone quiet
 * ({@link JitSettle}); the progress line of each figure says by how much, and how long the JIT still compiled within
 * the window. Progress goes to standard error, the tables to standard
 * output.
 */
public final class Harness {

    private Harness() {
    }

    public static void main(String[] args) throws Exception {
        HarnessConfig config = HarnessConfig.fullRun();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--quick" -> config = new HarnessConfig(true, HarnessConfig.quickRun().warmup(),
                        HarnessConfig.quickRun().measure(), HarnessConfig.quickRun().fileBytes(),
                        config.outstanding(), config.only(), config.device(), config.jfr(), config.inline(),
                        HarnessConfig.quickRun().settle(), HarnessConfig.quickRun().rounds(), config.sameThread());
                case "--inline" -> config = config.withInline(Integer.parseInt(args[++i]));
                case "--same-thread" -> config = config.withSameThread();
                case "--jfr" -> config = config.withJfr(Path.of(args[++i]));
                case "--device" -> config = config.withDevice(args[++i]);
                case "--only" -> config = config.withOnly(args[++i]);
                case "--warmup" -> config = config.withWindows(seconds(args[++i]), config.measure());
                case "--measure" -> config = config.withWindows(config.warmup(), seconds(args[++i]));
                case "--settle" -> config = config.withSettle(seconds(args[++i]));
                case "--rounds" -> config = config.withRounds(Integer.parseInt(args[++i]));
                default -> {
                    System.err.println("usage: Harness [--quick] [--only KEY-PART] [--warmup S] [--measure S] "
                            + "[--settle S] [--rounds N] [--device key=value,...] [--jfr DIR] [--inline BYTES] "
                            + "[--same-thread]");
                    System.exit(2);
                }
            }
        }
        try {
            Report report = run(config, System.err);
            System.out.println(machine(config));
            System.out.println(report.toMarkdown(config));
        } catch (Exception e) {
            e.printStackTrace();
            System.exit(1); // threads of a half-built fixture must not keep the JVM alive
        }
        System.exit(0);
    }

    private static Duration seconds(String s) {
        return Duration.ofMillis(Math.round(Double.parseDouble(s) * 1000));
    }

    /** Runs every measurement {@code config} asks for; progress lines go to {@code progress}. */
    public static Report run(HarnessConfig config, PrintStream progress) throws Exception {
        Report report = new Report();
        WindowRecorder recorder = new WindowRecorder(config.jfr());
        if (config.only() == null || config.wireOnly()) {
            WireRow[] rows = {
                new WireRow(Report.WIRE_TCP, "raw NIO TCP", WireLimits::scratchTcp),
                new WireRow(Report.WIRE_RDMA_WRITE, config.deviceName() + " RDMA WRITE",
                        () -> WireLimits.softRdma(config, Opcode.RDMA_WRITE)),
                new WireRow(Report.WIRE_RDMA_READ, config.deviceName() + " RDMA READ",
                        () -> WireLimits.softRdma(config, Opcode.RDMA_READ)),
                new WireRow(Report.WIRE_RDMA_SEND, config.deviceName() + " SEND",
                        () -> WireLimits.softRdma(config, Opcode.SEND)),
                new WireRow(Report.WIRE_COLD_TCP, "raw NIO TCP moving the NFS rows' memory",
                        () -> WireLimits.coldTcp(config.fileBytes())),
            };
            wireRows(config, report, progress, rows);
            if (config.wireOnly()) {
                return report;
            }
        }
        RdmaDevice clientDevice = VerbsPair.openDevice(config.device());
        try (NfsFixture fixture = NfsFixture.start(config)) {
            Map<Client, NfsDriver> drivers = new EnumMap<>(Client.class);
            try {
                // the load's stages never block: over RDMA they run where the reply was taken, as over oncrpc4j TCP
                NfsClientConfig rdma = NfsClientConfig.defaults().withStageExecutor(Runnable::run)
                        .withTransportFactory(new RdmaDataTransportFactory(RdmaClientConfig.builder()
                                .device(clientDevice).inlineSizes(config.inline(), config.inline()).jmx(false).build()));
                drivers.put(Client.RDMA, NfsClientDriver.mount(fixture.rdmaUrl() + "&vers=3", rdma,
                        fixture.fileBytes()));
                drivers.put(Client.TCP, NfsClientDriver.mount(fixture.tcpUrl() + "?vers=3", NfsClientConfig.defaults(),
                        fixture.fileBytes()));
                drivers.put(Client.RDMA41, NfsClientDriver.mount(fixture.rdmaUrl() + "&vers=4.1", rdma,
                        fixture.fileBytes()));
                drivers.put(Client.TCP41, NfsClientDriver.mount(fixture.tcpUrl() + "?vers=4.1",
                        NfsClientConfig.defaults(), fixture.fileBytes()));
                String emcUnavailable = fixture.emcUnavailable();
                if (emcUnavailable == null) {
                    try {
                        drivers.put(Client.EMC, new EmcDriver(fixture.host(), fixture.fileBytes(),
                                config.outstanding()));
                    } catch (IOException | RuntimeException e) {
                        emcUnavailable = "EMC's nfs-client could not mount: " + e;
                    }
                }
                for (NfsRow row : NfsRow.values()) {
                    if (row == NfsRow.GETATTR_P99) {
                        continue; // measured with p50
                    }
                    Map<Client, Histogram> latencies = new EnumMap<>(Client.class);
                    Set<Client> failed = EnumSet.noneOf(Client.class);
                    for (int round = 0; round < config.rounds(); round++) {
                        for (Client client : inTurn(Client.values(), round)) {
                            String key = row.figure(client);
                            if (!config.runs(key) || failed.contains(client)) {
                                continue;
                            }
                            NfsDriver driver = drivers.get(client);
                            if (driver == null) {
                                report.unavailable(key, emcUnavailable);
                                if (row == NfsRow.GETATTR_P50) {
                                    report.unavailable(NfsRow.GETATTR_P99.figure(client), emcUnavailable);
                                }
                                continue;
                            }
                            progress.println("nfs: " + key + roundLabel(config, round));
                            try {
                                if (row.latency()) {
                                    Histogram h = latency(config, round, driver, client, report, progress, recorder);
                                    latencies.computeIfAbsent(client, c -> new Histogram(h.getHighestTrackableValue(),
                                            h.getNumberOfSignificantValueDigits())).add(h);
                                } else {
                                    throughput(config, round, driver, row, client, report, progress, recorder);
                                }
                            } catch (Exception e) {
                                failed.add(client);
                                report.unavailable(key, key + " failed: " + e);
                                if (row == NfsRow.GETATTR_P50) {
                                    report.unavailable(NfsRow.GETATTR_P99.figure(client), key + " failed: " + e);
                                }
                                e.printStackTrace(progress);
                            }
                        }
                    }
                    // p99 over every round's calls together: a tail needs the samples of the whole window
                    latencies.forEach((client, h) -> {
                        if (!failed.contains(client)) {
                            report.put(NfsRow.GETATTR_P99.figure(client), h.getValueAtPercentile(99) / 1000.0);
                        }
                    });
                }
                pairedGetattr(config, drivers, report, progress);
                readInTurnsWithRawTcp(config, drivers.get(Client.RDMA), report, progress);
                writeInTurnsWithTcp(config, drivers.get(Client.RDMA), drivers.get(Client.TCP), report, progress);
                plainRpcCallsInTurns(config, fixture, clientDevice, report, progress);
            } finally {
                drivers.values().forEach(NfsDriver::close);
            }
            progress.println(fixture.serverMemoryNote());
            if (config.only() == null) {
                progress.println("memory per mount (child JVM)");
                memory(fixture, report);
            }
        } finally {
            clientDevice.close();
        }
        report.note("alloc", "cost per RPC: CPU time of the whole process (OperatingSystemMXBean) and bytes "
                + "allocated by every live thread (ThreadMXBean) during the window, divided by the calls completed; "
                + "client, server and device threads together. CPU per call is the figure least disturbed by other "
                + "load on the machine");
        return report;
    }

    private static void throughput(HarnessConfig config, int round, NfsDriver driver, NfsRow row, Client client,
                                   Report report, PrintStream progress, WindowRecorder recorder) throws Exception {
        try (NfsDriver.Load load = driver.load(row, config.outstanding())) {
            if (load.limitation() != null) {
                report.note(row.figure(client), load.limitation());
            }
            load.run(System.nanoTime() + config.warmupOf(round).toNanos());
            JitSettle.Outcome settled = round == 0 ? JitSettle.settle(load::run, config.settle())
                    : JitSettle.Outcome.NOT_NEEDED;
            recorder.start(row.figure(client) + roundSuffix(config, round));
            long j0 = JitSettle.compilationMillis();
            long a0 = Allocation.total();
            long c0 = Allocation.cpu();
            long t0 = System.nanoTime();
            long calls = load.run(t0 + config.roundWindow().toNanos());
            long t1 = System.nanoTime();
            long c1 = Allocation.cpu();
            long a1 = Allocation.total();
            long j1 = JitSettle.compilationMillis();
            recorded(recorder.stop(), progress);
            double seconds = (t1 - t0) / 1e9;
            double value = "IOPS".equals(row.unit()) ? calls / seconds
                    : WireLimits.mibPerSecond(calls * row.size(), t1 - t0);
            progress.printf(Locale.ROOT, "  %s: %d calls in %.2f s%s%n", row.figure(client), calls, seconds,
                    warmupNote(settled, j1 - j0));
            report.put(row.figure(client), value);
            report.put(row.allocation(client), Math.max(0, a1 - a0) / (double) Math.max(1, calls));
            report.put(row.cpu(client), (c1 - c0) / 1000.0 / Math.max(1, calls));
        }
    }

    /** One round of GETATTR round trips; puts its p50 and costs, returns its histogram (for the p99 of all rounds). */
    private static Histogram latency(HarnessConfig config, int round, NfsDriver driver, Client client, Report report,
                                     PrintStream progress, WindowRecorder recorder) throws Exception {
        JitSettle.Slice warmup = deadline -> {
            while (System.nanoTime() < deadline) {
                driver.getattr();
            }
        };
        warmup.run(System.nanoTime() + config.warmupOf(round).toNanos());
        JitSettle.Outcome settled = round == 0 ? JitSettle.settle(warmup, config.settle())
                : JitSettle.Outcome.NOT_NEEDED;
        Histogram histogram = latencyHistogram();
        recorder.start(NfsRow.GETATTR_P50.figure(client) + roundSuffix(config, round));
        long j0 = JitSettle.compilationMillis();
        long a0 = Allocation.total();
        long c0 = Allocation.cpu();
        long end = System.nanoTime() + config.roundWindow().toNanos();
        long calls = 0;
        while (System.nanoTime() < end) {
            timed(driver, histogram);
            calls++;
        }
        long c1 = Allocation.cpu();
        long a1 = Allocation.total();
        long j1 = JitSettle.compilationMillis();
        recorded(recorder.stop(), progress);
        progress.printf(Locale.ROOT, "  %s: %d calls in %.2f s%s%n", NfsRow.GETATTR_P50.figure(client), calls,
                config.roundWindow().toNanos() / 1e9, warmupNote(settled, j1 - j0));
        report.put(NfsRow.GETATTR_P50.figure(client), histogram.getValueAtPercentile(50) / 1000.0);
        report.put(NfsRow.GETATTR_P50.allocation(client), Math.max(0, a1 - a0) / (double) Math.max(1, calls));
        report.put(NfsRow.GETATTR_P50.cpu(client), (c1 - c0) / 1000.0 / Math.max(1, calls));
        return histogram;
    }

    /**
     * GETATTR round trips over RDMA and over oncrpc4j TCP measured in alternation on one thread (RDMA first in every
     * other pair), so that both see the same machine at the same moments; per round, the p50 of each. Rounds of
     * separate windows catch the two transports in different states of the machine (other load, frequency, the
     * scheduler's placement of the threads), which swings a round's ratio by more than the difference between them.
     */
    private static void pairedGetattr(HarnessConfig config, Map<Client, NfsDriver> drivers, Report report,
                                      PrintStream progress) throws Exception {
        NfsDriver rdma = drivers.get(Client.RDMA);
        NfsDriver tcp = drivers.get(Client.TCP);
        if (!selected(config, report, Report.GETATTR_PAIRED_RDMA, Report.GETATTR_PAIRED_TCP, rdma != null && tcp != null,
                "alternating GETATTR needs both the RDMA and TCP mounts")) {
            return;
        }
        JitSettle.Slice both = deadline -> {
            while (System.nanoTime() < deadline) {
                rdma.getattr();
                tcp.getattr();
            }
        };
        for (int round = 0; round < config.rounds(); round++) {
            progress.println("nfs: GETATTR over RDMA and TCP alternating" + roundLabel(config, round));
            both.run(System.nanoTime() + config.warmupOf(round).toNanos());
            JitSettle.Outcome settled = round == 0 ? JitSettle.settle(both, config.settle())
                    : JitSettle.Outcome.NOT_NEEDED;
            Histogram overRdma = latencyHistogram();
            Histogram overTcp = latencyHistogram();
            long j0 = JitSettle.compilationMillis();
            long end = System.nanoTime() + config.roundWindow().toNanos();
            long pairs = 0;
            while (System.nanoTime() < end) {
                boolean rdmaFirst = (pairs++ & 1) == 0;
                timed(rdmaFirst ? rdma : tcp, rdmaFirst ? overRdma : overTcp);
                timed(rdmaFirst ? tcp : rdma, rdmaFirst ? overTcp : overRdma);
            }
            long j1 = JitSettle.compilationMillis();
            progress.printf(Locale.ROOT, "  %d pairs in %.2f s%s%n", pairs, config.roundWindow().toNanos() / 1e9,
                    warmupNote(settled, j1 - j0));
            report.put(Report.GETATTR_PAIRED_RDMA, overRdma.getValueAtPercentile(50) / 1000.0);
            report.put(Report.GETATTR_PAIRED_TCP, overTcp.getValueAtPercentile(50) / 1000.0);
        }
    }

    /**
     * READ 1 MiB over RDMA and raw loopback TCP (the wire row's cache-hot reader) taking turns in slices of
     * {@link HarnessConfig#wireSlice()}, as many as {@link HarnessConfig#wireSlices()}: the READ target's ratio from
     * the machine in one state rather than from figures measured minutes apart. Raw TCP runs each turn on a new
     * connection, as in the wire rows; the READ load keeps its calls outstanding in each slice and waits for them at
     * its end.
     */
    private static void readInTurnsWithRawTcp(HarnessConfig config, NfsDriver rdma, Report report,
                                              PrintStream progress) throws Exception {
        if (!selected(config, report, Report.READ_TURNS_RDMA, Report.READ_TURNS_RAW_TCP, rdma != null,
                "no RDMA mount")) {
            return;
        }
        progress.printf(Locale.ROOT, "nfs: READ 1 MiB over RDMA and raw TCP taking turns, %d turns of %d ms%n",
                config.wireSlices(), config.wireSlice().toMillis());
        try (NfsDriver.Load load = warmedLoad(config, rdma, NfsRow.READ_1M)) {
            takeTurns(config, nanos -> report.put(Report.READ_TURNS_RDMA, slice(load, NfsRow.READ_1M, nanos)),
                    nanos -> report.put(Report.READ_TURNS_RAW_TCP, sliceOnNewConnection(WireLimits::scratchTcp,
                            config.wireReconnectWarmup(), nanos).mibPerSecond()));
        }
    }

    /**
     * WRITE 1 MiB over RDMA and over oncrpc4j TCP against the same server, taking turns in slices as
     * {@link #readInTurnsWithRawTcp} does: a round's 2 s windows, one after the other, gave this ratio anywhere
     * from 0.67x to 2.4x, as the machine's state moved between them.
     */
    private static void writeInTurnsWithTcp(HarnessConfig config, NfsDriver rdma, NfsDriver tcp, Report report,
                                            PrintStream progress) throws Exception {
        if (!selected(config, report, Report.WRITE_TURNS_RDMA, Report.WRITE_TURNS_TCP, rdma != null && tcp != null,
                "WRITE taking turns needs both the RDMA and TCP mounts")) {
            return;
        }
        progress.printf(Locale.ROOT, "nfs: WRITE 1 MiB over RDMA and oncrpc4j TCP taking turns, %d turns of %d ms%n",
                config.wireSlices(), config.wireSlice().toMillis());
        try (NfsDriver.Load overRdma = warmedLoad(config, rdma, NfsRow.WRITE_1M);
             NfsDriver.Load overTcp = warmedLoad(config, tcp, NfsRow.WRITE_1M)) {
            takeTurns(config, nanos -> report.put(Report.WRITE_TURNS_RDMA, slice(overRdma, NfsRow.WRITE_1M, nanos)),
                    nanos -> report.put(Report.WRITE_TURNS_TCP, slice(overTcp, NfsRow.WRITE_1M, nanos)));
        }
    }

    /**
     * NFSv4.1 COMPOUND READ and WRITE of 1 MiB sent as plain oncrpc4j {@code RpcCall}s, the path nfs4j's client takes,
     * over {@code RdmaClientTransport} and over oncrpc4j's TCP transport against the same server, with
     * {@link Report#PLAIN_DEPTHS} calls in flight, taking turns in slices as {@link #readInTurnsWithRawTcp} does;
     * each slice also records the process's CPU time per MiB.
     */
    private static void plainRpcCallsInTurns(HarnessConfig config, NfsFixture fixture, RdmaDevice device,
                                             Report report, PrintStream progress) throws Exception {
        boolean any = false;
        for (NfsRow row : Report.PLAIN_ROWS) {
            for (int depth : Report.PLAIN_DEPTHS) {
                any |= config.runs(Report.plainKey(row, depth, "rdma")) || config.runs(Report.plainKey(row, depth, "tcp"));
            }
        }
        if (!any) {
            return;
        }
        NfsClientConfig plain = PlainRpcCallTransport.configure(NfsClientConfig.defaults(), device, config.inline());
        try (NfsClientDriver rdma = NfsClientDriver.mount(fixture.rdmaUrl() + "&vers=4.1", plain, fixture.fileBytes());
             NfsClientDriver tcp = NfsClientDriver.mount(fixture.tcpUrl() + "?vers=4.1", plain, fixture.fileBytes())) {
            for (NfsRow row : Report.PLAIN_ROWS) {
                for (int depth : Report.PLAIN_DEPTHS) {
                    String overRdma = Report.plainKey(row, depth, "rdma");
                    String overTcp = Report.plainKey(row, depth, "tcp");
                    if (!config.runs(overRdma) && !config.runs(overTcp)) {
                        continue;
                    }
                    progress.printf(Locale.ROOT, "nfs: NFSv4.1 %s as plain RpcCalls, %d in flight, over RDMA and "
                                    + "oncrpc4j TCP taking turns, %d turns of %d ms%n", row.label(), depth,
                            config.wireSlices(), config.wireSlice().toMillis());
                    try (NfsDriver.Load r = warmedLoad(config, rdma, row, depth);
                         NfsDriver.Load t = warmedLoad(config, tcp, row, depth)) {
                        takeTurns(config, nanos -> sliceWithCpu(report, overRdma, r, row, nanos),
                                nanos -> sliceWithCpu(report, overTcp, t, row, nanos));
                    }
                }
            }
        }
    }

    /** Runs {@code load} for a slice; records its rate under {@code key} and the process CPU per MiB beside it. */
    private static void sliceWithCpu(Report report, String key, NfsDriver.Load load, NfsRow row, long nanos)
            throws Exception {
        long c0 = Allocation.cpu();
        long t0 = System.nanoTime();
        long calls = load.run(t0 + nanos);
        long t1 = System.nanoTime();
        long c1 = Allocation.cpu();
        double mib = calls * (double) row.size() / (1 << 20);
        report.put(key, WireLimits.mibPerSecond(calls * row.size(), t1 - t0));
        report.put(Report.cpuPerMib(key), (c1 - c0) / 1000.0 / Math.max(mib, 1e-9));
    }

    /**
     * Whether a row measured as two figures side by side runs: {@code config} selects either figure and what it
     * needs is there (otherwise both figures are marked unavailable, saying {@code missing}).
     */
    private static boolean selected(HarnessConfig config, Report report, String keyA, String keyB, boolean ready,
                                    String missing) {
        if (!config.runs(keyA) && !config.runs(keyB)) {
            return false;
        }
        if (!ready) {
            report.unavailable(keyA, missing);
            report.unavailable(keyB, missing);
        }
        return ready;
    }

    /** A load of {@code row} on {@code driver}, warmed up until the JIT settles. */
    private static NfsDriver.Load warmedLoad(HarnessConfig config, NfsDriver driver, NfsRow row) throws Exception {
        return warmedLoad(config, driver, row, config.outstanding());
    }

    private static NfsDriver.Load warmedLoad(HarnessConfig config, NfsDriver driver, NfsRow row, int outstanding)
            throws Exception {
        NfsDriver.Load load = driver.load(row, outstanding);
        try {
            load.run(System.nanoTime() + config.warmup().toNanos());
            JitSettle.settle(load::run, config.settle());
            return load;
        } catch (Exception | Error e) {
            load.close();
            throw e;
        }
    }

    /** One side of a turn-taking measurement: runs for a slice of {@code nanos} and records its figures. */
    private interface Side {
        void run(long nanos) throws Exception;
    }

    /**
     * {@link HarnessConfig#wireSlices()} turns of one slice of {@link HarnessConfig#wireSlice()} of each side, each
     * turn starting one side further along ({@link #inTurn}): each slice is one value of its figures, and a ratio
     * between two sides is taken within each turn.
     */
    private static void takeTurns(HarnessConfig config, Side... sides) throws Exception {
        long slice = config.wireSlice().toNanos();
        for (int turn = 0; turn < config.wireSlices(); turn++) {
            for (Side side : inTurn(sides, turn)) {
                side.run(slice);
            }
        }
    }

    /** Runs {@code load} for a slice (its calls outstanding, then waited for) and returns its rate. */
    private static double slice(NfsDriver.Load load, NfsRow row, long nanos) throws Exception {
        long t0 = System.nanoTime();
        long calls = load.run(t0 + nanos);
        return WireLimits.mibPerSecond(calls * row.size(), System.nanoTime() - t0);
    }

    /** Round trips in nanoseconds, up to 10 s, to three significant digits. */
    private static Histogram latencyHistogram() {
        return new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
    }

    /** One GETATTR, its round trip recorded into {@code histogram} (capped at the highest trackable value). */
    private static void timed(NfsDriver driver, Histogram histogram) throws Exception {
        long start = System.nanoTime();
        driver.getattr();
        histogram.recordValue(Math.min(System.nanoTime() - start, histogram.getHighestTrackableValue()));
    }

    /** One wire row: its report key, its progress label, how to connect it. */
    private record WireRow(String key, String label, WireOpener opener) {
    }

    @FunctionalInterface
    private interface WireOpener {
        WireLimits.Stream open() throws Exception;
    }

    /**
     * Runs {@link HarnessConfig#wireSlices()} turns of one slice of each wire row {@code config} selects (each turn
     * starting one row further along). Each slice runs on a fresh connection, after a short unmeasured warm-up
     * ({@link HarnessConfig#WIRE_RECONNECT_WARMUP}; the whole warm-up before a row's first slice): loopback TCP falls
     * into a fast or a slow mode for seconds at a time, and a connection that stays in one would decide the run. Each
     * slice is one value of its figure; a ratio between two rows is the median of the ratios within each turn.
     */
    private static void wireRows(HarnessConfig config, Report report, PrintStream progress, WireRow[] all)
            throws Exception {
        List<WireRow> rows = new ArrayList<>();
        for (WireRow row : all) {
            if (config.runs(row.key)) {
                rows.add(row);
            }
        }
        progress.printf(Locale.ROOT, "wire: %d turns of a %d ms slice of each of %d rows, each on a new connection%n",
                config.wireSlices(), config.wireSlice().toMillis(), rows.size());
        Set<WireRow> warm = new HashSet<>();
        Side[] sides = new Side[rows.size()];
        for (int i = 0; i < sides.length; i++) {
            WireRow row = rows.get(i);
            sides[i] = nanos -> {
                Duration warmup = config.wireReconnectWarmup();
                if (warm.add(row)) {
                    progress.println("wire: " + row.label);
                    warmup = config.warmup();
                }
                wire(report, row.key, sliceOnNewConnection(row.opener, warmup, nanos));
            };
        }
        takeTurns(config, sides);
    }

    /** Connects, runs {@code warmup} unmeasured, then one measured slice of {@code slice} ns; closes. */
    private static WireLimits.Rate sliceOnNewConnection(WireOpener opener, Duration warmup, long slice)
            throws Exception {
        try (WireLimits.Stream stream = opener.open()) {
            stream.slice(warmup.toNanos());
            return stream.slice(slice);
        }
    }

    /**
     * The order peers are measured in during round {@code round}: each round starts one further along, so that no
     * peer always runs first, right after the previous figure or round (whose garbage and cache footprint it would
     * inherit).
     */
    static <T> List<T> inTurn(T[] peers, int round) {
        List<T> order = new ArrayList<>(peers.length);
        for (int i = 0; i < peers.length; i++) {
            order.add(peers[(round + i) % peers.length]);
        }
        return order;
    }

    /** The progress lines' mention of the round, when there is more than one. */
    private static String roundLabel(HarnessConfig config, int round) {
        return config.rounds() > 1 ? " (round " + (round + 1) + " of " + config.rounds() + ")" : "";
    }

    private static String roundSuffix(HarnessConfig config, int round) {
        return config.rounds() > 1 ? ".round" + (round + 1) : "";
    }

    private static String warmupNote(JitSettle.Outcome settled, long jitMillis) {
        if (settled.extraNanos() == 0 && jitMillis < 0) {
            return "";
        }
        return String.format(Locale.ROOT,
                " (warm-up extended by %.1f s, JIT %s; %d ms of JIT compiler time in the window)",
                settled.extraNanos() / 1e9, settled.settled() ? "settled" : "still busy", jitMillis);
    }

    private static void wire(Report report, String key, WireLimits.Rate rate) {
        report.put(key, rate.mibPerSecond());
        report.put(Report.cpuPerMib(key), rate.cpuMicrosPerMib());
    }

    private static void recorded(Path file, PrintStream progress) {
        if (file != null) {
            progress.println("  recorded the window into " + file);
        }
    }

    private static void memory(NfsFixture fixture, Report report) {
        String[] keys = {Report.MEM_DIRECT, Report.MEM_REGISTERED, Report.MEM_IN_USE, Report.MEM_DIRECT_SECOND,
            Report.MEM_REGISTERED_BURST};
        try {
            Map<String, Long> figures = MountMemoryProbe.measure(fixture.rdmaUrl());
            for (String key : keys) {
                Long v = figures.get(key);
                if (v == null) {
                    report.unavailable(key, "the memory probe did not report " + key);
                } else {
                    report.put(key, v);
                }
            }
        } catch (IOException | InterruptedException e) {
            for (String key : keys) {
                report.unavailable(key, "memory probe: " + e.getMessage());
            }
        }
        report.note("memory", "memory per mount: measured in a child JVM that only mounts (rdma://, client "
                + "defaults: 128 credits, its own software device): direct memory (JDK direct buffers + Netty's "
                + "counter) before and after; registered = the transport's RegisteredBufferPool arenas");
    }

    /** The machine line printed above the tables. */
    static String machine(HarnessConfig config) {
        String cpu = "unknown CPU";
        try {
            cpu = Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(l -> l.startsWith("model name"))
                    .map(l -> l.substring(l.indexOf(':') + 1).trim()).findFirst().orElse(cpu);
        } catch (IOException | RuntimeException e) {
            // not Linux: leave it unknown
        }
        return String.format(Locale.ROOT, "Machine: %s, %d cores visible to the JVM, %s %s, Java %s (%s), "
                        + "max heap %d MiB. Windows: %d ms warm-up (+ up to %d ms until the JIT settles) + %d ms "
                        + "measured per figure%s. "
                        + "RDMA device %s, options: %s; RDMA inline thresholds %d; RDMA server's calls run %s.%n",
                cpu, Runtime.getRuntime().availableProcessors(), System.getProperty("os.name"),
                System.getProperty("os.version"), System.getProperty("java.version"),
                System.getProperty("java.vm.name"), Runtime.getRuntime().maxMemory() >> 20,
                config.warmup().toMillis(), config.settle().toMillis(), config.measure().toMillis(),
                config.quick() ? " (quick)" : "",
                config.deviceName(), config.device().isEmpty() ? "defaults" : config.device(), config.inline(),
                config.sameThread() ? "on its connections' threads (sameThreadDispatch)" : "on its dispatch pool")
                + "JVM arguments: " + ManagementFactory.getRuntimeMXBean().getInputArguments() + "\n";
    }

    /** Bytes allocated so far by the JVM's live threads, and CPU time used so far by the process. */
    static final class Allocation {
        private Allocation() {
        }

        /** CPU time of the whole process (every thread, the JVM's own included), in nanoseconds. */
        static long cpu() {
            return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                    .getProcessCpuTime();
        }

        static long total() {
            com.sun.management.ThreadMXBean threads =
                    (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            long sum = 0;
            for (long b : threads.getThreadAllocatedBytes(threads.getAllThreadIds())) {
                if (b > 0) {
                    sum += b;
                }
            }
            return sum;
        }
    }
}
