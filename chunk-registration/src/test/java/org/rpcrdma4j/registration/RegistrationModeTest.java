package org.rpcrdma4j.registration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.registration.fake.FakeDevice;
import org.rpcrdma4j.verbs.DeviceAttributes;
import org.rpcrdma4j.verbs.DeviceCapability;
import org.rpcrdma4j.verbs.TransportType;

class RegistrationModeTest {

    static DeviceAttributes device(DeviceCapability... capabilities) {
        return FakeDevice.of(TransportType.IWARP, 256, capabilities).attributes();
    }

    @Test
    void autoPrefersFrwrThenFmrThenRegMr() throws Exception {
        assertThat(RegistrationMode.AUTO.resolve(device(DeviceCapability.values()))).isEqualTo(RegistrationMode.FRWR);
        assertThat(RegistrationMode.AUTO.resolve(device(DeviceCapability.FMR, DeviceCapability.FAST_REG)))
                .as("FAST_REG without LOCAL_INV is not FRWR").isEqualTo(RegistrationMode.FMR);
        assertThat(RegistrationMode.AUTO.resolve(device())).isEqualTo(RegistrationMode.REG_MR);
        assertThat(RegistrationMode.AUTO.resolve(FakeDevice.of(TransportType.IB, 0, DeviceCapability.FAST_REG,
                DeviceCapability.LOCAL_INV).attributes())).as("depth 0").isEqualTo(RegistrationMode.REG_MR);
    }

    @Test
    void explicitModesAreHonouredOrRefusedClearly() throws Exception {
        assertThat(RegistrationMode.FMR.resolve(device(DeviceCapability.values()))).isEqualTo(RegistrationMode.FMR);
        assertThat(RegistrationMode.REG_MR.resolve(device(DeviceCapability.values())))
                .isEqualTo(RegistrationMode.REG_MR);
        assertThatThrownBy(() -> RegistrationMode.FRWR.resolve(device(DeviceCapability.FMR)))
                .isInstanceOf(UnsupportedModeException.class)
                .hasMessageContaining("FRWR").hasMessageContaining("FAST_REG");
        assertThatThrownBy(() -> RegistrationMode.FMR.resolve(device()))
                .isInstanceOf(UnsupportedModeException.class).hasMessageContaining("FMR");
    }

    @Test
    void poolCreationRefusesAnUnsupportedMode() {
        FakeDevice device = FakeDevice.regMrOnly();
        assertThatThrownBy(() -> RegistrationPool.create(device.allocProtectionDomain(),
                RegistrationConfig.defaults(4).withMode(RegistrationMode.FRWR)))
                .isInstanceOf(UnsupportedModeException.class);
        assertThat(device.openRegions()).isZero();
    }

    @Test
    void aMebibytePayloadTakesTwoHandlesAndTheReplyChunkOne() {
        RegistrationConfig config = RegistrationConfig.defaults(32);
        assertThat(config.handlesPerRpc(256)).isEqualTo(3);
        assertThat(config.handlesPerRpc(16)).isEqualTo(17 + 1);
    }
}
