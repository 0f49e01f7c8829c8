package org.rpcrdma4j.nfs.client;

import java.io.IOException;
import org.rpcrdma4j.nfs.xdr.MountStatus;

/** MOUNT answered MNT with a status other than MNT3_OK. */
public final class MountException extends IOException {
    private static final long serialVersionUID = 1L;

    private final MountStatus status;

    public MountException(MountStatus status, String message) {
        super(status + ": " + message);
        this.status = status;
    }

    public MountStatus status() {
        return status;
    }
}
