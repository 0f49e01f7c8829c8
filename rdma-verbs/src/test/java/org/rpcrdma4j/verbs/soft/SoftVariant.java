package org.rpcrdma4j.verbs.soft;

import java.util.Map;

import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.RdmaProviders;
import org.rpcrdma4j.verbs.conformance.ConfirmedPlacement;

/**
 * The device configurations the conformance suite runs the software device in, all with placement confirmed
 * ({@link ConfirmedPlacement}): the suite holds the device to InfiniBand's completion semantics. The default,
 * unconfirmed, is {@link SoftUnconfirmedProtectionErrorTest} and every suite above the device.
 */
enum SoftVariant {
    /** Defaults otherwise: no CRC, large segments. */
    DEFAULT(Map.of()),
    /** MPA CRC32C on every FPDU. */
    CRC(Map.of("crc", "true")),
    /** Small segments (odd size, so pads and many segments per message), with CRC. */
    SMALL_SEGMENTS(Map.of("maxUlpdu", "1001", "crc", "true"));

    final Map<String, String> options;

    SoftVariant(Map<String, String> options) {
        this.options = ConfirmedPlacement.options(options);
    }

    RdmaDevice open() throws Exception {
        return RdmaProviders.select("soft").open(options);
    }
}
