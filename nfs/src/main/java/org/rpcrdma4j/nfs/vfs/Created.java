package org.rpcrdma4j.nfs.vfs;

import org.rpcrdma4j.nfs.FileAttributes;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.NfsObject;

/**
 * What {@link Vfs#create} returns: the file, and whether this call made it (false: it was there, an UNCHECKED CREATE
 * of an existing file or the resend of an EXCLUSIVE one). The server's checks of what a caller may do with the file
 * depend on it, so a VFS says it from the same step that made the file, never from a look before.
 *
 * @param handle     the file's handle
 * @param attributes its attributes after the call
 * @param made       whether this call made it
 */
public record Created(FileHandle handle, FileAttributes attributes, boolean made) {
    /** The file as an {@link NfsObject}. */
    public NfsObject object() {
        return new NfsObject(handle, attributes);
    }

    static Created made(NfsObject o) {
        return new Created(o.handle(), o.attributes(), true);
    }

    static Created found(NfsObject o) {
        return new Created(o.handle(), o.attributes(), false);
    }
}
