package org.rpcrdma4j.registration;

import org.rpcrdma4j.registration.fake.FakeDevice;

class FakeFmrRegistrationTest extends AbstractRegistrationTest {
    @Override
    protected Harness newHarness(RegistrationConfig config) throws Exception {
        return new FakeHarness(FakeDevice.fmr(16), config.withMode(RegistrationMode.FMR));
    }
}
