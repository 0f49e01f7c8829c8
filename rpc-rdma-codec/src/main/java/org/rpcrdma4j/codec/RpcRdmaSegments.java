package org.rpcrdma4j.codec;

import java.util.Arrays;

/**
 * Struct-of-arrays storage for the segments of one chunk list: parallel arrays of handle, length, offset and
 * (for the Read list only) position. The arrays start small and double on demand, never past {@code limit}, so a
 * header that has seen its largest message once stops allocating. Owned by one {@link RpcRdmaHeader}.
 */
final class RpcRdmaSegments {

    private static final int INITIAL_CAPACITY = 8;

    private final int limit;
    private final boolean withPositions;
    private int[] position;
    private int[] handle;
    private int[] length;
    private long[] offset;
    private int count;

    RpcRdmaSegments(int limit, boolean withPositions) {
        this.limit = limit;
        this.withPositions = withPositions;
        int capacity = Math.min(INITIAL_CAPACITY, limit);
        this.position = withPositions ? new int[capacity] : null;
        this.handle = new int[capacity];
        this.length = new int[capacity];
        this.offset = new long[capacity];
    }

    int limit() {
        return limit;
    }

    int count() {
        return count;
    }

    /** Current array length (tests use it to show that nothing grew). */
    int capacity() {
        return handle.length;
    }

    void clear() {
        count = 0;
    }

    /** Grows the arrays so that {@code needed} segments fit; the caller has checked {@code needed <= limit}. */
    void ensureCapacity(int needed) {
        int capacity = handle.length;
        if (needed <= capacity) {
            return;
        }
        int newCapacity = (int) Math.min(limit, Math.max(needed, 2L * capacity));
        if (withPositions) {
            position = Arrays.copyOf(position, newCapacity);
        }
        handle = Arrays.copyOf(handle, newCapacity);
        length = Arrays.copyOf(length, newCapacity);
        offset = Arrays.copyOf(offset, newCapacity);
    }

    /** Appends one segment; the caller has checked {@code count() < limit()}. */
    void add(int pos, int h, int len, long off) {
        int i = count;
        if (i == handle.length) {
            ensureCapacity(i + 1);
        }
        if (withPositions) {
            position[i] = pos;
        }
        handle[i] = h;
        length[i] = len;
        offset[i] = off;
        count = i + 1;
    }

    /**
     * Appends {@code n} segments laid out on the wire at offset {@code at} (handle, length, offset; 16 bytes each).
     * The caller has checked {@code n} against the limits and the bytes available.
     */
    void decode(RpcRdmaWire wire, int at, int n) {
        int start = count;
        ensureCapacity(start + n);
        if (n <= 3) {
            // Most chunks have one to three segments (one memory registration each). Straight-line code skips the
            // set-up of a compiled counted loop, which costs more than a segment (RpcRdmaCodecBenchmark).
            if (n > 0) {
                decodeOne(wire, at, start);
                if (n > 1) {
                    decodeOne(wire, at + RpcRdmaLayout.SEGMENT_LENGTH, start + 1);
                    if (n > 2) {
                        decodeOne(wire, at + 2 * RpcRdmaLayout.SEGMENT_LENGTH, start + 2);
                    }
                }
            }
        } else {
            int p = at;
            for (int i = start, end = start + n; i < end; i++) {
                decodeOne(wire, p, i);
                p += RpcRdmaLayout.SEGMENT_LENGTH;
            }
        }
        count = start + n;
    }

    private void decodeOne(RpcRdmaWire wire, int p, int i) {
        long handleAndLength = wire.getLong(p);
        handle[i] = (int) (handleAndLength >>> 32);
        length[i] = (int) handleAndLength;
        offset[i] = wire.getLong(p + 8);
    }

    /**
     * Replaces the content with {@code n} Read list entries laid out on the wire at offset {@code at}
     * (1, position, handle, length, offset; 24 bytes each) and records where each Read chunk (run of one position)
     * starts. Stops at the first entry whose position is not a multiple of 4 or is below the one before it, or
     * that makes its chunk longer than {@code maxPerChunk}. The caller has checked {@code n} against the limits and
     * the bytes, and sized {@code chunkStarts} for {@code n} chunks.
     *
     * @return the number of Read chunks, or {@code -1 - i} when entry {@code i} is refused (its position is
     *         stored, {@link #count()} is not updated)
     */
    int decodeReadEntries(RpcRdmaWire wire, int at, int n, int[] chunkStarts, int maxPerChunk) {
        ensureCapacity(n);
        int[] pos = position;
        int[] h = handle;
        int[] len = length;
        long[] off = offset;
        int p = at + RpcRdmaLayout.WORD;
        int chunks = 0;
        int chunkStart = 0;
        int previous = 0;
        for (int i = 0; i < n; i++) {
            int current = wire.getInt(p);
            pos[i] = current;
            if (i == 0 || current != previous) {
                if ((current & 3) != 0 || i > 0 && Integer.compareUnsigned(current, previous) < 0) {
                    return -1 - i;
                }
                chunkStart = i;
                chunkStarts[chunks++] = i;
            } else if (i - chunkStart >= maxPerChunk) {
                return -1 - i;
            }
            long handleAndLength = wire.getLong(p + 4);
            h[i] = (int) (handleAndLength >>> 32);
            len[i] = (int) handleAndLength;
            off[i] = wire.getLong(p + 12);
            previous = current;
            p += RpcRdmaLayout.READ_LIST_ENTRY_LENGTH;
        }
        count = n;
        return chunks;
    }

