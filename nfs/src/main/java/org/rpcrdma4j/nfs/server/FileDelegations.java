package org.rpcrdma4j.nfs.server;

import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.nfs.NfsObject;

/**
 * What a change of a file waits for: the NFSv4 read delegations clients hold of it (RFC 8881 section 10.4), which
 * must be recalled before anyone else changes the file. The NFSv4 program puts its own in the {@link ExportTable};
 * the NFSv3 program asks it before each WRITE, SETATTR, REMOVE, RENAME and LINK, as the NFSv4 operations do.
 */
public interface FileDelegations {
    /** Who changes a file when no NFSv4 client does (NFSv3 calls): every delegation conflicts. */
    long NO_CLIENT = 0;

    /** No delegations: nothing waits. */
    FileDelegations NONE = new FileDelegations() {
        @Override
        public boolean watching() {
            return false;
        }

        @Override
        public void beforeChange(FileHandle wire, long clientId) {
        }
    };

    /**
     * Whether changes concern delegations: one is held, or one may be granted (a change then keeps its file from a new
     * one while it runs). When not, a change by name need not look its file up.
     */
    boolean watching();

    /**
     * Before {@code clientId} changes the file {@code wire} names: recalls the delegations other clients hold of it,
     * waits a moment for their return, and fails while any is still held.
     *
     * @throws NfsException NFS3ERR_JUKEBOX (NFS4ERR_DELAY) while a delegation of the file is being recalled: the
     *                      caller asks again later
     */
    void beforeChange(FileHandle wire, long clientId) throws NfsException;

    /**
     * {@link #beforeChange} for the regular file {@code name} names in {@code dir} (a REMOVE or RENAME of it, or a
     * RENAME over it); nothing when the name names nothing or something else.
     */
    default void beforeNameChange(ExportTable.Target dir, String name, long clientId) throws NfsException {
        if (!watching()) {
            return;
        }
        NfsObject o;
        try {
            o = dir.export().vfs().lookup(dir.fh(), name);
        } catch (NfsException e) {
            return; // no such name: the change itself answers that
        }
        if (o.attributes() == null || o.attributes().isRegularFile()) {
            beforeChange(dir.export().wrap(o.handle()), clientId);
        }
    }
}
