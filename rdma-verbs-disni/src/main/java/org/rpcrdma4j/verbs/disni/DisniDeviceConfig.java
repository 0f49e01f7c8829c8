package org.rpcrdma4j.verbs.disni;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

import org.rpcrdma4j.verbs.TransportType;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * How to open a DiSNI device: the options of {@code RdmaProvider.open} for the {@code disni} provider.
 * <p>
 * DiSNI 2.1 has no device enumeration and no {@code ibv_query_device}: a device is reached by binding an rdma_cm id to
 * an address of one of its interfaces (hence {@code address}), and its limits cannot be asked. The limits below are
 * therefore what this provider assumes and enforces; the defaults are conservative values every RC device this project
 * targets (mlx4/mlx5, rxe, siw) supports. Set them from {@code ibv_devinfo -v} to use more of a device.
 * <table>
 * <caption>options</caption>
 * <tr><th>key</th><th>default</th><th>meaning</th></tr>
 * <tr><td>address</td><td>(required)</td><td>an IPv4 address of the RDMA interface (DiSNI only speaks IPv4)</td></tr>
 * <tr><td>device</td><td>(from sysfs)</td><td>the sysfs name of the device, when several exist</td></tr>
 * <tr><td>transport</td><td>(from sysfs)</td><td>ib, roce or iwarp, when sysfs cannot tell</td></tr>
 * <tr><td>maxSge</td><td>4</td><td>SGEs per work request. DiSNI 2.1's createQP passes no SGE counts to libdisni, so
 *     the real limit is what libdisni's C code sets; keep this at or below it</td></tr>
 * <tr><td>maxInlineData</td><td>64</td><td>bytes per inline Send</td></tr>
 * <tr><td>maxQpWr</td><td>1024</td><td>work requests per queue</td></tr>
 * <tr><td>maxCqe</td><td>4096</td><td>entries per completion queue</td></tr>
 * <tr><td>ird, ord</td><td>16, 16</td><td>reported IRD/ORD: DiSNI cannot set them (its setters throw) and libdisni
 *     asks for the device maxima, so set these to the device's max_qp_rd_atom / max_qp_init_rd_atom</td></tr>
 * <tr><td>maxMessageSize</td><td>1073741824</td><td>largest message</td></tr>
 * <tr><td>retryCount</td><td>6</td><td>transport retries (rdma_conn_param.retry_count)</td></tr>
 * <tr><td>rnrRetryCount</td><td>0</td><td>receiver-not-ready retries; 0 as Linux xprtrdma: credits make RNR a bug
 *     to surface, not to wait out</td></tr>
 * <tr><td>cmPollMillis</td><td>10</td><td>how long the connection-manager thread waits for an event before it runs
 *     queued commands (bounds the latency of connect, accept, close)</td></tr>
 * <tr><td>cqIdleMicros</td><td>500</td><td>the longest the completion-event thread sleeps between scans of armed
 *     completion queues (bounds the latency of a completion notification)</td></tr>
 * </table>
 */
