package org.rpcrdma4j.it.linux;

import java.util.HashMap;
import java.util.Map;
import org.rpcrdma4j.registration.RegistrationMode;
import org.rpcrdma4j.xprt.client.RdmaClientConfig;

/**
 * One way of running our NFS client's RPC-over-RDMA transport over the software iWARP device: a registration strategy
 * and MPA CRC on or off.
 *
 * @param registration the strategy the transport must end up with
 * @param crc          whether our MPA Request asks for CRC32C
 */
record RdmaSetup(RegistrationMode registration, boolean crc) {
    /** Credits our client asks for in every call (the transport's default). */
    static final int CREDITS_REQUESTED = 128;

    /** @return the soft device's options: REG_MR is reached by a device without fast registration or FMR */
    Map<String, String> deviceOptions() {
        Map<String, String> options = new HashMap<>();
        options.put("crc", Boolean.toString(crc));
        if (registration == RegistrationMode.REG_MR) {
            options.put("capabilities", "");
        }
        return options;
    }

    /** @return the transport settings: the strategy by name, except REG_MR, which the device forces */
    RdmaClientConfig clientConfig() {
        return RdmaClientConfig.builder().provider("soft", deviceOptions())
                .registrationMode(registration == RegistrationMode.REG_MR ? RegistrationMode.AUTO : registration)
                .maxCredits(CREDITS_REQUESTED).jmx(false).name("linux-interop-" + tag()).build();
    }

    /** @return a short name for files and captures */
    String tag() {
        return registration.name().toLowerCase(java.util.Locale.ROOT).replace("_", "") + (crc ? "-crc" : "-nocrc");
    }

    @Override
    public String toString() {
        return registration + (registration == RegistrationMode.REG_MR ? " (device without fast registration)" : "")
                + ", MPA CRC " + (crc ? "on" : "off");
    }
}
