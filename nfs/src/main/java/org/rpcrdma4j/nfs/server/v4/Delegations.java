package org.rpcrdma4j.nfs.server.v4;

import java.util.concurrent.TimeUnit;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.Nfs3Status;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.nfs.server.ExportTable;
import org.rpcrdma4j.nfs.server.FileDelegations;
import org.rpcrdma4j.nfs.v4.Nfs4Exception;
import org.rpcrdma4j.nfs.v4.Nfs4Status;
import org.rpcrdma4j.nfs.v4.state.DelegationStates;
import org.rpcrdma4j.nfs.v4.state.ReferringCall;
import org.rpcrdma4j.nfs.v4.state.Stateid;

/**
 * The server's read delegations: when an OPEN gets one, and what a change waits for. The state is the state layer's
 * ({@link DelegationStates}); the recalls go over the back channel ({@link BackChannel#recall}).
 *
 * <p>An OPEN gets a read delegation when the server grants them ({@code enabled}), the export's VFS sees every change
 * of its files ({@link org.rpcrdma4j.nfs.vfs.Vfs#changedOnlyThroughServer()}), the OPEN reads only, denies nothing
 * and claims the file by name or handle, its client's back channel answered, its client did not ask for none ({@code OPEN4_SHARE_ACCESS_WANT_NO_DELEG}
 * or another want than a read or any delegation), and the state layer allows it (see there).
 *
 * <p>A change by anyone but the holder recalls the file's delegations and waits up to {@link #WAIT_NANOS} for their
 * return (a client gives a read delegation back in a round trip or two), then answers NFS4ERR_DELAY, or
 * NFS3ERR_JUKEBOX over NFSv3, and the caller asks again.
 */
final class Delegations implements FileDelegations {
    /** How long a change waits for a recalled delegation before it answers DELAY. */
    static final long WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /** {@code OPEN4_SHARE_ACCESS_WANT_*}: the want bits of {@code share_access}. */
    static final int WANT_MASK = 0xff00;
    static final int WANT_NO_PREFERENCE = 0;
    static final int WANT_READ_DELEG = 0x0100;
    static final int WANT_ANY_DELEG = 0x0300;
    static final int WANT_NO_DELEG = 0x0400;

    private final DelegationStates states;
    private final java.util.function.LongPredicate reachable;
    private final boolean enabled;

    /**
     * @param reachable whether a client's back channel answered (a delegation is granted only to a client the server
     *                  can recall it from)
     */
    Delegations(DelegationStates states, java.util.function.LongPredicate reachable, boolean enabled) {
        this.states = states;
        this.reachable = reachable;
        this.enabled = enabled;
    }

    /** A read delegation for the OPEN running in {@code c} of {@code file} in {@code t}, or null. */
    Stateid grant(Compound c, ExportTable.Target t, FileHandle file, int shareAccess, int access, int deny) {
        int want = shareAccess & WANT_MASK;
        if (!enabled || t == null || !t.export().vfs().changedOnlyThroughServer() || access != 1 || deny != 0
                || (want != WANT_NO_PREFERENCE && want != WANT_READ_DELEG && want != WANT_ANY_DELEG)) {
            return null;
        }
        if (c.session == null || !reachable.test(c.clientId)) {
            return null;
        }
        return states.grantRead(c.clientId, file, new ReferringCall(c.session.id(), c.slotId, c.sequenceId));
    }

    /** {@link #beforeChange(FileHandle, long)} with the NFSv4 status. */
    void beforeChange(Compound c, FileHandle file) throws Nfs4Exception {
        beforeChange4(file, c.clientId);
    }

    /** {@link #beforeNameChange} with the NFSv4 status. */
    void beforeNameChange(Compound c, ExportTable.Target dir, String name) throws Nfs4Exception {
        Compound.check(() -> beforeNameChange(dir, name, c.clientId));
    }

    private void beforeChange4(FileHandle file, long clientId) throws Nfs4Exception {
        try {
            // notes the change even when no delegation is held, so that none is granted while it is under way
            states.checkChange(file, clientId);
            return;
        } catch (Nfs4Exception e) {
            if (e.status() != Nfs4Status.NFS4ERR_DELAY) {
                throw e;
            }
        }
        try {
            if (states.awaitReturn(file, clientId, WAIT_NANOS)) {
                states.checkChange(file, clientId);
                return;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        throw new Nfs4Exception(Nfs4Status.NFS4ERR_DELAY, "a delegation of the file is being recalled");
    }

    @Override
    public boolean watching() {
        return states.granting() || states.any();
    }

    @Override
    public void beforeChange(FileHandle wire, long clientId) throws NfsException {
        try {
            beforeChange4(wire, clientId);
        } catch (Nfs4Exception e) {
            throw new NfsException(e.status() == Nfs4Status.NFS4ERR_DELAY ? Nfs3Status.NFS3ERR_JUKEBOX
                    : Nfs3Status.NFS3ERR_SERVERFAULT, e.getMessage());
        }
    }
}
