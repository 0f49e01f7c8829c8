package org.rpcrdma4j.nfs.v4;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.rpcrdma4j.nfs.v4.Fattr4Fixtures.decoding;
import static org.rpcrdma4j.nfs.v4.Fattr4Fixtures.encode;

import org.dcache.oncrpc4j.xdr.Xdr;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.nfs.xdr.BadXdrException;

class Bitmap4Test {

    private static byte[] words(int... w) {
        XdrWriter x = new XdrWriter();
        for (int v : w) {
            x.word(v);
        }
        return x.bytes();
    }

    @Test
    void anEmptyBitmapIsACountOfZero() {
        Bitmap4 b = new Bitmap4();
        assertThat(b.isEmpty()).isTrue();
        assertThat(b.size()).isZero();
        assertThat(b.wordCount()).isZero();
        assertThat(b.nextSetBit(0)).isEqualTo(-1);
        assertThat(b.encodedSize()).isEqualTo(4);
        assertThat(encode(b::encode)).isEqualTo(words(0));
        assertThat(b).hasToString("{}");
    }

    @Test
    void wordTwoAttributesEncodeInTheThirdWord() {
        Bitmap4 b = Bitmap4.of(Fattr4.FATTR4_SUPPATTR_EXCLCREAT);
        assertThat(b.wordCount()).isEqualTo(3);
        assertThat(encode(b::encode)).isEqualTo(words(3, 0, 0, 1 << 11));
        Bitmap4 c = Bitmap4.of(Fattr4.FATTR4_TYPE, Fattr4.FATTR4_MODE, Fattr4.FATTR4_CHANGE_ATTR_TYPE);
        assertThat(encode(c::encode)).isEqualTo(words(3, 1 << 1, 1 << 1, 1 << 15));
        assertThat(c.word(0)).isEqualTo(2);
        assertThat(c.word(7)).isZero();
    }

    @Test
    void highBitsOfAWordAreNotSignTrouble() {
        Bitmap4 b = Bitmap4.of(31, 63);
        assertThat(encode(b::encode)).isEqualTo(words(2, 0x8000_0000, 0x8000_0000));
        assertThat(b.toArray()).containsExactly(31, 63);
        assertThat(b.contains(31)).isTrue();
        assertThat(b.contains(30)).isFalse();
    }

    @Test
    void noTrailingZeroWordsAreEncodedAfterAClear() {
        Bitmap4 b = Bitmap4.of(1, 75);
        b.clear(75);
        assertThat(b.wordCount()).isEqualTo(1);
        assertThat(encode(b::encode)).isEqualTo(words(1, 2));
        b.clear(1);
        assertThat(b.isEmpty()).isTrue();
        assertThat(encode(b::encode)).isEqualTo(words(0));
    }

    @Test
    void decodingAcceptsTrailingZeroWordsAndDropsThem() throws Exception {
        Xdr xdr = decoding(words(4, 0x12, 0, 0, 0, 0xDEAD));
        Bitmap4 b = Bitmap4.decode(xdr);
        assertThat(b).isEqualTo(Bitmap4.of(1, 4));
        assertThat(b.wordCount()).isEqualTo(1);
        assertThat(encode(b::encode)).isEqualTo(words(1, 0x12));
        assertThat(xdr.xdrDecodeInt()).isEqualTo(0xDEAD); // exactly the bitmap was consumed
        assertThat(Bitmap4.decode(decoding(words(0)))).isEqualTo(new Bitmap4());
        assertThat(Bitmap4.decode(decoding(words(2, 0, 0))).isEmpty()).isTrue();
    }

    @Test
    void decodingIsBoundedByTheWordLimit() throws Exception {
        int max = Nfs4.DECODE_MAX_BITMAP_WORDS;
        int[] ok = new int[max + 1];
        ok[0] = max;
        ok[max] = 1 << 31;
        assertThat(Bitmap4.decode(decoding(words(ok))).toArray()).containsExactly(Bitmap4.MAX_ATTRIBUTE);
        int[] tooMany = new int[max + 2];
        tooMany[0] = max + 1;
        assertThatThrownBy(() -> Bitmap4.decode(decoding(words(tooMany))))
                .isInstanceOf(BadXdrException.class).hasMessageContaining("exceeds");
        assertThatThrownBy(() -> Bitmap4.decode(decoding(words(-1))))
                .isInstanceOf(BadXdrException.class);
    }

