package org.rpcrdma4j.nfs.v4.state;

import java.util.ArrayList;
import java.util.List;

import org.rpcrdma4j.nfs.FileHandle;

/**
 * One lock owner's byte-range locks on one file, under one lock stateid (RFC 8881 sections 9.1.1, 8.2): the ranges it
 * holds, each READ or WRITE, sorted by their first byte and never overlapping. Ranges are unsigned: {@code last} is
 * the range's last byte, all ones for a lock to the end of any file. Guarded by the table's lock.
 */
final class LockState {
    /** A held range: bytes {@code first} to {@code last} (unsigned, inclusive) locked as {@code type}. */
    record Range(long first, long last, int type) {
        boolean overlaps(long otherFirst, long otherLast) {
            return Long.compareUnsigned(first, otherLast) <= 0 && Long.compareUnsigned(otherFirst, last) <= 0;
        }
    }

    final int number;
    final long clientId;
    final Bytes owner;
    final FileHandle file;
    /** The open the lock owner's first LOCK came through: its CLOSE ends this state. */
    final OpenState open;
    final List<Range> ranges = new ArrayList<>();
    int seqid = 1;

    LockState(int number, long clientId, Bytes owner, FileHandle file, OpenState open) {
        this.number = number;
        this.clientId = clientId;
        this.owner = owner;
        this.file = file;
        this.open = open;
    }

    /** The stateid: other = boot id, low 32 bits of the client ID, number (whose top bit marks a lock stateid). */
    Stateid stateid() {
        return Stateid.of(seqid, (int) (clientId >>> 32), (int) clientId, number);
    }

    /** Advances the seqid, which goes from 0xffffffff to 1: 0 is reserved. */
    void bump() {
        seqid = seqid == -1 ? 1 : seqid + 1;
    }

    /** Whether this owner is {@code clientId}'s {@code owner}. */
    boolean ownedBy(long otherClient, Bytes otherOwner) {
        return clientId == otherClient && owner.equals(otherOwner);
    }

    /** The first range that conflicts with a lock of {@code type} over {@code first..last}, or null. */
    Range conflict(int type, long first, long last) {
        for (Range r : ranges) {
            if ((type == LockStates.WRITE_LT || r.type == LockStates.WRITE_LT) && r.overlaps(first, last)) {
                return r;
            }
        }
        return null;
    }

    /** Takes {@code first..last} out of the held ranges, cutting those it overlaps in part. */
    void remove(long first, long last) {
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

    /**
     * Locks {@code first..last} as {@code type}: what the owner held there becomes that type (POSIX semantics: an
     * upgrade or a downgrade in place), and neighbouring ranges of the same type are joined.
     */
    void add(long first, long last, int type) {
        remove(first, last);
        int at = 0;
        while (at < ranges.size() && Long.compareUnsigned(ranges.get(at).first, first) < 0) {
            at++;
        }
        ranges.add(at, new Range(first, last, type));
        joinAround(at);
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
}
