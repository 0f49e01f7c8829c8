package org.rpcrdma4j.benchmarks.harness;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalDouble;

import org.rpcrdma4j.benchmarks.harness.NfsRow.Client;

/**
 * The figures of one harness run, by key, and their rendering as markdown tables with ratios and the targets of the
 * issue. Keys: {@code wire.tcp}, {@code wire.cold_tcp}, {@code wire.rdma_write}, {@code wire.rdma_read},
 * {@code wire.rdma_send} (MiB/s);
 * {@code nfs.<row>.<client>} (see {@link NfsRow}); {@code alloc.<row>.<client>} (bytes per RPC, whole JVM); {@code cpu.<row>.<client>} (µs of
 * process CPU time per RPC); {@code mem.*} (bytes). A figure that
 * could not be measured has a reason instead ({@link #unavailable}). Filled by one thread, then read.
 * <p>
 * A figure measured in rounds ({@link HarnessConfig#rounds()}) keeps one value per round; the figure shown is their
 * median. A ratio between two figures measured round by round side by side (a device row and raw TCP; RDMA and TCP
 * in one NFS row) is the median of the ratios within each round, shown with their range; other ratios (an NFS row
 * against raw TCP, measured minutes apart) divide the medians.
 */
public final class Report {
    public static final String WIRE_TCP = "wire.tcp";
    public static final String WIRE_RDMA_WRITE = "wire.rdma_write";
    public static final String WIRE_RDMA_READ = "wire.rdma_read";
    public static final String WIRE_RDMA_SEND = "wire.rdma_send";
    /** Raw TCP moving the memory the NFS 1 MiB rows move (a 64 MiB source, 16 sinks of 1 MiB in turn). */
    public static final String WIRE_COLD_TCP = "wire.cold_tcp";
    /** GETATTR p50 over RDMA, its calls alternating with calls over oncrpc4j TCP on one thread (µs). */
    public static final String GETATTR_PAIRED_RDMA = "nfs.getattr_paired.rdma";
    /** GETATTR p50 over oncrpc4j TCP, alternating with {@link #GETATTR_PAIRED_RDMA} (µs). */
    public static final String GETATTR_PAIRED_TCP = "nfs.getattr_paired.tcp";
    /** READ 1 MiB over RDMA, taking turns with {@link #READ_TURNS_RAW_TCP} (MiB/s). */
    public static final String READ_TURNS_RDMA = "nfs.read_1m_turns.rdma";
    /** Raw loopback TCP (the wire row's reader), taking turns with {@link #READ_TURNS_RDMA} (MiB/s). */
    public static final String READ_TURNS_RAW_TCP = "nfs.read_1m_turns.raw_tcp";
    /** WRITE 1 MiB over RDMA, taking turns with {@link #WRITE_TURNS_TCP} (MiB/s). */
    public static final String WRITE_TURNS_RDMA = "nfs.write_1m_turns.rdma";
    /** WRITE 1 MiB over oncrpc4j TCP, taking turns with {@link #WRITE_TURNS_RDMA} (MiB/s). */
    public static final String WRITE_TURNS_TCP = "nfs.write_1m_turns.tcp";
    /** Registered bytes of the client transport's buffer pool right after the mount. */
    public static final String MEM_REGISTERED = "mem.registered";
    /** Of those, bytes held by the transport itself (request slots, receive buffers). */
    public static final String MEM_IN_USE = "mem.in_use";
    /** Direct memory (JDK + Netty) the first mount added to a client JVM. */
    public static final String MEM_DIRECT = "mem.direct";
    /** Direct memory a second mount in the same JVM added. */
    public static final String MEM_DIRECT_SECOND = "mem.direct_second";
    /** Registered bytes after 16 x 1 MiB READs into caller memory outside the pool. */
    public static final String MEM_REGISTERED_BURST = "mem.registered_burst";

    /** The software device's wire rows: key and operation, in table order. */
    private static final String[][] DEVICE_ROWS = {
        {WIRE_RDMA_WRITE, "RDMA WRITE"}, {WIRE_RDMA_READ, "RDMA READ"}, {WIRE_RDMA_SEND, "SEND"}};

