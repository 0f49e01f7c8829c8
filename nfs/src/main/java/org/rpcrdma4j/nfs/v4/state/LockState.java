package org.rpcrdma4j.nfs.v4.state;

import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.v4.LockRanges;

/**
 * One lock owner's byte-range locks on one file, under one lock stateid (RFC 8881 sections 9.1.1, 8.2), whose number
 * has {@link LockStates#NUMBER_BIT} set. Guarded by the table's lock.
 */
final class LockState extends OwnedState {
    /** The open the lock owner's latest LOCK for a new owner came through: its CLOSE ends this state. */
    OpenState open;
    final LockRanges ranges = new LockRanges();

    LockState(int number, long clientId, Bytes owner, FileHandle file, OpenState open) {
        super(number, clientId, owner, file);
        this.open = open;
    }

    /** Whether this owner is {@code clientId}'s {@code owner}. */
    boolean ownedBy(long otherClient, Bytes otherOwner) {
        return clientId == otherClient && owner.equals(otherOwner);
    }
}
