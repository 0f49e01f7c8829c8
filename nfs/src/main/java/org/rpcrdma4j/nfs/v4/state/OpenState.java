package org.rpcrdma4j.nfs.v4.state;

import org.rpcrdma4j.nfs.FileHandle;

/** One open: an open owner of a client on a file, with its share reservation. Guarded by the table's lock. */
final class OpenState extends OwnedState {
    int access;
    int deny;

    OpenState(int number, long clientId, Bytes owner, FileHandle file, int access, int deny) {
        super(number, clientId, owner, file);
        this.access = access;
        this.deny = deny;
    }

    /** Whether another owner's {@code access} and {@code deny} conflict with this open's reservation. */
    boolean conflicts(int otherAccess, int otherDeny) {
        return (otherDeny & access) != 0 || (otherAccess & deny) != 0;
    }
}
