package org.rpcrdma4j.verbs.disni;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.Assumptions;
import org.rpcrdma4j.verbs.RdmaProvider;

/**
 * What the hardware tests need: {@code -Drdma.disni=true}, {@code -Drdma.disni.address=<IPv4 of an RDMA interface>}
 * and optionally {@code -Drdma.disni.options=key=value,key=value} (see {@link DisniDeviceConfig}). Without them the
 * tests are skipped with a reason that says so; with them, a DiSNI that is not available fails the test loudly.
 */
final class HardwareSetup {
    static final String HOW = "hardware test: run with -Drdma.disni=true -Drdma.disni.address=<IPv4 address of an "
            + "RDMA interface> on a host with an RDMA device (or rxe/siw) and libdisni installed";

    private HardwareSetup() {
    }

    /** Skips the test unless a hardware run was asked for. */
    static void assumeHardware() {
        Assumptions.assumeTrue(Boolean.getBoolean("rdma.disni"), HOW);
    }

    /** The address of the RDMA interface of a hardware run. */
    static InetAddress address() {
        try {
            return InetAddress.getByName(options().get(DisniDeviceConfig.ADDRESS));
        } catch (UnknownHostException e) {
            throw new AssertionError("-Drdma.disni.address: " + e.getMessage(), e);
        }
    }

    /** The provider options of a hardware run; fails when DiSNI is not usable here although the run asked for it. */
    static Map<String, String> options() {
        String address = System.getProperty("rdma.disni.address", "").trim();
        if (address.isEmpty()) {
            throw new AssertionError("-Drdma.disni=true needs -Drdma.disni.address=<IPv4 address of an RDMA "
                    + "interface>");
        }
        RdmaProvider.Availability availability = new DisniProvider().availability();
        if (!availability.available()) {
            throw new AssertionError("a hardware run was asked for, but " + availability.reason());
        }
        Map<String, String> options = new LinkedHashMap<>();
        options.put(DisniDeviceConfig.ADDRESS, address);
        String extra = System.getProperty("rdma.disni.options", "").trim();
        if (!extra.isEmpty()) {
            for (String kv : extra.split(",")) {
                int eq = kv.indexOf('=');
                if (eq <= 0) {
                    throw new AssertionError("rdma.disni.options wants key=value,key=value; got " + extra);
                }
                options.put(kv.substring(0, eq).trim(), kv.substring(eq + 1).trim());
            }
        }
        return options;
    }
}