    /** The rows measured as NFSv4.1 COMPOUNDs sent as plain oncrpc4j RpcCalls, and their calls in flight. */
    static final NfsRow[] PLAIN_ROWS = {NfsRow.READ_1M, NfsRow.WRITE_1M};
    static final int[] PLAIN_DEPTHS = {1, 8};

    /** The key of a plain-RpcCall figure: {@code side} is "rdma" or "tcp" (MiB/s; its CPU per MiB beside it). */
    public static String plainKey(NfsRow row, int depth, String side) {
        return "nfs41_plain." + row.key() + ".d" + depth + "." + side;
    }

    /** The key of a wire row's CPU figure: µs of process CPU time per MiB moved. */
    public static String cpuPerMib(String wireKey) {
        return wireKey + ".cpu";
    }

    private final Map<String, Double> figures = new LinkedHashMap<>();
    private final Map<String, List<Double>> rounds = new LinkedHashMap<>();
    private final Map<String, String> unavailable = new LinkedHashMap<>();
    private final Map<String, String> notes = new LinkedHashMap<>();

    /** Records one more round's value of {@code key}; the figure becomes the median of its rounds. */
    void put(String key, double value) {
        List<Double> values = rounds.computeIfAbsent(key, k -> new ArrayList<>());
        values.add(value);
        figures.put(key, median(values));
    }

    /** The values of {@code key}, one per round, in order. */
    public List<Double> rounds(String key) {
        return Collections.unmodifiableList(rounds.getOrDefault(key, List.of()));
    }

    static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    /**
     * The ratio {@code numerator / denominator}: with as many rounds on both sides (more than one) the ratios within
     * each round (their median first, then the smallest and the largest); otherwise the one ratio of the figures.
     * Empty when either is missing.
     */
    public double[] ratios(String numerator, String denominator) {
        double[] medians = ratioOfMedians(numerator, denominator);
        List<Double> x = rounds.get(numerator);
        List<Double> y = rounds.get(denominator);
        if (medians.length == 0 || x.size() < 2 || x.size() != y.size()) {
            return medians;
        }
        List<Double> each = new ArrayList<>();
        for (int i = 0; i < x.size(); i++) {
            if (y.get(i) != 0) {
                each.add(x.get(i) / y.get(i));
            }
        }
        if (each.isEmpty()) {
            return new double[0];
        }
        return new double[] {median(each), Collections.min(each), Collections.max(each)};
    }

    /** Records that {@code key} could not be measured, and why. */
    void unavailable(String key, String reason) {
        unavailable.put(key, reason);
    }

    /** A line printed under the tables (the first note of a given name wins). */
    void note(String name, String text) {
        notes.putIfAbsent(name, text);
    }

    public OptionalDouble figure(String key) {
        Double v = figures.get(key);
        return v == null ? OptionalDouble.empty() : OptionalDouble.of(v);
    }

    /** Every measured figure, by key, in measurement order. */
    public Map<String, Double> figures() {
        return Collections.unmodifiableMap(figures);
    }

    /** Every figure that could not be measured, with the reason. */
    public Map<String, String> unavailable() {
        return Collections.unmodifiableMap(unavailable);
    }

    /** One row of the NFS table: a cell per client (empty where {@code cells} has none), then the ratios. */
    private static void tableRow(StringBuilder md, String label, String unit, Map<Client, String> cells,
                                 String... ratios) {
        md.append("| ").append(label).append(" | ").append(unit).append(" | ");
        for (Client c : Client.values()) {
            md.append(cells.getOrDefault(c, "")).append(" | ");
        }
        md.append(String.join(" | ", ratios)).append(" |\n");
    }

    private String cell(String key, String format) {
        Double v = figures.get(key);
        if (v != null) {
            return String.format(Locale.ROOT, format, v);
        }
        return unavailable.containsKey(key) ? "n/a" : "–";
    }

    private String ratio(String numerator, String denominator) {
        return ratioText(ratios(numerator, denominator));
    }

    /** The ratio of the two figures (medians), for figures not measured side by side; empty when either is missing. */
    private double[] ratioOfMedians(String numerator, String denominator) {
        Double a = figures.get(numerator);
        Double b = figures.get(denominator);
        return a == null || b == null || b == 0 ? new double[0] : new double[] {a / b};
    }

