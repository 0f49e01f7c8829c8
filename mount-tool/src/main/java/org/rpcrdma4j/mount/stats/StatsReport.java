package org.rpcrdma4j.mount.stats;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

import org.rpcrdma4j.mount.client.OpCounters;
import org.rpcrdma4j.mount.client.StatsSnapshot;
import org.rpcrdma4j.xprt.XprtCounter;
import org.rpcrdma4j.xprt.client.ClientCounter;
import org.rpcrdma4j.xprt.client.RdmaClientStats;

/**
 * Prints a mount's counters. The text form follows {@code /proc/self/mountstats}: a {@code device} line, the
 * {@code xprt:} line exactly as Linux lays it out for RPC-over-RDMA ({@link RdmaClientStats#mountstats()}), then
 * the same fields one per line with their names, the transport's own counters, and per-procedure statistics
 * (calls, failures, bulk bytes, round trips, measured by the client). The JSON form carries the same numbers.
 */
public final class StatsReport {
    private StatsReport() {
    }

    /** The mountstats-style text. */
    public static String text(StatsSnapshot s) {
        StringBuilder sb = new StringBuilder();
        sb.append("device ").append(s.url().host()).append(':').append(s.url().export()).append(" mounted on ")
                .append(display(s)).append(" with fstype nfs statvers=1.1\n");
        sb.append("\tage:\t").append(s.ageSeconds()).append('\n');
        sb.append("\tRPC iostats version: 1.1  p/v: 100003/").append(s.nfsVersion().substring(0, 1))
                .append(" (nfs").append(s.nfsVersion().equals("3") ? "" : " " + s.nfsVersion()).append(")\n");
        RdmaClientStats t = s.transport();
        if (t == null) {
            sb.append("\txprt:\ttcp (this transport keeps no counters; per-op statistics below)\n");
        } else {
            sb.append('\t').append(t.mountstats()).append('\n');
            sb.append("\ttransport: ").append(t.server()).append(' ').append(t.state())
                    .append(", credits granted ").append(t.creditsGranted())
                    .append(", calls in flight ").append(t.callsInFlight())
                    .append(", inline send/recv ").append(t.inlineSend()).append('/').append(t.inlineReceive())
                    .append('\n');
            for (XprtCounter c : XprtCounter.values()) {
                sb.append(String.format(Locale.ROOT, "\t%24s %d%n", c.label(), t.get(c)));
            }
            for (ClientCounter c : ClientCounter.values()) {
                sb.append(String.format(Locale.ROOT, "\t%24s %d%n", c.label(), t.get(c)));
            }
        }
        sb.append("\tper-op statistics (ops errors timeouts bytes mean_rtt_ms max_rtt_ms)\n");
        for (Map.Entry<String, OpCounters.Op> e : s.procedures().entrySet()) {
            OpCounters.Op op = e.getValue();
            sb.append(String.format(Locale.ROOT, "\t%12s: %d %d %d %d %.3f %.3f%n", e.getKey(), op.ops(), op.errors(),
                    op.timeouts(), op.bytes(), op.meanRttMillis(), op.maxRttNanos() / 1e6));
        }
        return sb.toString();
    }

    /** The same as JSON. */
    public static String json(StatsSnapshot s) {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("url", display(s));
        root.put("transport", s.url().scheme());
        root.put("nfs_version", s.nfsVersion());
        root.put("age_seconds", s.ageSeconds());
        RdmaClientStats t = s.transport();
        if (t != null) {
            root.put("server", t.server());
            root.put("state", t.state());
            root.put("credits_granted", t.creditsGranted());
            root.put("calls_in_flight", t.callsInFlight());
            root.put("inline_send", t.inlineSend());
            root.put("inline_recv", t.inlineReceive());
            root.put("mountstats", t.mountstats());
            Map<String, Object> xprt = new LinkedHashMap<>();
            for (XprtCounter c : XprtCounter.values()) {
                xprt.put(c.label(), t.get(c));
            }
            root.put("xprt", xprt);
            Map<String, Object> client = new LinkedHashMap<>();
            for (ClientCounter c : ClientCounter.values()) {
                client.put(c.label(), t.get(c));
            }
            root.put("client", client);
        }
        Map<String, Object> ops = new LinkedHashMap<>();
        s.procedures().forEach((name, op) -> {
            Map<String, Object> o = new LinkedHashMap<>();
            o.put("ops", op.ops());
            o.put("errors", op.errors());
            o.put("timeouts", op.timeouts());
            o.put("bytes", op.bytes());
            o.put("mean_rtt_ms", op.meanRttMillis());
            o.put("max_rtt_ms", op.maxRttNanos() / 1e6);
            ops.put(name, o);
        });
        root.put("ops", ops);
        return Json.write(root);
    }

    private static String display(StatsSnapshot s) {
        String host = s.url().host().indexOf(':') >= 0 ? "[" + s.url().host() + "]" : s.url().host();
        return s.url().scheme() + "://" + host + ":" + s.url().port() + s.url().export();
    }
}
