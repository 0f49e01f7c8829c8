package org.rpcrdma4j.codec;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The segments of one chunk list, kept in their wire form: one byte array holding, for the Read list, whole Read
 * list entries (discriminator 1, position, handle, length, offset; 24 bytes each) and for the Write list and the
 * Reply chunk, plain segments (handle, length, offset; 16 bytes each). Decoding and encoding are then bulk copies
 * between this array and the header's scratch space, and each accessor is one big-endian load.
 * <p>
 * The array starts small and doubles on demand, never past {@code limit} segments, so a header that has seen its
 * largest message once stops allocating. Owned by one {@link RpcRdmaHeader}.
 */
final class RpcRdmaSegments {

    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private static final int INITIAL_CAPACITY = 8;

    private final int limit;
    private final boolean withPositions;
    /** Bytes per segment: a Read list entry or a plain segment. */
    private final int stride;
    /** Offset of the handle inside a segment's bytes (after the discriminator and position of a Read entry). */
    private final int handleAt;
    private byte[] bytes;
    private int count;

    RpcRdmaSegments(int limit, boolean withPositions) {
        this.limit = limit;
        this.withPositions = withPositions;
        this.stride = withPositions ? RpcRdmaLayout.READ_LIST_ENTRY_LENGTH : RpcRdmaLayout.SEGMENT_LENGTH;
        this.handleAt = stride - RpcRdmaLayout.SEGMENT_LENGTH;
        this.bytes = new byte[Math.min(INITIAL_CAPACITY, limit) * stride];
    }

    int limit() {
        return limit;
    }

    int count() {
        return count;
    }

    /** Current capacity in segments (tests use it to show that nothing grew). */
    int capacity() {
        return bytes.length / stride;
    }

    /** @return bytes per segment on the wire: 24 for the Read list (whole entries), 16 otherwise */
    int stride() {
        return stride;
    }

    void clear() {
        count = 0;
    }

    /** Grows the array so that {@code needed} segments fit; the caller has checked {@code needed <= limit}. */
    void ensureCapacity(int needed) {
        int capacity = capacity();
        if (needed <= capacity) {
            return;
        }
        int newCapacity = (int) Math.min(limit, Math.max(needed, 2L * capacity));
        bytes = Arrays.copyOf(bytes, newCapacity * stride);
    }

    /** Appends one segment; the caller has checked {@code count() < limit()}. */
    void add(int pos, int h, int len, long off) {
        int i = count;
        ensureCapacity(i + 1);
        int p = i * stride;
        if (withPositions) {
            LONG.set(bytes, p, pair(RpcRdmaLayout.PRESENT, pos));
        }
        LONG.set(bytes, p + handleAt, pair(h, len));
        LONG.set(bytes, p + handleAt + 8, off);
        count = i + 1;
    }

    /**
     * Appends {@code n} segments laid out on the wire at offset {@code at} of {@code src} ({@code n * stride()}
     * bytes). The caller has checked {@code n} against the limits and the bytes available.
     */
    void append(byte[] src, int at, int n) {
        int start = count;
        ensureCapacity(start + n);
        System.arraycopy(src, at, bytes, start * stride, n * stride);
        count = start + n;
    }

    /**
     * Replaces the content with {@code n} Read list entries laid out on the wire at offset {@code at} of
     * {@code wire} (1, position, handle, length, offset; 24 bytes each) and records where each Read chunk (run of
     * one position) starts. Stops at the first entry whose position is not a multiple of 4 or is below the one
     * before it, or that makes its chunk longer than {@code maxPerChunk}. The caller has checked {@code n} against
     * the limits and the bytes (the discriminators are all 1), and sized {@code chunkStarts} for {@code n} chunks.
     *
     * @return the number of Read chunks, or {@code -1 - i} when entry {@code i} is refused (nothing is stored)
     */
    int decodeReadEntries(byte[] wire, int at, int n, int[] chunkStarts, int maxPerChunk) {
        int p = at + RpcRdmaLayout.WORD;
        int chunks = 0;
        int chunkStart = 0;
        int previous = 0;
        for (int i = 0; i < n; i++) {
            int current = (int) INT.get(wire, p);
            if (i == 0 || current != previous) {
                if ((current & 3) != 0 || i > 0 && Integer.compareUnsigned(current, previous) < 0) {
                    return -1 - i;
                }
                chunkStart = i;
                chunkStarts[chunks++] = i;
            } else if (i - chunkStart >= maxPerChunk) {
                return -1 - i;
            }
            previous = current;
            p += RpcRdmaLayout.READ_LIST_ENTRY_LENGTH;
        }
        count = 0;
        append(wire, at, n);
        return chunks;
    }

