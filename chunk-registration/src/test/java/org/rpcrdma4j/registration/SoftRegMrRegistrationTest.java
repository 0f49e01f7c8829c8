package org.rpcrdma4j.registration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;

/** The registration suite on the software iWARP device, REG_MR (a device restricted to synchronous registration, like DiSNI's; AUTO must pick REG_MR). */
class SoftRegMrRegistrationTest extends AbstractRegistrationTest {
    @Override
    protected Harness newHarness(RegistrationConfig config) throws Exception {
        assumeTrue(SoftHarness.available(), "the soft provider is not on the class path");
        return new SoftHarness(Map.of("capabilities", ""), config);
    }

    @Test
    void autoPicksSynchronousRegistrationOnADeviceWithoutFastRegistration() throws Exception {
        try (Harness h = newHarness(config())) {
            assertThat(h.pool().mode()).isEqualTo(RegistrationMode.REG_MR);
        }
    }
}
