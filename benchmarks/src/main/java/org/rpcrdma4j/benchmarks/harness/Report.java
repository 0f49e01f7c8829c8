package org.rpcrdma4j.benchmarks.harness;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalDouble;

import org.rpcrdma4j.benchmarks.harness.NfsRow.Client;

/**
 * The figures of one harness run, by key, and their rendering as markdown tables with ratios and the targets of the
 * issue. Keys: {@code wire.tcp}, {@code wire.rdma_write}, {@code wire.rdma_read}, {@code wire.rdma_send} (MiB/s);
 * {@code nfs.<row>.<client>} (see {@link NfsRow}); {@code alloc.<row>.<client>} (bytes per RPC, whole JVM); {@code cpu.<row>.<client>} (µs of
 * process CPU time per RPC); {@code mem.*} (bytes). A figure that
 * could not be measured has a reason instead ({@link #unavailable}). Filled by one thread, then read.
 */
public final class Report {
    public static final String WIRE_TCP = "wire.tcp";
    public static final String WIRE_RDMA_WRITE = "wire.rdma_write";
    public static final String WIRE_RDMA_READ = "wire.rdma_read";
    public static final String WIRE_RDMA_SEND = "wire.rdma_send";
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

    /** The key of a wire row's CPU figure: µs of process CPU time per MiB moved. */
    public static String cpuPerMib(String wireKey) {
        return wireKey + ".cpu";
    }

    private final Map<String, Double> figures = new LinkedHashMap<>();
    private final Map<String, String> unavailable = new LinkedHashMap<>();
    private final Map<String, String> notes = new LinkedHashMap<>();

    void put(String key, double value) {
        figures.put(key, value);
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

    private String cell(String key, String format) {
        Double v = figures.get(key);
        if (v != null) {
            return String.format(Locale.ROOT, format, v);
        }
        return unavailable.containsKey(key) ? "n/a" : "–";
    }

    private String ratio(String numerator, String denominator) {
        Double a = figures.get(numerator);
        Double b = figures.get(denominator);
        if (a == null || b == null || b == 0) {
            return "–";
        }
        return String.format(Locale.ROOT, "%.2f×", a / b);
    }

    private static String format(NfsRow row) {
        return row.latency() ? "%.1f" : "%,.0f";
    }

    /** The tables: wire limits, NFS, allocation, memory, targets. */
    public String toMarkdown(HarnessConfig config) {
        StringBuilder md = new StringBuilder();
        md.append("#### Wire limits on loopback (1 MiB messages)\n\n");
        md.append("| path | MiB/s | ÷ raw TCP | CPU µs per MiB (whole JVM) |\n|---|---:|---:|---:|\n");
        wireRow(md, "raw Java NIO TCP: 1 MiB writes, one reader (best of 64 KiB / 256 KiB / 1 MiB reads)", WIRE_TCP);
        wireRow(md, "soft iWARP RDMA WRITE, 8 in flight", WIRE_RDMA_WRITE);
        wireRow(md, "soft iWARP RDMA READ, 8 in flight", WIRE_RDMA_READ);
        wireRow(md, "soft iWARP SEND, 8 in flight", WIRE_RDMA_SEND);
        md.append('\n');

        md.append("#### NFSv3 against one embedded server (MemoryVfs), ").append(config.outstanding())
                .append(" outstanding\n\n");
        md.append("| workload | unit | ");
        for (Client c : Client.values()) {
            md.append(c.header()).append(" | ");
        }
        md.append("RDMA ÷ oncrpc4j TCP | RDMA ÷ EMC | RDMA ÷ raw TCP |\n|---|---|---:|---:|---:|---:|---:|---:|\n");
        for (NfsRow row : NfsRow.values()) {
            md.append("| ").append(row.label()).append(" | ").append(row.unit()).append(" | ");
            for (Client c : Client.values()) {
                md.append(cell(row.figure(c), format(row))).append(" | ");
            }
            md.append(ratio(row.figure(Client.RDMA), row.figure(Client.TCP))).append(" | ")
                    .append(ratio(row.figure(Client.RDMA), row.figure(Client.EMC))).append(" | ")
                    .append(row == NfsRow.READ_1M || row == NfsRow.WRITE_1M
                            ? ratio(row.figure(Client.RDMA), WIRE_TCP) : "").append(" |\n");
        }

        md.append("\n#### Cost per RPC, whole JVM (client, server and device threads)\n\n");
        md.append("| workload | CPU µs: RDMA | oncrpc4j TCP | EMC | bytes allocated: RDMA | oncrpc4j TCP | EMC |\n"
                + "|---|---:|---:|---:|---:|---:|---:|\n");
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
            target(md, "READ 1 MiB over RDMA ≥ 0.6× raw loopback TCP",
                    NfsRow.READ_1M.figure(Client.RDMA), WIRE_TCP, 0.6, true);
            target(md, "WRITE 1 MiB over RDMA ≥ 1.2× oncrpc4j TCP",
                    NfsRow.WRITE_1M.figure(Client.RDMA), NfsRow.WRITE_1M.figure(Client.TCP), 1.2, true);
            target(md, "GETATTR p50 over RDMA ≤ 1.0× oncrpc4j TCP",
                    NfsRow.GETATTR_P50.figure(Client.RDMA), NfsRow.GETATTR_P50.figure(Client.TCP), 1.0, false);
            Double direct = figures.get(MEM_DIRECT);
            md.append("| memory per mount ≤ 8 MiB (direct memory added by the mount) | ")
                    .append(mib(MEM_DIRECT)).append(" MiB | ")
                    .append(direct == null ? "–" : direct <= 8 << 20 ? "met" : "**missed**").append(" |\n");
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
                .append(ratio(key, WIRE_TCP)).append(" | ").append(cell(cpuPerMib(key), "%,.0f")).append(" |\n");
    }

    private String mib(String key) {
        Double v = figures.get(key);
        if (v == null) {
            return unavailable.containsKey(key) ? "n/a" : "–";
        }
        return String.format(Locale.ROOT, "%.2f", v / (1 << 20));
    }

    private void target(StringBuilder md, String what, String numerator, String denominator, double bound,
                        boolean atLeast) {
        Double a = figures.get(numerator);
        Double b = figures.get(denominator);
        md.append("| ").append(what).append(" | ");
        if (a == null || b == null || b == 0) {
            md.append("– | – |\n");
            return;
        }
        double r = a / b;
        boolean met = atLeast ? r >= bound : r <= bound;
        md.append(String.format(Locale.ROOT, "%.2f×", r)).append(" | ").append(met ? "met" : "**missed**")
                .append(" |\n");
    }
}
