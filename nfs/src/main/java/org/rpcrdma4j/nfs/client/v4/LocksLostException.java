package org.rpcrdma4j.nfs.client.v4;

import java.io.IOException;

import org.rpcrdma4j.nfs.FileHandle;

/**
 * The client's byte-range locks of a file were lost (the server restarted and they could not be reclaimed, or it
 * revoked the client's state): READ, WRITE and LOCK of the file fail with this until the caller closes it
 * ({@link Nfs41Client#close(FileHandle)}), as another client may hold those bytes by now.
 */
public final class LocksLostException extends IOException {
    private static final long serialVersionUID = 1L;

    private final transient FileHandle file;

    LocksLostException(FileHandle file) {
        super("the byte-range locks of " + file + " were lost when the client's state was recovered; close the file "
                + "to go on");
        this.file = file;
    }

    /** The file whose locks were lost. */
    public FileHandle file() {
        return file;
    }
}
