package org.rpcrdma4j.verbs.soft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.EnumSet;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.verbs.DeviceCapability;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.RdmaProvider;
import org.rpcrdma4j.verbs.RdmaProviders;
import org.rpcrdma4j.verbs.TransportType;
import org.rpcrdma4j.verbs.VerbsException;

class SoftIwarpOptionsTest {

    @Test
    void defaults() throws Exception {
        SoftIwarpOptions o = SoftIwarpOptions.parse(Map.of());
        assertThat(o).isEqualTo(SoftIwarpOptions.defaults());
        assertThat(o.crc()).isFalse();
        assertThat(o.mpaRevision()).isEqualTo(2);
        assertThat(o.maxUlpdu()).isEqualTo(SoftIwarpOptions.DEFAULT_MAX_ULPDU);
        assertThat(o.engineThreads()).isEqualTo(2);
        assertThat(o.capabilities()).isEqualTo(EnumSet.complementOf(EnumSet.of(DeviceCapability.MEMORY_WINDOW)));
        assertThat(o.handshakeTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(o.confirmPlacement()).isFalse();
        assertThat(o.readyToReceive()).isTrue();
        assertThat(o.wakeResponder()).isTrue();
        assertThat(o.holdProbeAnswers()).isTrue();
        assertThat(o.probeAnswerHold()).isEqualTo(Duration.ofMillis(1));
        assertThat(o.maxPendingHandshakes()).isEqualTo(SoftIwarpOptions.DEFAULT_MAX_PENDING_HANDSHAKES);
    }

    @Test
    void everyKeyIsRead() throws Exception {
        SoftIwarpOptions o = SoftIwarpOptions.parse(Map.ofEntries(Map.entry("name", "x"), Map.entry("crc", "true"),
                Map.entry("mpaRevision", "1"), Map.entry("maxUlpdu", "100"), Map.entry("engineThreads", "3"),
                Map.entry("capabilities", "fast_reg, LOCAL_INV"), Map.entry("handshakeTimeoutMs", "250"),
                Map.entry("confirmPlacement", "true"), Map.entry("socketBufferSize", "65536"),
                Map.entry("readyToReceive", "no"), Map.entry("wakeResponder", "off"),
                Map.entry("holdProbeAnswers", "false"), Map.entry("probeAnswerHoldMs", "7"),
                Map.entry("maxPendingHandshakes", "9")));
        assertThat(o).isEqualTo(new SoftIwarpOptions("x", true, 1, 100, 3,
                EnumSet.of(DeviceCapability.FAST_REG, DeviceCapability.LOCAL_INV), Duration.ofMillis(250), true,
                65536, false, false, false, Duration.ofMillis(7), 9));
        assertThat(SoftIwarpOptions.parse(o.toMap())).isEqualTo(o);
    }

    @Test
    void emptyCapabilitiesMeansNone() throws Exception {
        assertThat(SoftIwarpOptions.parse(Map.of("capabilities", "")).capabilities()).isEmpty();
    }

    @Test
    void unknownKeysAndBadValuesAreRefusedClearly() {
        assertThatThrownBy(() -> SoftIwarpOptions.parse(Map.of("crcc", "true")))
                .isInstanceOf(VerbsException.class).hasMessageContaining("unknown option 'crcc'")
                .hasMessageContaining("crc");
        assertThatThrownBy(() -> SoftIwarpOptions.parse(Map.of("crc", "maybe")))
                .isInstanceOf(VerbsException.class).hasMessageContaining("crc");
        assertThatThrownBy(() -> SoftIwarpOptions.parse(Map.of("mpaRevision", "3")))
                .isInstanceOf(VerbsException.class).hasMessageContaining("mpaRevision");
        assertThatThrownBy(() -> SoftIwarpOptions.parse(Map.of("maxUlpdu", "70000")))
                .isInstanceOf(VerbsException.class).hasMessageContaining("maxUlpdu");
        assertThatThrownBy(() -> SoftIwarpOptions.parse(Map.of("engineThreads", "zero")))
                .isInstanceOf(VerbsException.class).hasMessageContaining("engineThreads");
        assertThatThrownBy(() -> SoftIwarpOptions.parse(Map.of("probeAnswerHoldMs", "0")))
                .isInstanceOf(VerbsException.class).hasMessageContaining("probeAnswerHoldMs");
        assertThatThrownBy(() -> SoftIwarpOptions.parse(Map.of("probeAnswerHoldMs", "60001")))
                .isInstanceOf(VerbsException.class).hasMessageContaining("probeAnswerHoldMs");
        assertThatThrownBy(() -> SoftIwarpOptions.parse(Map.of("maxPendingHandshakes", "0")))
                .isInstanceOf(VerbsException.class).hasMessageContaining("maxPendingHandshakes");
        assertThatThrownBy(() -> SoftIwarpOptions.parse(Map.of("capabilities", "ATOMICS")))
                .isInstanceOf(VerbsException.class).hasMessageContaining("ATOMICS");
    }

    @Test
    void providerIsFoundAndOpensAnIwarpDevice() throws Exception {
        RdmaProvider provider = RdmaProviders.select("soft");
        assertThat(provider).isInstanceOf(SoftIwarpProvider.class);
        assertThat(provider.availability().available()).isTrue();
        try (RdmaDevice device = provider.open(Map.of("name", "probe", "capabilities", "FMR"))) {
            assertThat(device.name()).isEqualTo("probe");
            assertThat(device.attributes().transportType()).isEqualTo(TransportType.IWARP);
            assertThat(device.attributes().capabilities()).containsExactly(DeviceCapability.FMR);
            assertThat(device.attributes().maxFastRegDepth()).isEqualTo(256);
            assertThat(device.attributes().maxSge()).isGreaterThanOrEqualTo(6);
            assertThat(device.attributes().maxQpRdAtom()).isEqualTo(128);
            assertThat(device.attributes().maxQpInitRdAtom()).isEqualTo(128);
            assertThat(device.attributes().maxPrivateData()).isEqualTo(252);
        }
        assertThat(RdmaProviders.select("auto").name()).as("auto falls back to the software device")
                .isIn("soft", "disni");
    }

    @Test
    void engineThreadsStopWhenTheDeviceCloses() throws Exception {
        RdmaDevice device = RdmaProviders.select("soft").open(Map.of("name", "lifecycle-probe"));
        String name = "lifecycle-probe-engine-";
        assertThat(Thread.getAllStackTraces().keySet()).anyMatch(t -> t.getName().startsWith(name));
        device.close();
        device.close();
        assertThat(Thread.getAllStackTraces().keySet()).noneMatch(t -> t.getName().startsWith(name) && t.isAlive());
        assertThatThrownBy(device::allocProtectionDomain).isInstanceOf(VerbsException.class);
    }
}