public record DisniDeviceConfig(InetAddress address, String device, TransportType transport, int maxSge,
                                int maxInlineData, int maxQpWr, int maxCqe, int ird, int ord, long maxMessageSize,
                                int retryCount, int rnrRetryCount, int cmPollMillis, int cqIdleMicros) {

    public static final String ADDRESS = "address";
    public static final String DEVICE = "device";
    public static final String TRANSPORT = "transport";
    public static final String MAX_SGE = "maxSge";
    public static final String MAX_INLINE_DATA = "maxInlineData";
    public static final String MAX_QP_WR = "maxQpWr";
    public static final String MAX_CQE = "maxCqe";
    public static final String IRD = "ird";
    public static final String ORD = "ord";
    public static final String MAX_MESSAGE_SIZE = "maxMessageSize";
    public static final String RETRY_COUNT = "retryCount";
    public static final String RNR_RETRY_COUNT = "rnrRetryCount";
    public static final String CM_POLL_MILLIS = "cmPollMillis";
    public static final String CQ_IDLE_MICROS = "cqIdleMicros";

    /** Every option key, in documentation order. */
    public static final List<String> KEYS = List.of(ADDRESS, DEVICE, TRANSPORT, MAX_SGE, MAX_INLINE_DATA, MAX_QP_WR,
            MAX_CQE, IRD, ORD, MAX_MESSAGE_SIZE, RETRY_COUNT, RNR_RETRY_COUNT, CM_POLL_MILLIS, CQ_IDLE_MICROS);

    public DisniDeviceConfig {
        Objects.requireNonNull(address, "address");
        if (!(address instanceof Inet4Address)) {
            throw new IllegalArgumentException("DiSNI 2.1 speaks IPv4 only; " + address.getHostAddress()
                    + " is not an IPv4 address");
        }
        positive("maxSge", maxSge);
        positive("maxQpWr", maxQpWr);
        positive("maxCqe", maxCqe);
        positive("ird", ird);
        positive("ord", ord);
        positive("cmPollMillis", cmPollMillis);
        positive("cqIdleMicros", cqIdleMicros);
        if (maxInlineData < 0 || maxMessageSize <= 0) {
            throw new IllegalArgumentException("maxInlineData must not be negative, maxMessageSize must be positive");
        }
        if (ird > 255 || ord > 255) {
            throw new IllegalArgumentException("ird/ord are 8-bit values in rdma_cm, got " + ird + "/" + ord);
        }
        if (retryCount < 0 || retryCount > 7 || rnrRetryCount < 0 || rnrRetryCount > 7) {
            throw new IllegalArgumentException("retryCount and rnrRetryCount are 3-bit values (0..7)");
        }
    }

    /** The defaults for an address. */
    public static DisniDeviceConfig of(InetAddress address) {
        return new DisniDeviceConfig(address, null, null, 4, 64, 1024, 4096, 16, 16, 1L << 30, 6, 0, 10, 500);
    }

    /**
     * Parses {@code RdmaProvider.open} options.
     *
     * @throws VerbsException for a missing address, an unknown key or a bad value, naming it
     */
    public static DisniDeviceConfig parse(Map<String, String> options) throws VerbsException {
        Map<String, String> o = options == null ? Map.of() : options;
        for (String key : o.keySet()) {
            if (!KEYS.contains(key)) {
                throw new VerbsException("unknown option '" + key + "' for the disni provider (known: " + KEYS + ")");
            }
        }
        String address = o.get(ADDRESS);
        if (address == null || address.isBlank()) {
            throw new VerbsException("the disni provider needs the option address=<IPv4 address of an RDMA interface> "
                    + "(DiSNI reaches a device only through an address bound with rdma_cm)");
        }
        DisniDeviceConfig d;
        try {
            d = of(InetAddress.getByName(address.trim()));
        } catch (UnknownHostException | IllegalArgumentException e) {
            throw new VerbsException("option address=" + address + ": " + e.getMessage(), e);
        }
        try {
            return new DisniDeviceConfig(d.address, o.getOrDefault(DEVICE, null), transport(o.get(TRANSPORT)),
                    intOption(o, MAX_SGE, d.maxSge), intOption(o, MAX_INLINE_DATA, d.maxInlineData),
                    intOption(o, MAX_QP_WR, d.maxQpWr), intOption(o, MAX_CQE, d.maxCqe), intOption(o, IRD, d.ird),
                    intOption(o, ORD, d.ord), longOption(o, MAX_MESSAGE_SIZE, d.maxMessageSize),
                    intOption(o, RETRY_COUNT, d.retryCount), intOption(o, RNR_RETRY_COUNT, d.rnrRetryCount),
                    intOption(o, CM_POLL_MILLIS, d.cmPollMillis), intOption(o, CQ_IDLE_MICROS, d.cqIdleMicros));
        } catch (IllegalArgumentException e) {
            throw new VerbsException("disni provider options: " + e.getMessage(), e);
        }
    }

    private static TransportType transport(String value) {
        if (value == null) {
            return null;
        }
        switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "ib":
            case "infiniband":
                return TransportType.IB;
            case "roce":
                return TransportType.ROCE;
            case "iwarp":
                return TransportType.IWARP;
            default:
                throw new IllegalArgumentException("transport=" + value + " is not one of ib, roce, iwarp");
        }
    }

    private static int intOption(Map<String, String> o, String key, int dflt) {
        String v = o.get(key);
        if (v == null) {
            return dflt;
        }
        try {
            return Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + "=" + v + " is not a number");
        }
    }

    private static long longOption(Map<String, String> o, String key, long dflt) {
        String v = o.get(key);
        if (v == null) {
            return dflt;
        }
        try {
            return Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + "=" + v + " is not a number");
        }
    }

    private static void positive(String name, int value) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + " must be positive, got " + value);
        }
    }
}
