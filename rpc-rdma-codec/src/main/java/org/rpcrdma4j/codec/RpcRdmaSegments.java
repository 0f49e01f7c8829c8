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

    /** Drops the segments from {@code newCount} on. */
    void truncate(int newCount) {
        count = newCount;
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
