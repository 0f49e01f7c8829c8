package org.rpcrdma4j.nfs.client.v4;

import org.rpcrdma4j.nfs.v4.Nfs4Status;

/** A byte-range lock was refused (NFS4ERR_DENIED): another owner holds a conflicting lock, named here. */
public final class LockDeniedException extends Nfs4StatusException {
    private static final long serialVersionUID = 1L;

    private final transient LockConflict conflict;

    LockDeniedException(int operation, LockConflict conflict) {
        super(Nfs4Status.NFS4ERR_DENIED, operation, "in the way: " + conflict);
        this.conflict = conflict;
    }

    /** The lock in the way. */
    public LockConflict conflict() {
        return conflict;
    }
}