    /** Writes segments {@code [from, to)} to the wire at offset {@code at}; returns the offset after them. */
    int encode(RpcRdmaWire wire, int at, int from, int to) {
        int n = to - from;
        if (n <= 3) {
            // straight-line for the common short chunk, as in decode
            if (n > 0) {
                encodeOne(wire, at, from);
                if (n > 1) {
                    encodeOne(wire, at + RpcRdmaLayout.SEGMENT_LENGTH, from + 1);
                    if (n > 2) {
                        encodeOne(wire, at + 2 * RpcRdmaLayout.SEGMENT_LENGTH, from + 2);
                    }
                }
            }
            return at + n * RpcRdmaLayout.SEGMENT_LENGTH;
        }
        int p = at;
        for (int i = from; i < to; i++) {
            encodeOne(wire, p, i);
            p += RpcRdmaLayout.SEGMENT_LENGTH;
        }
        return p;
    }

    private void encodeOne(RpcRdmaWire wire, int p, int i) {
        wire.putLong(p, pair(handle[i], length[i]));
        wire.putLong(p + 8, offset[i]);
    }

    /** Writes every read segment as a Read list entry (1, position, segment) at {@code at}; returns the offset after. */
    int encodeReadEntries(RpcRdmaWire wire, int at) {
        int[] pos = position;
        int[] h = handle;
        int[] len = length;
        long[] off = offset;
        int p = at;
        for (int i = 0, n = count; i < n; i++) {
            wire.putLong(p, pair(RpcRdmaLayout.PRESENT, pos[i]));
            wire.putLong(p + 8, pair(h[i], len[i]));
            wire.putLong(p + 16, off[i]);
            p += RpcRdmaLayout.READ_LIST_ENTRY_LENGTH;
        }
        return p;
    }

    /** Two XDR words as one big-endian long, {@code first} at the lower address; one store instead of two. */
    private static long pair(int first, int second) {
        return (long) first << 32 | second & 0xFFFFFFFFL;
    }

    int position(int i) {
        return position[i];
    }

    int handle(int i) {
        return handle[i];
    }

    int length(int i) {
        return length[i];
    }

    long offset(int i) {
        return offset[i];
    }

    void setLength(int i, int len) {
        length[i] = len;
    }

    /** @return the sum of the unsigned lengths of segments {@code [from, to)} */
    long sumLengths(int from, int to) {
        long sum = 0;
        for (int i = from; i < to; i++) {
            sum += Integer.toUnsignedLong(length[i]);
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
            long capacity = Integer.toUnsignedLong(length[i]);
            long used = Math.min(capacity, remaining);
            length[i] = (int) used;
            remaining -= used;
        }
    }

    /** Replaces the content with a copy of {@code other}'s; the caller has checked {@code other.count() <= limit}. */
    void copyFrom(RpcRdmaSegments other) {
        int n = other.count;
        ensureCapacity(n);
        if (withPositions && other.withPositions) {
            System.arraycopy(other.position, 0, position, 0, n);
        }
        System.arraycopy(other.handle, 0, handle, 0, n);
        System.arraycopy(other.length, 0, length, 0, n);
        System.arraycopy(other.offset, 0, offset, 0, n);
        count = n;
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
            long h = Integer.toUnsignedLong(handle[i]);
            if (result == NO_HANDLE) {
                result = h;
            } else if (result != h) {
                result = MANY_HANDLES;
            }
        }
        return result;
    }

    boolean contentEquals(RpcRdmaSegments other) {
        if (count != other.count) {
            return false;
        }
        for (int i = 0; i < count; i++) {
            if (handle[i] != other.handle[i] || length[i] != other.length[i] || offset[i] != other.offset[i]
                    || withPositions && position[i] != other.position[i]) {
                return false;
            }
        }
        return true;
    }

    void appendTo(StringBuilder sb, int from, int to) {
        sb.append('[');
        for (int i = from; i < to; i++) {
            if (i > from) {
                sb.append(", ");
            }
            if (withPositions) {
                sb.append("pos=").append(Integer.toUnsignedString(position[i])).append(' ');
            }
            sb.append("h=0x").append(Integer.toHexString(handle[i]))
                    .append(" len=").append(Integer.toUnsignedString(length[i]))
                    .append(" off=0x").append(Long.toHexString(offset[i]));
        }
        sb.append(']');
    }
}
