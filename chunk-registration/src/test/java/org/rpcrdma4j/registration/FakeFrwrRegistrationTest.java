package org.rpcrdma4j.registration;

import org.rpcrdma4j.registration.fake.FakeDevice;

class FakeFrwrRegistrationTest extends AbstractRegistrationTest {
    @Override
    protected Harness newHarness(RegistrationConfig config) throws Exception {
        return new FakeHarness(FakeDevice.frwr(16), config.withMode(RegistrationMode.FRWR));
    }
}
