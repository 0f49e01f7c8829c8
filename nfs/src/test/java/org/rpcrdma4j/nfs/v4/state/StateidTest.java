package org.rpcrdma4j.nfs.v4.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** {@link Stateid}: the special values of RFC 8881 section 8.2.3, value semantics, the other field's layout. */
class StateidTest {
    @Test
    void theSpecialStateids() {
        assertThat(Stateid.ANONYMOUS.seqid()).isZero();
        assertThat(Stateid.ANONYMOUS.other()).containsOnly(0);
        assertThat(Stateid.READ_BYPASS.seqid()).isEqualTo(0xffffffff);
        assertThat(Stateid.READ_BYPASS.other()).containsOnly(0xff);
        assertThat(Stateid.CURRENT.seqid()).isEqualTo(1);
        assertThat(Stateid.CURRENT.other()).containsOnly(0);
        assertThat(Stateid.INVALID.seqid()).isEqualTo(0xffffffff);
        assertThat(Stateid.INVALID.other()).containsOnly(0);

        assertThat(Stateid.ANONYMOUS.isAnonymous()).isTrue();
        assertThat(Stateid.READ_BYPASS.isReadBypass()).isTrue();
        assertThat(Stateid.CURRENT.isCurrent()).isTrue();
        assertThat(Stateid.INVALID.isInvalid()).isTrue();
        assertThat(Stateid.CURRENT.isAnonymous()).isFalse();
        assertThat(Stateid.INVALID.isReadBypass()).isFalse();
        assertThat(new Stateid(5, new byte[12]).isSpecial()).isTrue();
        assertThat(Stateid.of(1, 0, 0, 1).isSpecial()).isFalse();
    }

    @Test
    void equalsComparesBothFields() {
        Stateid a = Stateid.of(3, 1, 2, 3);

        assertThat(a).isEqualTo(Stateid.of(3, 1, 2, 3)).hasSameHashCodeAs(Stateid.of(3, 1, 2, 3));
        assertThat(a).isNotEqualTo(Stateid.of(4, 1, 2, 3)).isNotEqualTo(Stateid.of(3, 1, 2, 4));
        assertThat(Stateid.INVALID).isNotEqualTo(Stateid.READ_BYPASS).isNotEqualTo(Stateid.ANONYMOUS);
    }

    @Test
    void theOtherFieldIsCopiedInAndOut() {
        byte[] other = new byte[12];
        Stateid s = new Stateid(1, other);
        other[0] = 7;
        s.other()[1] = 7;

        assertThat(s.other()).containsOnly(0);
        assertThatThrownBy(() -> new Stateid(1, new byte[11])).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theOtherFieldHoldsThreeBigEndianWords() {
        Stateid s = Stateid.of(1, 0x01020304, 0xa0b0c0d0, -1);

        assertThat(s.other()).containsExactly(1, 2, 3, 4, 0xa0, 0xb0, 0xc0, 0xd0, 0xff, 0xff, 0xff, 0xff);
        assertThat(s.otherWord(0)).isEqualTo(0x01020304);
        assertThat(s.otherWord(1)).isEqualTo(0xa0b0c0d0);
        assertThat(s.otherWord(2)).isEqualTo(-1);
    }
}
