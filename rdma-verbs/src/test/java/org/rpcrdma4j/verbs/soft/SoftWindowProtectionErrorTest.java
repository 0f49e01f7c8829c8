package org.rpcrdma4j.verbs.soft;

import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.RdmaProviders;
import org.rpcrdma4j.verbs.conformance.AbstractProtectionErrorConformanceTest;

/**
 * The protection errors on the software device mapping REG_MR as a device that binds type 2 memory windows
 * does (the capabilities rxe's windows give: no FMR, no Read with Invalidate).
 */
class SoftWindowProtectionErrorTest extends AbstractProtectionErrorConformanceTest {
    @Override
    protected RdmaDevice newDevice() throws Exception {
        return RdmaProviders.select("soft").open(SoftWindowMemoryRegistrationTest.WINDOWS);
    }
}
