package org.rpcrdma4j.nfs.v4.state;

import org.rpcrdma4j.nfs.FileHandle;

/** A read delegation of one client on one file (RFC 8881 section 10.4). Guarded by the table's lock. */
final class DelegationState extends OwnedState {
    /** Delegations have no owner of their own: one per client and file. */
    static final Bytes NO_OWNER = new Bytes(new byte[0]);

    /** The OPEN that granted it, for the recall's referring call list; null when not known. */
    final ReferringCall grantedBy;
    /** When its recall was asked for (the table's clock); meaningful once {@link #recalled}. */
    long recalledAt;
    boolean recalled;

    DelegationState(int number, long clientId, FileHandle file, ReferringCall grantedBy) {
        super(number, clientId, NO_OWNER, file);
        this.grantedBy = grantedBy;
    }
}
