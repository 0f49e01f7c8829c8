package org.rpcrdma4j.verbs.soft;

import java.util.Map;

import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.RdmaProviders;
import org.rpcrdma4j.verbs.conformance.AbstractProtectionErrorConformanceTest;

/**
 * The protection suite with placement confirmation off (the default): Writes and Sends complete once written, as on
 * Linux siw and iWARP RNICs, so a refused one may complete successfully and only the broken connection shows the
 * refusal. This also checks the suite's relaxed assertions, which an iWARP hardware provider uses.
 */
class SoftUnconfirmedProtectionErrorTest extends AbstractProtectionErrorConformanceTest {
    @Override
    protected RdmaDevice newDevice() throws Exception {
        return RdmaProviders.select("soft").open(Map.of("confirmPlacement", "false"));
    }

    @Override
    protected boolean remoteErrorsReachTheRequest() {
        return false;
    }
}
