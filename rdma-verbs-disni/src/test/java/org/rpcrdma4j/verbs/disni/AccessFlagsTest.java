package org.rpcrdma4j.verbs.disni;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.ibm.disni.verbs.IbvMr;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.VerbsException;

class AccessFlagsTest {

    @Test
    void eachSpiFlagBecomesDisnisFlag() throws VerbsException {
        assertThat(AccessFlags.toIbv(0)).isZero();
        assertThat(AccessFlags.toIbv(Access.LOCAL_WRITE)).isEqualTo(IbvMr.IBV_ACCESS_LOCAL_WRITE);
        assertThat(AccessFlags.toIbv(Access.REMOTE_READ)).isEqualTo(IbvMr.IBV_ACCESS_REMOTE_READ);
        assertThat(AccessFlags.toIbv(Access.LOCAL_WRITE | Access.REMOTE_WRITE))
                .isEqualTo(IbvMr.IBV_ACCESS_LOCAL_WRITE | IbvMr.IBV_ACCESS_REMOTE_WRITE);
        assertThat(AccessFlags.toIbv(Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ))
                .isEqualTo(IbvMr.IBV_ACCESS_LOCAL_WRITE | IbvMr.IBV_ACCESS_REMOTE_WRITE
                        | IbvMr.IBV_ACCESS_REMOTE_READ);
    }

    @Test
    void libibverbsValuesAreTheOnesDisniDefines() {
        assertThat(IbvMr.IBV_ACCESS_LOCAL_WRITE).isEqualTo(1);
        assertThat(IbvMr.IBV_ACCESS_REMOTE_WRITE).isEqualTo(2);
        assertThat(IbvMr.IBV_ACCESS_REMOTE_READ).isEqualTo(4);
    }

    @Test
    void everyValidCombinationRoundTrips() throws VerbsException {
        for (int access = 0; access < 8; access++) {
            if (Access.has(access, Access.REMOTE_WRITE) && !Access.has(access, Access.LOCAL_WRITE)) {
                continue;
            }
            assertThat(AccessFlags.fromIbv(AccessFlags.toIbv(access))).as(Access.toString(access)).isEqualTo(access);
        }
    }

    @Test
    void remoteWriteWithoutLocalWriteIsRefusedWithTheReason() {
        assertThatThrownBy(() -> AccessFlags.toIbv(Access.REMOTE_WRITE))
                .isInstanceOf(VerbsException.class)
                .hasMessageContaining("REMOTE_WRITE requires LOCAL_WRITE");
        assertThatThrownBy(() -> AccessFlags.toIbv(Access.REMOTE_WRITE | Access.REMOTE_READ))
                .isInstanceOf(VerbsException.class);
    }

    @Test
    void unknownBitsAreRefused() {
        assertThatThrownBy(() -> AccessFlags.toIbv(1 << 5))
                .isInstanceOf(VerbsException.class)
                .hasMessageContaining("unknown access flags 0x20");
    }

    @Test
    void bitsTheSpiDoesNotModelAreDroppedComingBack() {
        assertThat(AccessFlags.fromIbv(IbvMr.IBV_ACCESS_REMOTE_ATOMIC | IbvMr.IBV_ACCESS_MW_BIND
                | IbvMr.IBV_ACCESS_REMOTE_READ)).isEqualTo(Access.REMOTE_READ);
    }
}