    /**
     * Writes segments {@code [from, to)} in their wire form to {@code dst} at offset {@code at}; returns the offset
     * after them.
     */
    int encode(byte[] dst, int at, int from, int to) {
        int n = (to - from) * stride;
        System.arraycopy(bytes, from * stride, dst, at, n);
        return at + n;
    }

    /** Two XDR words as one big-endian long, {@code first} at the lower address; one store instead of two. */
    private static long pair(int first, int second) {
        return (long) first << 32 | second & 0xFFFFFFFFL;
    }

    int position(int i) {
        return (int) INT.get(bytes, i * stride + RpcRdmaLayout.WORD);
    }

    int handle(int i) {
        return (int) INT.get(bytes, i * stride + handleAt);
    }

    int length(int i) {
        return (int) INT.get(bytes, i * stride + handleAt + RpcRdmaLayout.WORD);
    }

    long offset(int i) {
        return (long) LONG.get(bytes, i * stride + handleAt + 8);
    }

    void setLength(int i, int len) {
        INT.set(bytes, i * stride + handleAt + RpcRdmaLayout.WORD, len);
    }

    /** @return the sum of the unsigned lengths of segments {@code [from, to)} */
    long sumLengths(int from, int to) {
        long sum = 0;
        for (int i = from; i < to; i++) {
            sum += Integer.toUnsignedLong(length(i));
        }
        return sum;
    }

    /**
     * Sets the lengths of segments {@code [from, to)} to what a responder wrote: {@code bytes} spread over the
     * segments in order, each filled up to its present length (its capacity), the rest 0.
     */
    void spread(int from, int to, long bytes) {
        long remaining = bytes;
        for (int i = from; i < to; i++) {
            long capacity = Integer.toUnsignedLong(length(i));
            long used = Math.min(capacity, remaining);
            setLength(i, (int) used);
            remaining -= used;
        }
    }

    /** Replaces the content with a copy of {@code other}'s; the caller has checked {@code other.count() <= limit}. */
    void copyFrom(RpcRdmaSegments other) {
        if (other.stride != stride) {
            throw new IllegalArgumentException("a Read list and a list of plain segments do not copy into each other");
        }
        count = 0;
        append(other.bytes, 0, other.count);
    }

    /** {@link #foldSoleHandle} state: no handle seen yet. */
    static final long NO_HANDLE = -2;
    /** {@link #foldSoleHandle} state: two distinct handles seen. */
    static final long MANY_HANDLES = -1;

    /**
     * Folds this list's handles into {@code sole}: {@link #NO_HANDLE} before any handle, the one handle (unsigned)
     * while all handles agree, {@link #MANY_HANDLES} once two differ.
     */
    long foldSoleHandle(long sole) {
        long result = sole;
        for (int i = 0; i < count && result != MANY_HANDLES; i++) {
            long h = Integer.toUnsignedLong(handle(i));
            if (result == NO_HANDLE) {
                result = h;
            } else if (result != h) {
                result = MANY_HANDLES;
            }
        }
        return result;
    }

    boolean contentEquals(RpcRdmaSegments other) {
        // a Read entry's first word is always 1, so equal bytes mean equal segments
        return count == other.count && stride == other.stride
                && Arrays.equals(bytes, 0, count * stride, other.bytes, 0, count * stride);
    }

    void appendTo(StringBuilder sb, int from, int to) {
        sb.append('[');
        for (int i = from; i < to; i++) {
            if (i > from) {
                sb.append(", ");
            }
            if (withPositions) {
                sb.append("pos=").append(Integer.toUnsignedString(position(i))).append(' ');
            }
            sb.append("h=0x").append(Integer.toHexString(handle(i)))
                    .append(" len=").append(Integer.toUnsignedString(length(i)))
                    .append(" off=0x").append(Long.toHexString(offset(i)));
        }
        sb.append(']');
    }
}
