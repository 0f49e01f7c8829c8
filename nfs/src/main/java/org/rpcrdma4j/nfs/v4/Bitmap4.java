package org.rpcrdma4j.nfs.v4;

import java.util.Arrays;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs.xdr.BadXdrException;
import org.rpcrdma4j.nfs.xdr.Nfs3Xdr;

/**
 * {@code bitmap4} (RFC 8881 section 3.3.6): a set of attribute numbers, attribute {@code n} being bit {@code n % 32} of
 * word {@code n / 32}. Grows as attributes are added, up to {@link #MAX_ATTRIBUTE}; two bitmaps are equal when they
 * hold the same attributes, whatever zero words either carries.
 *
 * <p>Mutable unless {@link #freeze() frozen}: {@link #set} and {@link #clear} change this bitmap, every other method
 * returns a new one. Not thread-safe while mutable; a frozen bitmap (such as {@link Fattr4#SERVER_SUPPORTED}) may be
 * shared freely.
 *
 * <p>Encoding writes no trailing zero words (an empty bitmap is a count of 0). Decoding accepts trailing zero words and
 * at most {@link Nfs4#DECODE_MAX_BITMAP_WORDS} words; more, or a stream too short for the words it announces, is
 * a {@link BadXdrException}, which an NFSv4 server reports as {@code NFS4ERR_BADXDR} for the operation and a client
 * treats as a bad reply.
 */
public final class Bitmap4 {
    /** Highest attribute number a bitmap holds: what {@link Nfs4#DECODE_MAX_BITMAP_WORDS} words can carry. */
    public static final int MAX_ATTRIBUTE = 32 * Nfs4.DECODE_MAX_BITMAP_WORDS - 1;

    private static final int[] NO_WORDS = new int[0];

    private int[] words;
    private boolean frozen;

    /** An empty, mutable bitmap. */
    public Bitmap4() {
        this.words = NO_WORDS;
    }

    private Bitmap4(int[] words) {
        this.words = words;
    }

    /** A mutable bitmap holding {@code attributes}. */
    public static Bitmap4 of(int... attributes) {
        Bitmap4 b = new Bitmap4();
        for (int a : attributes) {
            b.set(a);
        }
        return b;
    }

    /**
     * A mutable bitmap from wire words (word 0 holds attributes 0..31); at most {@link Nfs4#DECODE_MAX_BITMAP_WORDS}
     * words, trailing zero words allowed.
     */
    public static Bitmap4 fromWords(int... words) {
        if (words.length > Nfs4.DECODE_MAX_BITMAP_WORDS) {
            throw new IllegalArgumentException("a bitmap4 has at most " + Nfs4.DECODE_MAX_BITMAP_WORDS + " words, got "
                    + words.length);
        }
        return new Bitmap4(Arrays.copyOf(words, significantWords(words)));
    }

    /**
     * Adds {@code attribute}.
     *
     * @return this bitmap
     * @throws IllegalArgumentException when it is negative or above {@link #MAX_ATTRIBUTE}
     * @throws UnsupportedOperationException when this bitmap is frozen
     */
    public Bitmap4 set(int attribute) {
        checkMutable();
        if (attribute < 0 || attribute > MAX_ATTRIBUTE) {
            throw new IllegalArgumentException("attribute number out of range: " + attribute);
        }
        int w = attribute >>> 5;
        if (w >= words.length) {
            words = Arrays.copyOf(words, w + 1);
        }
        words[w] |= 1 << (attribute & 31);
        return this;
    }

    /**
     * Removes {@code attribute} (nothing happens if it is not there).
     *
     * @return this bitmap
     * @throws UnsupportedOperationException when this bitmap is frozen
     */
    public Bitmap4 clear(int attribute) {
        checkMutable();
        if (attribute >= 0 && (attribute >>> 5) < words.length) {
            words[attribute >>> 5] &= ~(1 << (attribute & 31));
            words = Arrays.copyOf(words, significantWords(words));
        }
        return this;
    }

    public boolean contains(int attribute) {
        return attribute >= 0 && (attribute >>> 5) < words.length && (words[attribute >>> 5] & (1 << (attribute & 31))) != 0;
    }

    /** @return a new, mutable bitmap of the attributes in both this bitmap and {@code other} */
    public Bitmap4 and(Bitmap4 other) {
        int n = Math.min(words.length, other.words.length);
        int[] r = new int[n];
        for (int i = 0; i < n; i++) {
            r[i] = words[i] & other.words[i];
        }
        return new Bitmap4(Arrays.copyOf(r, significantWords(r)));
    }

    /** @return a new, mutable bitmap of the attributes in this bitmap but not in {@code other} */
    public Bitmap4 andNot(Bitmap4 other) {
        int[] r = words.clone();
        for (int i = 0; i < Math.min(r.length, other.words.length); i++) {
            r[i] &= ~other.words[i];
        }
        return new Bitmap4(Arrays.copyOf(r, significantWords(r)));
    }