    private static String ratioText(double[] r) {
        if (r.length == 0) {
            return "–";
        }
        if (r.length == 1) {
            return String.format(Locale.ROOT, "%.2f×", r[0]);
        }
        return String.format(Locale.ROOT, "%.2f× (%.2f-%.2f)", r[0], r[1], r[2]);
    }

    private static String format(NfsRow row) {
        return row.latency() ? "%.1f" : "%,.0f";
    }

    /** The tables: wire limits, NFS, allocation, memory, targets. */
    public String toMarkdown(HarnessConfig config) {
        StringBuilder md = new StringBuilder();
        md.append("#### Wire limits on loopback (1 MiB messages)\n\n");
        md.append("| path | MiB/s | ÷ raw TCP (range over the turns) | CPU µs per MiB (whole JVM) |\n"
                + "|---|---:|---:|---:|\n");
        wireRow(md, "raw Java NIO TCP: 1 MiB writes, one reader reading 64 KiB at a time into one buffer", WIRE_TCP);
        for (String[] device : DEVICE_ROWS) {
            wireRow(md, config.deviceName() + " " + device[1] + ", 8 in flight", device[0]);
        }
        wireRow(md, "raw Java NIO TCP moving the NFS rows' memory: 1 MiB writes from a file-sized source, reads "
                + "into 16 sinks of 1 MiB in turn", WIRE_COLD_TCP);
        md.append('\n');

        md.append("#### NFSv3 and NFSv4.1 against one embedded server (MemoryVfs), ").append(config.outstanding())
                .append(" outstanding\n\n");
        md.append("| workload | unit | ");
        for (Client c : Client.values()) {
            md.append(c.header()).append(" | ");
        }
        md.append("RDMA ÷ oncrpc4j TCP | RDMA ÷ EMC | RDMA ÷ raw TCP | NFSv4.1: RDMA ÷ TCP |\n|---|---|")
                .append("---:|".repeat(Client.values().length + 4)).append('\n');
        for (NfsRow row : NfsRow.values()) {
            Map<Client, String> cells = new EnumMap<>(Client.class);
            for (Client c : Client.values()) {
                cells.put(c, cell(row.figure(c), format(row)));
            }
            tableRow(md, row.label(), row.unit(), cells, ratio(row.figure(Client.RDMA), row.figure(Client.TCP)),
                    ratio(row.figure(Client.RDMA), row.figure(Client.EMC)),
                    row == NfsRow.READ_1M || row == NfsRow.WRITE_1M
                            ? ratioText(ratioOfMedians(row.figure(Client.RDMA), WIRE_TCP)) : "",
                    ratio(row.figure(Client.RDMA41), row.figure(Client.TCP41)));
        }
        tableRow(md, "GETATTR round trip p50, RDMA and TCP calls alternating on one thread", "µs",
                Map.of(Client.RDMA, cell(GETATTR_PAIRED_RDMA, "%.1f"), Client.TCP, cell(GETATTR_PAIRED_TCP, "%.1f")),
                ratio(GETATTR_PAIRED_RDMA, GETATTR_PAIRED_TCP), "", "", "");
        tableRow(md, "READ 1 MiB sequential, RDMA and raw TCP (" + cell(READ_TURNS_RAW_TCP, "%,.0f")
                + " MiB/s) taking turns in short slices", "MiB/s", Map.of(Client.RDMA, cell(READ_TURNS_RDMA, "%,.0f")),
                "", "", ratio(READ_TURNS_RDMA, READ_TURNS_RAW_TCP), "");
        tableRow(md, "WRITE 1 MiB sequential (UNSTABLE), RDMA and oncrpc4j TCP taking turns in short slices", "MiB/s",
                Map.of(Client.RDMA, cell(WRITE_TURNS_RDMA, "%,.0f"), Client.TCP, cell(WRITE_TURNS_TCP, "%,.0f")),
                ratio(WRITE_TURNS_RDMA, WRITE_TURNS_TCP), "", "", "");

        md.append("\n#### NFSv4.1 COMPOUNDs sent as plain oncrpc4j RpcCalls (the path nfs4j's client takes), "
                + "RDMA and oncrpc4j TCP taking turns in short slices\n\n");
        md.append("| workload | in flight | RDMA MiB/s | TCP MiB/s | RDMA ÷ TCP (range over the turns) | "
                + "CPU µs per MiB: RDMA | CPU µs per MiB: TCP | CPU RDMA ÷ TCP |\n|---|---:|---:|---:|---:|---:|---:|---:|\n");
        for (NfsRow row : PLAIN_ROWS) {
            for (int depth : PLAIN_DEPTHS) {
                String r = plainKey(row, depth, "rdma");
                String t = plainKey(row, depth, "tcp");
                md.append("| ").append(row.label()).append(" | ").append(depth).append(" | ")
                        .append(cell(r, "%,.0f")).append(" | ").append(cell(t, "%,.0f")).append(" | ")
                        .append(ratio(r, t)).append(" | ").append(cell(cpuPerMib(r), "%,.0f")).append(" | ")
                        .append(cell(cpuPerMib(t), "%,.0f")).append(" | ").append(ratio(cpuPerMib(r), cpuPerMib(t)))
                        .append(" |\n");
            }
        }

        md.append("\n#### Cost per RPC, whole JVM (client, server and device threads)\n\n");
        md.append("| workload |");
        for (Client c : Client.values()) {
            md.append(" CPU µs: ").append(c.key()).append(" |");
        }
        for (Client c : Client.values()) {
            md.append(" bytes allocated: ").append(c.key()).append(" |");
        }
        md.append("\n|---|").append("---:|".repeat(2 * Client.values().length)).append('\n');
        for (NfsRow row : NfsRow.values()) {
            if (row == NfsRow.GETATTR_P99) {
                continue;
            }
            md.append("| ").append(row == NfsRow.GETATTR_P50 ? "GETATTR" : row.label()).append(" | ");
            for (Client c : Client.values()) {
                md.append(cell(row.cpu(c), "%,.0f")).append(" | ");
            }
            for (Client c : Client.values()) {
                md.append(cell(row.allocation(c), "%,.0f")).append(" | ");
            }
            md.append('\n');
        }

        md.append("\n#### Memory per mount (client transport, 128 credits)\n\n");
        md.append("| what | MiB |\n|---|---:|\n");
        md.append("| registered by the transport's buffer pool after the mount | ")
                .append(mib(MEM_REGISTERED)).append(" |\n");
        md.append("| of which held by the transport (request slots, receive buffers) | ")
                .append(mib(MEM_IN_USE)).append(" |\n");
        md.append("| direct memory the mount added to a fresh client JVM (JDK + Netty) | ")
                .append(mib(MEM_DIRECT)).append(" |\n");
        md.append("| direct memory a second mount added in the same JVM | ")
                .append(mib(MEM_DIRECT_SECOND)).append(" |\n");
        md.append("| registered after 16 × 1 MiB READs into caller memory outside the pool | ")
                .append(mib(MEM_REGISTERED_BURST)).append(" |\n");

        if (!config.quick()) {
            md.append("\n#### Targets\n\n| target | measured | |\n|---|---:|---|\n");
            target(md, "READ 1 MiB over RDMA ≥ 1.3× oncrpc4j TCP",
                    NfsRow.READ_1M.figure(Client.RDMA), NfsRow.READ_1M.figure(Client.TCP), 1.3, true);
            verdict(md, "READ 1 MiB over RDMA ≥ 0.6× raw loopback TCP",
                    ratioOfMedians(NfsRow.READ_1M.figure(Client.RDMA), WIRE_TCP), 0.6, true);
            target(md, "READ 1 MiB over RDMA ≥ 0.6× raw loopback TCP, taking turns",
                    READ_TURNS_RDMA, READ_TURNS_RAW_TCP, 0.6, true);
            target(md, "WRITE 1 MiB over RDMA ≥ 1.2× oncrpc4j TCP",
                    NfsRow.WRITE_1M.figure(Client.RDMA), NfsRow.WRITE_1M.figure(Client.TCP), 1.2, true);
            target(md, "WRITE 1 MiB over RDMA ≥ 1.2× oncrpc4j TCP, taking turns",
                    WRITE_TURNS_RDMA, WRITE_TURNS_TCP, 1.2, true);
            target(md, "GETATTR p50 over RDMA ≤ 1.0× oncrpc4j TCP",
                    NfsRow.GETATTR_P50.figure(Client.RDMA), NfsRow.GETATTR_P50.figure(Client.TCP), 1.0, false);
            target(md, "GETATTR p50 over RDMA ≤ 1.0× oncrpc4j TCP, calls alternating on one thread",
                    GETATTR_PAIRED_RDMA, GETATTR_PAIRED_TCP, 1.0, false);
            for (NfsRow row : PLAIN_ROWS) {
                for (int depth : PLAIN_DEPTHS) {
                    String r = plainKey(row, depth, "rdma");
                    String t = plainKey(row, depth, "tcp");
                    String what = "NFSv4.1 " + row.label() + " as plain RpcCalls, " + depth + " in flight: RDMA";
                    target(md, what + " ≥ 1.3× oncrpc4j TCP, taking turns", r, t, 1.3, true);
                    target(md, what + " CPU per MiB ≤ 1.0× oncrpc4j TCP's", cpuPerMib(r), cpuPerMib(t), 1.0, false);
                }
            }
            Double direct = figures.get(MEM_DIRECT);
            md.append("| memory per mount ≤ 8 MiB (direct memory added by the mount) | ")
                    .append(mib(MEM_DIRECT)).append(" MiB | ")
                    .append(direct == null ? "–" : direct <= 8 << 20 ? "met" : "**missed**").append(" |\n");
            for (String[] device : DEVICE_ROWS) {
                target(md, config.deviceName() + " " + device[1] + " 1 MiB ≥ 0.8× raw loopback TCP", device[0],
                        WIRE_TCP, 0.8, true);
            }
            md.append("| (no target) READ 1 MiB over RDMA ÷ raw TCP moving the same memory | ")
                    .append(ratioText(ratioOfMedians(NfsRow.READ_1M.figure(Client.RDMA), WIRE_COLD_TCP)))
                    .append(" | |\n");
        }
        if (!unavailable.isEmpty() || !notes.isEmpty()) {
            md.append('\n');
            unavailable.values().stream().distinct().forEach(r -> md.append("- n/a: ").append(r).append('\n'));
            notes.values().forEach(n -> md.append("- ").append(n).append('\n'));
        }
        return md.toString();
    }

