package org.rpcrdma4j.registration;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.Map;

/** The registration suite, FRWR, on the software device mapping REG_MR as a device that binds type 2 memory windows does. */
class SoftWindowFrwrRegistrationTest extends AbstractRegistrationTest {
    @Override
    protected Harness newHarness(RegistrationConfig config) throws Exception {
        assumeTrue(SoftHarness.available(), "the soft provider is not on the class path");
        return new SoftHarness(Map.of("capabilities", "FAST_REG,LOCAL_INV,SEND_WITH_INV,REMOTE_INV,MEMORY_WINDOW"),
                config.withMode(RegistrationMode.FRWR));
    }
}
