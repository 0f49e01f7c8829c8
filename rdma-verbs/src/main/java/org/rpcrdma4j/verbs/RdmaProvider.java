package org.rpcrdma4j.verbs;

import java.util.Map;

/**
 * A source of RDMA devices, found with {@link java.util.ServiceLoader}. Names in use: {@code soft} (the software
 * iWARP device, always available) and {@code disni} (hardware through DiSNI).
 */
public interface RdmaProvider {

    String name();

    /**
     * Whether the provider can open a device here, and if not, why — in one line a user can act on (a missing native
     * library, no device). Never throws.
     */
    Availability availability();

    /**
     * Opens a device.
     *
     * @param options provider-specific settings (e.g. {@code crc=true} for the software device); unknown keys are
     *                refused with a clear message
     */
    RdmaDevice open(Map<String, String> options) throws VerbsException;

    /** Whether a provider can be used, and why not. */
    record Availability(boolean available, String reason) {
        public static Availability yes(String reason) {
            return new Availability(true, reason);
        }

        public static Availability no(String reason) {
            return new Availability(false, reason);
        }
    }
}
