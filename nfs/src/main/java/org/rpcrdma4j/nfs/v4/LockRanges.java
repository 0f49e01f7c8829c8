package org.rpcrdma4j.nfs.v4;

import java.util.ArrayList;
import java.util.List;

/**
 * The byte ranges one lock owner holds locked on one file (RFC 8881 section 9), each READ or WRITE, sorted by their
 * first byte and never overlapping: what a server keeps under a lock stateid, and what a client keeps to reclaim its
 * locks after a server restart. Locking bytes already held changes their type (POSIX semantics: an upgrade or a
 * downgrade in place); neighbouring ranges of one type are joined. Offsets are unsigned; a range's {@code last} byte
 * is all ones for a lock to the end of any file. Not thread-safe: its owner guards it.
 */
public final class LockRanges {
    /** {@code READ_LT}; {@code READW_LT} (3) is the same lock asked for by a waiter. */
    public static final int READ = 1;
    /** {@code WRITE_LT}; {@code WRITEW_LT} (4) is the same lock asked for by a waiter. */
    public static final int WRITE = 2;
    /** A {@code length4} of all ones: to the end of any file. */
    public static final long TO_END = -1L;

    /** Bytes {@code first} to {@code last} (unsigned, inclusive) locked as {@code type}. */
    public record Range(long first, long last, int type) {
        public boolean overlaps(long otherFirst, long otherLast) {
            return Long.compareUnsigned(first, otherLast) <= 0 && Long.compareUnsigned(otherFirst, last) <= 0;
        }

        /** The {@code length4} of the range: {@link #TO_END} when it reaches the last byte offset. */
        public long length() {
            return last == -1L ? TO_END : last - first + 1;
        }
    }

    private final List<Range> ranges = new ArrayList<>();

    /** The ranges held, in order. */
    public List<Range> ranges() {
        return List.copyOf(ranges);
    }

    public int size() {
        return ranges.size();
    }

    public boolean isEmpty() {
        return ranges.isEmpty();
    }

    public void clear() {
        ranges.clear();
    }

    /** Puts back what {@link #ranges()} returned before. */
    public void restore(List<Range> saved) {
        ranges.clear();
        ranges.addAll(saved);
    }

    /** The first held range that conflicts with another owner's lock of {@code type} over {@code first..last}. */
    public Range conflict(int type, long first, long last) {
        for (Range r : ranges) {
            if ((type == WRITE || r.type == WRITE) && r.overlaps(first, last)) {
                return r;
            }
        }
        return null;
    }

    /** Locks {@code first..last} as {@code type} ({@link #READ} or {@link #WRITE}). */
    public void add(long first, long last, int type) {
        remove(first, last);
        int at = 0;
        while (at < ranges.size() && Long.compareUnsigned(ranges.get(at).first, first) < 0) {
            at++;
        }
        ranges.add(at, new Range(first, last, type));
        joinAround(at);
    }

    /** Takes {@code first..last} out of the held ranges, cutting those it overlaps in part. */
    public void remove(long first, long last) {
        List<Range> kept = new ArrayList<>(ranges.size() + 1);
        for (Range r : ranges) {
            if (!r.overlaps(first, last)) {
                kept.add(r);
                continue;
            }
            if (Long.compareUnsigned(r.first, first) < 0) {
                kept.add(new Range(r.first, first - 1, r.type));
            }
            if (Long.compareUnsigned(r.last, last) > 0) {
                kept.add(new Range(last + 1, r.last, r.type));
            }
        }
        ranges.clear();
        ranges.addAll(kept);
    }

    private void joinAround(int at) {
        Range r = ranges.get(at);
        if (at + 1 < ranges.size()) {
            Range next = ranges.get(at + 1);
            if (next.type == r.type && r.last != -1L && next.first == r.last + 1) {
                r = new Range(r.first, next.last, r.type);
                ranges.set(at, r);
                ranges.remove(at + 1);
            }
        }
        if (at > 0) {
            Range prev = ranges.get(at - 1);
            if (prev.type == r.type && prev.last != -1L && prev.last + 1 == r.first) {
                ranges.set(at - 1, new Range(prev.first, r.last, r.type));
                ranges.remove(at);
            }
        }
    }

    /**
     * The last byte of {@code offset} and {@code length} (unsigned); all ones for {@link #TO_END}.
     *
     * @throws Nfs4Exception NFS4ERR_INVAL for a length of zero, or, for a length other than all ones, an offset and
     *                       length whose sum exceeds 2^64 - 1 (RFC 8881 section 18.10.3; the last byte offset is
     *                       locked only to the end)
     */
    public static long last(long offset, long length) throws Nfs4Exception {
        if (length == 0) {
            throw new Nfs4Exception(Nfs4Status.NFS4ERR_INVAL, "a lock of length 0");
        }
        if (length == TO_END) {
            return -1L;
        }
        if (Long.compareUnsigned(length, -1L - offset) > 0) {
            throw new Nfs4Exception(Nfs4Status.NFS4ERR_INVAL, "offset " + Long.toUnsignedString(offset)
                    + " + length " + Long.toUnsignedString(length) + " is past the last byte offset");
        }
        return offset + length - 1;
    }

    /** "bytes 0-99", "bytes 100-end". */
    public static String text(long first, long last) {
        return "bytes " + Long.toUnsignedString(first) + "-" + (last == -1L ? "end" : Long.toUnsignedString(last));
    }
}
