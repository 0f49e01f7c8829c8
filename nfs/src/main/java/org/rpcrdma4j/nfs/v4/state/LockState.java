package org.rpcrdma4j.nfs.v4.state;

import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.v4.LockRanges;

/**
 * One lock owner's byte-range locks on one file, under one lock stateid (RFC 8881 sections 9.1.1, 8.2). Guarded by
 * the table's lock.
 */
final class LockState {
    final int number;
    final long clientId;
    final Bytes owner;
    final FileHandle file;
    /** The open the lock owner's first LOCK came through: its CLOSE ends this state. */
    final OpenState open;
    final LockRanges ranges = new LockRanges();
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
}
