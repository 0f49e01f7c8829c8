package org.rpcrdma4j.nfs.client.v4;

import org.rpcrdma4j.nfs.v4.LockRanges;

/** The two kinds of byte-range lock (RFC 8881 section 9): shared for reading, exclusive for writing. */
public enum LockType {
    /** Shared: other owners may hold READ locks on the same bytes, none a WRITE lock. */
    READ(LockRanges.READ),
    /** Exclusive: no other owner may hold a lock on the same bytes. */
    WRITE(LockRanges.WRITE);

    private final int wire;

    LockType(int wire) {
        this.wire = wire;
    }

    /** The {@code nfs_lock_type4} of a request that does not wait ({@code READ_LT}, {@code WRITE_LT}). */
    int wire() {
        return wire;
    }

    /** The {@code nfs_lock_type4} of a request whose client will wait ({@code READW_LT}, {@code WRITEW_LT}). */
    int waitingWire() {
        return wire + 2;
    }

    static LockType fromWire(int type) {
        return type == LockRanges.WRITE || type == 4 ? WRITE : READ;
    }
}
