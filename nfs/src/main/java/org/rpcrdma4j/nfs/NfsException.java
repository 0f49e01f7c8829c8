package org.rpcrdma4j.nfs;

import java.io.IOException;

/**
 * An NFS operation ended with a status other than {@code NFS3_OK}. The server answered; the status names why
 * ({@link #status()}). Used on both sides: a {@link org.rpcrdma4j.nfs.vfs.Vfs} throws it to choose the status the
 * server sends, and the client throws it when a reply carries an error status.
 */
public class NfsException extends IOException {
    private static final long serialVersionUID = 1L;

    private final Nfs3Status status;
    private final int wireValue;

    public NfsException(Nfs3Status status, String message) {
        this(status, status.wireValue(), message, null);
    }

    public NfsException(Nfs3Status status, String message, Throwable cause) {
        this(status, status.wireValue(), message, cause);
    }

    private NfsException(Nfs3Status status, int wireValue, String message, Throwable cause) {
        super(status + (message == null || message.isEmpty() ? "" : ": " + message), cause);
        if (status == Nfs3Status.NFS3_OK) {
            throw new IllegalArgumentException("NFS3_OK is not an error");
        }
        this.status = status;
        this.wireValue = wireValue;
    }

    /** For a status read from the wire: keeps the raw value even when the enum does not know it. */
    public static NfsException fromWire(int wireValue, String operation) {
        Nfs3Status status = Nfs3Status.fromWire(wireValue);
        String what = status == Nfs3Status.UNKNOWN ? operation + " (nfsstat3 " + wireValue + ")" : operation;
        return new NfsException(status, wireValue, what, null);
    }

    public Nfs3Status status() {
        return status;
    }

    /** The {@code nfsstat3} value as it was on the wire (or as it will be sent). */
    public int wireValue() {
        return wireValue;
    }
}
