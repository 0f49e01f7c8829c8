package org.rpcrdma4j.registration;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.Map;

/** The registration suite on the software iWARP device, FMR. */
class SoftFmrRegistrationTest extends AbstractRegistrationTest {
    @Override
    protected Harness newHarness(RegistrationConfig config) throws Exception {
        assumeTrue(SoftHarness.available(), "the soft provider is not on the class path");
        return new SoftHarness(Map.of(), config.withMode(RegistrationMode.FMR));
    }
}