    private void wireRow(StringBuilder md, String label, String key) {
        md.append("| ").append(label).append(" | ").append(cell(key, "%,.0f")).append(" | ")
                .append(key.equals(WIRE_TCP) ? cell(key, "1.00×") : ratio(key, WIRE_TCP)).append(" | ")
                .append(cell(cpuPerMib(key), "%,.0f")).append(" |\n");
    }

    private String mib(String key) {
        Double v = figures.get(key);
        if (v == null) {
            return unavailable.containsKey(key) ? "n/a" : "–";
        }
        return String.format(Locale.ROOT, "%.2f", v / (1 << 20));
    }

    /** A target judged on the median of the ratios within each round (see {@link #ratios}). */
    private void target(StringBuilder md, String what, String numerator, String denominator, double bound,
                        boolean atLeast) {
        verdict(md, what, ratios(numerator, denominator), bound, atLeast);
    }

    private static void verdict(StringBuilder md, String what, double[] r, double bound, boolean atLeast) {
        md.append("| ").append(what).append(" | ");
        if (r.length == 0) {
            md.append("– | – |\n");
            return;
        }
        boolean met = atLeast ? r[0] >= bound : r[0] <= bound;
        String text = ratioText(r);
        if (!met && text.startsWith(String.format(Locale.ROOT, "%.2f×", bound))) {
            // missed by less than the rounding: show the digit that decides it
            text = String.format(Locale.ROOT, "%.3f×", r[0]) + text.substring(text.indexOf('×') + 1);
        }
        md.append(text).append(" | ").append(met ? "met" : "**missed**").append(" |\n");
    }
}
