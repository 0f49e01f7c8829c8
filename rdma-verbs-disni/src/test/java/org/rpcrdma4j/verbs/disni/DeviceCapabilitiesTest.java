package org.rpcrdma4j.verbs.disni;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.InetSocketAddress;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.rpcrdma4j.verbs.DeviceAttributes;
import org.rpcrdma4j.verbs.DeviceCapability;
import org.rpcrdma4j.verbs.TransportType;
import org.rpcrdma4j.verbs.VerbsException;

class DeviceCapabilitiesTest {

    @ParameterizedTest
    @EnumSource(TransportType.class)
    void aDisniDeviceClaimsNoOptionalCapability(TransportType transport) throws Exception {
        DisniDeviceConfig config = DisniDeviceConfig.of(InetAddress.getByName("10.0.0.1"));
        DeviceAttributes a = DisniDevice.attributes(config, transport);
        assertThat(a.capabilities()).isEmpty();
        for (DeviceCapability c : DeviceCapability.values()) {
            assertThat(a.has(c)).as(c.name()).isFalse();
        }
        assertThat(a.transportType()).isEqualTo(transport);
        assertThat(a.maxFastRegDepth()).isZero();
    }

    @Test
    void theLimitsAreTheConfiguredOnesAndPrivateDataFitsAnIbRequest() throws Exception {
        DisniDeviceConfig c = new DisniDeviceConfig(InetAddress.getByName("10.0.0.1"), null, null, 30, 220, 8192,
                65536, 16, 8, 1L << 31, 6, 0, 10, 500);
        DeviceAttributes a = DisniDevice.attributes(c, TransportType.ROCE);
        assertThat(a.maxSge()).isEqualTo(30);
        assertThat(a.maxInlineData()).isEqualTo(220);
        assertThat(a.maxQpWr()).isEqualTo(8192);
        assertThat(a.maxCqe()).isEqualTo(65536);
        assertThat(a.maxQpRdAtom()).isEqualTo(16);
        assertThat(a.maxQpInitRdAtom()).isEqualTo(8);
        assertThat(a.maxMessageSize()).isEqualTo(1L << 31);
        assertThat(a.maxPrivateData()).isEqualTo(56);
    }

    @Test
    void aListenerBindsTheDevicesOwnAddress() throws Exception {
        InetAddress device = InetAddress.getByName("10.0.0.1");
        assertThat(DisniConnectionManager.listenAddress(new InetSocketAddress(20049), device))
                .isEqualTo(new InetSocketAddress(device, 20049));
        assertThat(DisniConnectionManager.listenAddress(null, device)).isEqualTo(new InetSocketAddress(device, 0));
        assertThat(DisniConnectionManager.listenAddress(new InetSocketAddress(device, 7), device))
                .isEqualTo(new InetSocketAddress(device, 7));
        assertThatThrownBy(() -> DisniConnectionManager.listenAddress(
                new InetSocketAddress(InetAddress.getByName("10.0.0.2"), 7), device))
                .isInstanceOf(VerbsException.class)
                .hasMessageContaining("listens on its own address 10.0.0.1, not 10.0.0.2");
    }
}
