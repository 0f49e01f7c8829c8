package org.rpcrdma4j.registration;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class WrIdsTest {

    @ParameterizedTest
    @EnumSource(WrIds.Kind.class)
    void fieldsRoundTrip(WrIds.Kind kind) {
        long id = WrIds.of(kind, 0xABCDEF, 0xFFFF_FFFE);
        assertThat(WrIds.kind(id)).isEqualTo(kind);
        assertThat(WrIds.epoch(id)).isEqualTo(0xABCDEF);
        assertThat(WrIds.index(id)).isEqualTo(0xFFFF_FFFE);
    }

    @Test
    void onlyRegistrationKindsBelongToThePool() {
        assertThat(WrIds.isRegistration(WrIds.of(WrIds.Kind.FAST_REG, 1, 2))).isTrue();
        assertThat(WrIds.isRegistration(WrIds.of(WrIds.Kind.LOCAL_INV, 1, 2))).isTrue();
        assertThat(WrIds.isRegistration(WrIds.of(WrIds.Kind.FMR_UNMAP, 1, 2))).isTrue();
        assertThat(WrIds.isRegistration(WrIds.of(WrIds.Kind.SEND, 1, 2))).isFalse();
        assertThat(WrIds.isRegistration(WrIds.of(WrIds.Kind.RECEIVE, WrIds.EPOCH_MASK, -1))).isFalse();
        assertThat(WrIds.isRegistration(WrIds.of(WrIds.Kind.RDMA_READ, 0, 0))).isFalse();
        assertThat(WrIds.isRegistration(0)).isFalse();
    }

    @Test
    void theEpochWraps() {
        assertThat(WrIds.epoch(WrIds.of(WrIds.Kind.SEND, WrIds.EPOCH_MASK + 1, 0))).isZero();
    }
}
