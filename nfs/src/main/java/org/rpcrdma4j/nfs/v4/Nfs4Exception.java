package org.rpcrdma4j.nfs.v4;

/**
 * An NFSv4 operation failed with an {@code nfsstat4}: thrown by the server's state and attribute code to become the
 * status of the operation that ran into it, and by the client when a server answered with one.
 */
public class Nfs4Exception extends Exception {
    private static final long serialVersionUID = 1L;

    private final int status;

    public Nfs4Exception(int status, String message) {
        super(Nfs4Status.name(status) + ": " + message);
        this.status = status;
    }

    /** @return the {@code nfsstat4} wire value */
    public int status() {
        return status;
    }
}
