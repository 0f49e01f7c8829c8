package org.rpcrdma4j.nfs.xdr;

import org.dcache.oncrpc4j.xdr.XdrAble;
import org.rpcrdma4j.nfs.Nfs3Status;
import org.rpcrdma4j.nfs.NfsException;

/**
 * The common part of every NFSv3 result: a union switched on {@code nfsstat3}. Subclasses are mutable carriers with
 * public fields in the style of rpcgen, encoded by a server and decoded by a client; each arm's fields are valid only
 * for that arm.
 */
public abstract class Nfs3Result implements XdrAble {
    /** The {@code nfsstat3} wire value. */
    public int status;

    public boolean isOk() {
        return status == Nfs3Status.NFS3_OK.wireValue();
    }

    public Nfs3Status statusEnum() {
        return Nfs3Status.fromWire(status);
    }

    /** Sets the status from an error the operation ended with. */
    public void fail(NfsException e) {
        status = e.wireValue();
    }

    /** Throws the {@link NfsException} for a status other than OK. */
    public void throwIfFailed(String operation) throws NfsException {
        if (!isOk()) {
            throw NfsException.fromWire(status, operation);
        }
    }
}
