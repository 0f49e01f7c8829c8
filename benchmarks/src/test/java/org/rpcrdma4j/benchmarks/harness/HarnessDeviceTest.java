package org.rpcrdma4j.benchmarks.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.benchmarks.verbs.VerbsPair;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.VerbsException;

/** The device options pick the RDMA rows' provider and where the NFS servers listen. */
class HarnessDeviceTest {

    @Test
    void withoutAProviderTheRowsRunOnTheSoftwareDeviceAtALoopbackAddress() throws Exception {
        HarnessConfig config = HarnessConfig.quickRun().withDevice("name=harness-soft,confirmPlacement=false");
        assertThat(config.deviceName()).isEqualTo("soft iWARP");
        assertThat(config.listenAddress()).isNull();
        try (RdmaDevice device = VerbsPair.openDevice(config.device())) {
            assertThat(device.name()).isEqualTo("harness-soft");
        }
    }

    @Test
    void aProviderNamesTheDeviceAndItsAddressIsWhereTheServersListen() {
        HarnessConfig config = HarnessConfig.quickRun().withDevice("provider=ffm,address=10.0.2.15");
        assertThat(config.deviceName()).isEqualTo("ffm");
        assertThat(config.listenAddress()).isEqualTo("10.0.2.15");
    }

    @Test
    void anUnknownProviderFailsNamingIt() {
        assertThatThrownBy(() -> VerbsPair.openDevice(Map.of("provider", "nosuch")))
                .isInstanceOf(VerbsException.class).hasMessageContaining("nosuch");
    }
}