    /** @return a new, mutable bitmap of the attributes in this bitmap or in {@code other} */
    public Bitmap4 or(Bitmap4 other) {
        int[] r = Arrays.copyOf(words, Math.max(words.length, other.words.length));
        for (int i = 0; i < other.words.length; i++) {
            r[i] |= other.words[i];
        }
        return new Bitmap4(r);
    }

    /** @return whether every attribute of {@code other} is in this bitmap */
    public boolean containsAll(Bitmap4 other) {
        return other.andNot(this).isEmpty();
    }

    public boolean isEmpty() {
        return words.length == 0;
    }

    /** @return how many attributes this bitmap holds */
    public int size() {
        int n = 0;
        for (int w : words) {
            n += Integer.bitCount(w);
        }
        return n;
    }

    /** @return the lowest attribute number at or above {@code from} in this bitmap, or -1 when there is none */
    public int nextSetBit(int from) {
        int a = Math.max(from, 0);
        int w = a >>> 5;
        if (w >= words.length) {
            return -1;
        }
        int bits = words[w] & (-1 << (a & 31));
        while (true) {
            if (bits != 0) {
                return (w << 5) + Integer.numberOfTrailingZeros(bits);
            }
            if (++w == words.length) {
                return -1;
            }
            bits = words[w];
        }
    }

    /** @return the attribute numbers in ascending order */
    public int[] toArray() {
        int[] r = new int[size()];
        int i = 0;
        for (int a = nextSetBit(0); a >= 0; a = nextSetBit(a + 1)) {
            r[i++] = a;
        }
        return r;
    }

    /** @return the number of words up to the last non-zero one: what {@link #encode} writes */
    public int wordCount() {
        return words.length;
    }

    /** @return wire word {@code index} (0 beyond {@link #wordCount()}) */
    public int word(int index) {
        return index < words.length ? words[index] : 0;
    }

    /** @return a mutable copy */
    public Bitmap4 copy() {
        return new Bitmap4(words.clone());
    }

    /** @return an unmodifiable copy of this bitmap (or this one, when it is already frozen) */
    public Bitmap4 freeze() {
        if (frozen) {
            return this;
        }
        Bitmap4 f = new Bitmap4(words.clone());
        f.frozen = true;
        return f;
    }

    public boolean isFrozen() {
        return frozen;
    }

    /** @return bytes {@link #encode} writes: the count word and the words */
    public int encodedSize() {
        return 4 + 4 * words.length;
    }

    /** Writes this bitmap as a {@code bitmap4}: the word count, then the words, without trailing zero words. */
    public void encode(XdrEncodingStream xdr) {
        xdr.xdrEncodeInt(words.length);
        for (int w : words) {
            xdr.xdrEncodeInt(w);
        }
    }

    /**
     * Reads a {@code bitmap4}.
     *
     * @return a new, mutable bitmap
     * @throws BadXdrException when it announces more than {@link Nfs4#DECODE_MAX_BITMAP_WORDS} words or the stream
     *                         ends before its words do
     */
    public static Bitmap4 decode(XdrDecodingStream xdr) throws BadXdrException {
        int count = decodeCount(xdr);
        return decodeWords(xdr, count);
    }

    /** Reads a word count, bounded by {@link Nfs4#DECODE_MAX_BITMAP_WORDS}. */
    static int decodeCount(XdrDecodingStream xdr) throws BadXdrException {
        long count = Nfs3Xdr.decodeUint(xdr);
        if (count > Nfs4.DECODE_MAX_BITMAP_WORDS) {
            throw new BadXdrException("bitmap4 of " + count + " words exceeds its bound of "
                    + Nfs4.DECODE_MAX_BITMAP_WORDS);
        }
        return (int) count;
    }

    /** Reads {@code count} words (already bounded). */
    static Bitmap4 decodeWords(XdrDecodingStream xdr, int count) throws BadXdrException {
        int[] w = new int[count];
        for (int i = 0; i < count; i++) {
            w[i] = Nfs3Xdr.decodeInt(xdr);
        }
        return new Bitmap4(Arrays.copyOf(w, significantWords(w)));
    }

    private static int significantWords(int[] w) {
        int n = w.length;
        while (n > 0 && w[n - 1] == 0) {
            n--;
        }
        return n;
    }

    private void checkMutable() {
        if (frozen) {
            throw new UnsupportedOperationException("this bitmap4 is frozen");
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Bitmap4 other && Arrays.equals(words, other.words);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(words);
    }

    /** The attribute numbers, e.g. {@code {1, 3, 75}}. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("{");
        for (int a = nextSetBit(0); a >= 0; a = nextSetBit(a + 1)) {
            if (sb.length() > 1) {
                sb.append(", ");
            }
            sb.append(a);
        }
        return sb.append('}').toString();
    }
}
