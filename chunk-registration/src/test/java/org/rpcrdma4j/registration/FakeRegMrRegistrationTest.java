package org.rpcrdma4j.registration;

import org.rpcrdma4j.registration.fake.FakeDevice;

class FakeRegMrRegistrationTest extends AbstractRegistrationTest {
    @Override
    protected Harness newHarness(RegistrationConfig config) throws Exception {
        return new FakeHarness(FakeDevice.regMrOnly(), config.withMode(RegistrationMode.REG_MR));
    }
}
