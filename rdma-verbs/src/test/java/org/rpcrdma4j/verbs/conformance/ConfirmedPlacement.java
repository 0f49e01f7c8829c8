package org.rpcrdma4j.verbs.conformance;

import java.util.HashMap;
import java.util.Map;

import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.RdmaProviders;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * The software device as the suites that judge a refused request by its completion need it: placement confirmed
 * ({@code confirmPlacement=true}, off by default), so that a Write or Send the peer refuses completes in error at the
 * initiator, as on InfiniBand. The device's default completes it once written, as siw does.
 */
public final class ConfirmedPlacement {
    private ConfirmedPlacement() {
    }

    /** {@code options} with placement confirmed, unless they say otherwise. */
    public static Map<String, String> options(Map<String, String> options) {
        Map<String, String> confirmed = new HashMap<>(options);
        confirmed.putIfAbsent("confirmPlacement", "true");
        return Map.copyOf(confirmed);
    }

    /** Opens the software device with {@link #options}. */
    public static RdmaDevice open(Map<String, String> options) throws VerbsException {
        return RdmaProviders.select("soft").open(options(options));
    }
}
