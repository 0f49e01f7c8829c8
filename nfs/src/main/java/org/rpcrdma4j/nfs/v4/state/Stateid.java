package org.rpcrdma4j.nfs.v4.state;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;

/**
 * A {@code stateid4} (RFC 8881 section 8.2): a 32-bit {@code seqid} that counts the changes of one piece of state,
 * and 12 opaque {@code other} bytes that name it. Immutable; compares over both fields.
 *
 * <p>The server's own stateids carry in {@code other} the boot id of the {@link ClientTable} that issued them
 * (bytes 0-3), the low 32 bits of the client ID (bytes 4-7) and a number unique in that table (bytes 8-11), so a
 * stateid from an earlier server instance is recognised as stale and one of a vanished client can still be placed.
 * Four values are special (section 8.2.3) and name no state at all: {@link #ANONYMOUS}, {@link #READ_BYPASS},
 * {@link #CURRENT} and {@link #INVALID}.
 */
public record Stateid(int seqid, byte[] other) {
    /** Length of {@code other}. */
    public static final int OTHER_SIZE = 12;

    /** All zero: I/O without an open, subject to share reservations. */
    public static final Stateid ANONYMOUS = new Stateid(0, new byte[OTHER_SIZE]);
    /** All ones: a READ that bypasses share reservations (and, on WRITE, the same as {@link #ANONYMOUS}). */
    public static final Stateid READ_BYPASS = new Stateid(-1, filled((byte) 0xff));
    /** seqid 1, other zero: "the current stateid" of a COMPOUND, which the COMPOUND server substitutes. */
    public static final Stateid CURRENT = new Stateid(1, new byte[OTHER_SIZE]);
    /** seqid 0xffffffff, other zero: never valid; what CLOSE returns in NFSv4.1 (RFC 8881 section 18.2.4). */
    public static final Stateid INVALID = new Stateid(-1, new byte[OTHER_SIZE]);

    /** Copies {@code other}, which must have {@value #OTHER_SIZE} bytes. */
    public Stateid {
        Objects.requireNonNull(other, "other");
        if (other.length != OTHER_SIZE) {
            throw new IllegalArgumentException("a stateid's other field has " + OTHER_SIZE + " bytes, got "
                    + other.length);
        }
        other = other.clone();
    }

    /** A stateid of {@code seqid} whose other field is the three big-endian words given. */
    static Stateid of(int seqid, int word0, int word1, int word2) {
        byte[] o = new byte[OTHER_SIZE];
        putInt(o, 0, word0);
        putInt(o, 4, word1);
        putInt(o, 8, word2);
        return new Stateid(seqid, o);
    }

    /** A copy of the other field. */
    @Override
    public byte[] other() {
        return other.clone();
    }

    /** The big-endian 32-bit word {@code index} (0, 1 or 2) of the other field. */
    int otherWord(int index) {
        int i = index * 4;
        return (other[i] & 0xff) << 24 | (other[i + 1] & 0xff) << 16 | (other[i + 2] & 0xff) << 8
                | (other[i + 3] & 0xff);
    }

    /** Whether the other field is all zero or all ones: one of the special stateids, or a malformed one. */
    public boolean isSpecial() {
        return allBytes((byte) 0) || allBytes((byte) 0xff);
    }

    public boolean isAnonymous() {
        return seqid == 0 && allBytes((byte) 0);
    }

    public boolean isReadBypass() {
        return seqid == -1 && allBytes((byte) 0xff);
    }

    public boolean isCurrent() {
        return seqid == 1 && allBytes((byte) 0);
    }

    public boolean isInvalid() {
        return seqid == -1 && allBytes((byte) 0);
    }

    private boolean allBytes(byte b) {
        for (byte x : other) {
            if (x != b) {
                return false;
            }
        }
        return true;
    }

    private static byte[] filled(byte b) {
        byte[] o = new byte[OTHER_SIZE];
        Arrays.fill(o, b);
        return o;
    }

    private static void putInt(byte[] b, int at, int v) {
        b[at] = (byte) (v >>> 24);
        b[at + 1] = (byte) (v >>> 16);
        b[at + 2] = (byte) (v >>> 8);
        b[at + 3] = (byte) v;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Stateid s && s.seqid == seqid && Arrays.equals(s.other, other);
    }

    @Override
    public int hashCode() {
        return 31 * seqid + Arrays.hashCode(other);
    }

    @Override
    public String toString() {
        return "stateid(" + Integer.toUnsignedString(seqid) + ", " + HexFormat.of().formatHex(other) + ")";
    }
}
