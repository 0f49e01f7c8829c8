package org.rpcrdma4j.verbs.ffm;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Map;
import java.util.Set;

import org.rpcrdma4j.verbs.VerbsException;

/**
 * How to open a device with the {@code ffm} provider: the options of {@code RdmaProvider.open}. Limits not named here
 * are the device's own ({@code ibv_query_device}).
 * <table>
 * <caption>options</caption>
 * <tr><th>key</th><th>default</th><th>meaning</th></tr>
 * <tr><td>address</td><td>(none)</td><td>an IPv4 or IPv6 address of an RDMA interface: the device is the one that
 *     address belongs to</td></tr>
 * <tr><td>device</td><td>(the first listed)</td><td>the device's name ({@code ibv_devices}), when there is no
 *     address</td></tr>
 * <tr><td>maxInlineData</td><td>64</td><td>bytes per inline Send (queue pairs ask the device for this much)</td></tr>
 * <tr><td>retryCount</td><td>6</td><td>transport retries ({@code rdma_conn_param.retry_count})</td></tr>
 * <tr><td>rnrRetryCount</td><td>0</td><td>receiver-not-ready retries; 0 as Linux's xprtrdma: credits make RNR a
 *     bug to surface, not to wait out</td></tr>
 * <tr><td>tickMillis</td><td>10</td><td>how often the device thread checks connection deadlines when nothing
 *     happens</td></tr>
 * <tr><td>acceptTimeoutMillis</td><td>10000</td><td>how long a connection request waits for its accept or reject
 *     before it is rejected</td></tr>
 * </table>
 */
record FfmOptions(InetAddress address, String device, int maxInlineData, int retryCount, int rnrRetryCount,
                  int tickMillis, int acceptTimeoutMillis) {
    static final Set<String> KEYS = Set.of("address", "device", "maxInlineData", "retryCount", "rnrRetryCount",
            "tickMillis", "acceptTimeoutMillis");

    static FfmOptions parse(Map<String, String> options) throws VerbsException {
        for (String key : options.keySet()) {
            if (!KEYS.contains(key)) {
                throw new VerbsException("unknown option '" + key + "' for the ffm provider (known: "
                        + String.join(", ", KEYS.stream().sorted().toList()) + ")");
            }
        }
        InetAddress address = null;
        String a = options.get("address");
        if (a != null && !a.isBlank()) {
            try {
                address = InetAddress.getByName(a.trim());
            } catch (UnknownHostException e) {
                throw new VerbsException("option address=" + a + ": " + e.getMessage(), e);
            }
        }
        String device = options.get("device");
        return new FfmOptions(address, device == null || device.isBlank() ? null : device.trim(),
                number(options, "maxInlineData", 64, 0, 1 << 16), number(options, "retryCount", 6, 0, 7),
                number(options, "rnrRetryCount", 0, 0, 7), number(options, "tickMillis", 10, 1, 1000),
                number(options, "acceptTimeoutMillis", 10_000, 1, 600_000));
    }

    private static int number(Map<String, String> options, String key, int dflt, int min, int max)
            throws VerbsException {
        String v = options.get(key);
        if (v == null || v.isBlank()) {
            return dflt;
        }
        try {
            int n = Integer.parseInt(v.trim());
            if (n < min || n > max) {
                throw new VerbsException("option " + key + "=" + v + " is outside " + min + ".." + max);
            }
            return n;
        } catch (NumberFormatException e) {
            throw new VerbsException("option " + key + "=" + v + " is not a number", e);
        }
    }
}
