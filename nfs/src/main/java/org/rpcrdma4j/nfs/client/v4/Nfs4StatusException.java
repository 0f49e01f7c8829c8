package org.rpcrdma4j.nfs.client.v4;

import org.rpcrdma4j.nfs.Nfs3Status;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.nfs.v4.Nfs4Exception;
import org.rpcrdma4j.nfs.v4.Nfs4Status;

/**
 * An NFSv4 operation of a COMPOUND failed: the server answered with an {@code nfsstat4} other than NFS4_OK.
 * <p>
 * It is an {@link NfsException}, so code written against the NFSv3 client catches it the same way: {@link #status()}
 * is the {@link Nfs3Status} with the same number when NFSv3 has one (NOENT, EXIST, NOTDIR, ISDIR, ACCES, STALE,
 * NOTEMPTY, BADHANDLE, NOTSUPP, BADTYPE, SERVERFAULT, DELAY as JUKEBOX, ...; the values below 10009 are shared), else
 * {@link Nfs3Status#UNKNOWN}. {@link #nfs4Status()} is the exact NFSv4 status and {@link #operation()} the operation
 * that failed; the cause is an {@link Nfs4Exception} with the same status.
 */
public class Nfs4StatusException extends NfsException {
    private static final long serialVersionUID = 1L;

    private final int nfs4Status;
    private final int operation;

    public Nfs4StatusException(int nfs4Status, int operation, String message) {
        super(nfs3Equivalent(nfs4Status), Nfs4Status.name(nfs4Status) + " from " + Nfs4Ops.name(operation)
                + (message == null || message.isEmpty() ? "" : ": " + message),
                new Nfs4Exception(nfs4Status, Nfs4Ops.name(operation)));
        this.nfs4Status = nfs4Status;
        this.operation = operation;
    }

    /** The {@code nfsstat4} the server answered. */
    public int nfs4Status() {
        return nfs4Status;
    }

    /** The operation number of the operation that failed (0 when the COMPOUND failed as a whole). */
    public int operation() {
        return operation;
    }

    /** The NFSv3 status with the same wire value, or {@link Nfs3Status#UNKNOWN} when NFSv3 has none. */
    static Nfs3Status nfs3Equivalent(int nfs4Status) {
        Nfs3Status s = Nfs3Status.fromWire(nfs4Status);
        return s == Nfs3Status.NFS3_OK ? Nfs3Status.UNKNOWN : s;
    }
}
