package org.rpcrdma4j.nfs.v4.state;

import org.rpcrdma4j.nfs.FileHandle;

/** One open: an open owner of a client on a file, with its share reservation. Guarded by the table's lock. */
final class OpenState {
    final int number;
    final long clientId;
    final Bytes owner;
    final FileHandle file;
    int access;
    int deny;
    int seqid = 1;

    OpenState(int number, long clientId, Bytes owner, FileHandle file, int access, int deny) {
        this.number = number;
        this.clientId = clientId;
        this.owner = owner;
        this.file = file;
        this.access = access;
        this.deny = deny;
    }

    /** The stateid: other = boot id, low 32 bits of the client ID, number. */
    Stateid stateid() {
        return Stateid.of(seqid, (int) (clientId >>> 32), (int) clientId, number);
    }

    /** Advances the seqid, which goes from 0xffffffff to 1: 0 is reserved (RFC 8881 section 8.2.2). */
    void bump() {
        seqid = seqid == -1 ? 1 : seqid + 1;
    }

    /** Whether another owner's {@code access} and {@code deny} conflict with this open's reservation. */
    boolean conflicts(int otherAccess, int otherDeny) {
        return (otherDeny & access) != 0 || (otherAccess & deny) != 0;
    }
}
