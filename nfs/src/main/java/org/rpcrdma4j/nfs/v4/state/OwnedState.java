package org.rpcrdma4j.nfs.v4.state;

import org.rpcrdma4j.nfs.FileHandle;

/**
 * State of one owner (an open owner, a lock owner) of a client on one file, named by a stateid: its number in the
 * table, and a seqid that counts its changes. Guarded by the table's lock.
 */
abstract class OwnedState {
    final int number;
    final long clientId;
    final Bytes owner;
    final FileHandle file;
    int seqid = 1;

    OwnedState(int number, long clientId, Bytes owner, FileHandle file) {
        this.number = number;
        this.clientId = clientId;
        this.owner = owner;
        this.file = file;
    }

    /** The stateid: other = boot id, low 32 bits of the client ID, number. */
    final Stateid stateid() {
        return Stateid.of(seqid, (int) (clientId >>> 32), (int) clientId, number);
    }

    /** Advances the seqid, which goes from 0xffffffff to 1: 0 is reserved (RFC 8881 section 8.2.2). */
    final void bump() {
        seqid = seqid == -1 ? 1 : seqid + 1;
    }
}