    @Test
    void aTruncatedBitmapIsBadXdr() {
        assertThatThrownBy(() -> Bitmap4.decode(decoding(words(3, 1, 2))))
                .isInstanceOf(BadXdrException.class);
        assertThatThrownBy(() -> Bitmap4.decode(decoding(new byte[2])))
                .isInstanceOf(BadXdrException.class);
        assertThatThrownBy(() -> Bitmap4.decode(decoding(new byte[0])))
                .isInstanceOf(BadXdrException.class);
    }

    @Test
    void setAlgebra() {
        Bitmap4 a = Bitmap4.of(1, 3, 33, 75);
        Bitmap4 b = Bitmap4.of(3, 33, 40);
        assertThat(a.and(b).toArray()).containsExactly(3, 33);
        assertThat(a.andNot(b).toArray()).containsExactly(1, 75);
        assertThat(b.andNot(a).toArray()).containsExactly(40);
        assertThat(a.or(b).toArray()).containsExactly(1, 3, 33, 40, 75);
        assertThat(a.and(Bitmap4.of(75)).wordCount()).isEqualTo(3);
        assertThat(a.and(Bitmap4.of(1)).wordCount()).isEqualTo(1);
        assertThat(a.andNot(Bitmap4.of(75)).wordCount()).isEqualTo(2);
        assertThat(a.containsAll(Bitmap4.of(1, 75))).isTrue();
        assertThat(a.containsAll(b)).isFalse();
        assertThat(a.containsAll(new Bitmap4())).isTrue();
        // the operands are left alone
        assertThat(a.toArray()).containsExactly(1, 3, 33, 75);
        assertThat(b.toArray()).containsExactly(3, 33, 40);
    }

    @Test
    void iterationAndSize() {
        Bitmap4 b = Bitmap4.of(0, 31, 32, 64, 255);
        assertThat(b.size()).isEqualTo(5);
        assertThat(b.nextSetBit(0)).isZero();
        assertThat(b.nextSetBit(1)).isEqualTo(31);
        assertThat(b.nextSetBit(33)).isEqualTo(64);
        assertThat(b.nextSetBit(65)).isEqualTo(255);
        assertThat(b.nextSetBit(256)).isEqualTo(-1);
        assertThat(b.nextSetBit(-5)).isZero();
        assertThat(b).hasToString("{0, 31, 32, 64, 255}");
    }

    @Test
    void equalityIgnoresTrailingZeroWords() {
        Bitmap4 a = Bitmap4.fromWords(0x12, 0, 0);
        Bitmap4 b = Bitmap4.of(1, 4);
        assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
        assertThat(a).isNotEqualTo(Bitmap4.of(1));
        assertThat(a.freeze()).isEqualTo(b);
        assertThat(Bitmap4.fromWords()).isEqualTo(new Bitmap4());
    }

    @Test
    void attributeNumbersAreBounded() {
        Bitmap4 b = new Bitmap4();
        assertThatThrownBy(() -> b.set(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> b.set(Bitmap4.MAX_ATTRIBUTE + 1)).isInstanceOf(IllegalArgumentException.class);
        assertThat(b.contains(-1)).isFalse();
        assertThat(b.contains(100_000)).isFalse();
        b.clear(100_000);
        b.clear(-3);
        assertThat(b.isEmpty()).isTrue();
        assertThatThrownBy(() -> Bitmap4.fromWords(new int[Nfs4.DECODE_MAX_BITMAP_WORDS + 1]))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aFrozenBitmapCannotChangeButCopiesCan() {
        Bitmap4 f = Bitmap4.of(4).freeze();
        assertThat(f.isFrozen()).isTrue();
        assertThat(f.freeze()).isSameAs(f);
        assertThatThrownBy(() -> f.set(5)).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> f.clear(4)).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> Fattr4.SERVER_SUPPORTED.set(12)).isInstanceOf(UnsupportedOperationException.class);
        Bitmap4 c = f.copy().set(5);
        assertThat(c.toArray()).containsExactly(4, 5);
        assertThat(f.toArray()).containsExactly(4);
        assertThat(f.and(c).isFrozen()).isFalse();
        // freezing copies: later changes to the original do not reach the frozen one
        Bitmap4 m = Bitmap4.of(1);
        Bitmap4 frozen = m.freeze();
        m.set(2);
        assertThat(frozen.toArray()).containsExactly(1);
    }
}
