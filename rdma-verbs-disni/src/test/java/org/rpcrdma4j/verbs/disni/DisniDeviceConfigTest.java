package org.rpcrdma4j.verbs.disni;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.verbs.TransportType;
import org.rpcrdma4j.verbs.VerbsException;

class DisniDeviceConfigTest {

    @Test
    void anAddressAloneGivesTheDefaults() throws Exception {
        DisniDeviceConfig c = DisniDeviceConfig.parse(Map.of("address", "192.168.7.2"));
        assertThat(c.address()).isEqualTo(InetAddress.getByName("192.168.7.2"));
        assertThat(c).isEqualTo(DisniDeviceConfig.of(InetAddress.getByName("192.168.7.2")));
        assertThat(c.device()).isNull();
        assertThat(c.transport()).isNull();
        assertThat(c.maxSge()).isEqualTo(4);
        assertThat(c.ird()).isEqualTo(16);
        assertThat(c.ord()).isEqualTo(16);
        assertThat(c.retryCount()).isEqualTo(6);
        assertThat(c.rnrRetryCount()).isZero();
    }

    @Test
    void everyOptionIsRead() throws VerbsException {
        Map<String, String> o = new HashMap<>();
        o.put("address", "10.1.1.1");
        o.put("device", "mlx5_1");
        o.put("transport", "RoCE");
        o.put("maxSge", "30");
        o.put("maxInlineData", "220");
        o.put("maxQpWr", "8192");
        o.put("maxCqe", "65536");
        o.put("ird", "16");
        o.put("ord", "8");
        o.put("maxMessageSize", "2147483648");
        o.put("retryCount", "7");
        o.put("rnrRetryCount", "7");
        o.put("cmPollMillis", "5");
        o.put("cqIdleMicros", "100");
        assertThat(o.keySet()).containsExactlyInAnyOrderElementsOf(DisniDeviceConfig.KEYS);
        DisniDeviceConfig c = DisniDeviceConfig.parse(o);
        assertThat(c.device()).isEqualTo("mlx5_1");
        assertThat(c.transport()).isEqualTo(TransportType.ROCE);
        assertThat(c.maxSge()).isEqualTo(30);
        assertThat(c.maxInlineData()).isEqualTo(220);
        assertThat(c.maxQpWr()).isEqualTo(8192);
        assertThat(c.maxCqe()).isEqualTo(65536);
        assertThat(c.ord()).isEqualTo(8);
        assertThat(c.maxMessageSize()).isEqualTo(1L << 31);
        assertThat(c.retryCount()).isEqualTo(7);
        assertThat(c.cmPollMillis()).isEqualTo(5);
        assertThat(c.cqIdleMicros()).isEqualTo(100);
    }

    @Test
    void theAddressIsRequiredWithTheReason() {
        assertThatThrownBy(() -> DisniDeviceConfig.parse(Map.of()))
                .isInstanceOf(VerbsException.class)
                .hasMessageContaining("needs the option address=<IPv4 address of an RDMA interface>");
        assertThatThrownBy(() -> DisniDeviceConfig.parse(null)).isInstanceOf(VerbsException.class);
    }

    @Test
    void unknownKeysAreRefusedNamingTheKnownOnes() {
        assertThatThrownBy(() -> DisniDeviceConfig.parse(Map.of("address", "10.0.0.1", "crc", "true")))
                .isInstanceOf(VerbsException.class)
                .hasMessageContaining("unknown option 'crc' for the disni provider")
                .hasMessageContaining("maxSge");
    }

    @Test
    void ipv6IsRefusedBecauseDisniSpeaksIpv4Only() {
        assertThatThrownBy(() -> DisniDeviceConfig.parse(Map.of("address", "::1")))
                .isInstanceOf(VerbsException.class).hasMessageContaining("IPv4 only");
    }

    @Test
    void badValuesAreRefusedNamingTheOption() {
        assertThatThrownBy(() -> DisniDeviceConfig.parse(Map.of("address", "10.0.0.1", "maxSge", "many")))
                .isInstanceOf(VerbsException.class).hasMessageContaining("maxSge=many is not a number");
        assertThatThrownBy(() -> DisniDeviceConfig.parse(Map.of("address", "10.0.0.1", "maxSge", "0")))
                .isInstanceOf(VerbsException.class).hasMessageContaining("maxSge must be positive");
        assertThatThrownBy(() -> DisniDeviceConfig.parse(Map.of("address", "10.0.0.1", "transport", "tcp")))
                .isInstanceOf(VerbsException.class).hasMessageContaining("not one of ib, roce, iwarp");
        assertThatThrownBy(() -> DisniDeviceConfig.parse(Map.of("address", "10.0.0.1", "ird", "300")))
                .isInstanceOf(VerbsException.class).hasMessageContaining("8-bit");
        assertThatThrownBy(() -> DisniDeviceConfig.parse(Map.of("address", "10.0.0.1", "retryCount", "8")))
                .isInstanceOf(VerbsException.class).hasMessageContaining("0..7");
        assertThatThrownBy(() -> DisniDeviceConfig.parse(Map.of("address", "no.such.host.invalid")))
                .isInstanceOf(VerbsException.class).hasMessageContaining("option address=no.such.host.invalid");
    }
}
