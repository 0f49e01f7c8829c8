package org.rpcrdma4j.verbs.ffm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.testsupport.RequiredPeer;
import org.rpcrdma4j.verbs.RdmaProvider;
import org.rpcrdma4j.verbs.RdmaProviders;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.ffm.internal.NativeLibrary;

/**
 * The provider as a user meets it without a device: found by name, options checked before anything native is
 * touched, and a host without RDMA support refused in one line that names what is missing. (With a device, the
 * conformance suite runs over it in the guest: {@code FfmGuestTest}.)
 */
class FfmProviderTest {

    @Test
    void theProviderIsFoundByItsName() {
        assertThat(RdmaProviders.all()).extracting(RdmaProvider::name).contains("ffm", "soft");
    }

    @Test
    void unknownOptionsAndBadNumbersAreRefusedByName() {
        assertThatThrownBy(() -> FfmOptions.parse(Map.of("crc", "true"))).isInstanceOf(VerbsException.class)
                .hasMessageContaining("unknown option 'crc'").hasMessageContaining("address");
        assertThatThrownBy(() -> FfmOptions.parse(Map.of("retryCount", "9"))).isInstanceOf(VerbsException.class)
                .hasMessageContaining("retryCount=9 is outside 0..7");
        assertThatThrownBy(() -> FfmOptions.parse(Map.of("maxInlineData", "lots")))
                .isInstanceOf(VerbsException.class).hasMessageContaining("not a number");
    }

    @Test
    void theDefaultsAreLinuxsChoices() throws Exception {
        FfmOptions o = FfmOptions.parse(Map.of());
        assertThat(o.address()).isNull();
        assertThat(o.device()).isNull();
        assertThat(o.retryCount()).isEqualTo(6);
        assertThat(o.rnrRetryCount()).isZero();
        assertThat(o.maxInlineData()).isEqualTo(64);
    }

    @Test
    void aHostWithoutRdmaIsRefusedInOneLine() {
        try {
            NativeLibrary.open(NativeLibrary.RDMACM);
        } catch (VerbsException e) {
            RequiredPeer.require("rdma-core's librdmacm", e.getMessage());
        }
        RequiredPeer.require("a host without RDMA devices", Files.isDirectory(Path.of("/sys/class/infiniband_verbs"))
                ? "this host has RDMA devices" : null);
        RdmaProvider ffm = new FfmProvider();
        assertThat(ffm.availability().available()).isFalse();
        assertThatThrownBy(() -> ffm.open(Map.of())).isInstanceOf(VerbsException.class)
                .satisfies(e -> assertThat(e.getMessage()).contains("--provider soft").doesNotContain("\n"));
    }
}
