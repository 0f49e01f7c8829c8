package org.rpcrdma4j.nfs.server.v4;

import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs.v4.Nfs4;
import org.rpcrdma4j.nfs.v4.Nfs4Exception;
import org.rpcrdma4j.nfs.v4.Nfs4Status;
import org.rpcrdma4j.nfs.v4.state.LockStates;
import org.rpcrdma4j.nfs.v4.state.Stateid;
import org.rpcrdma4j.nfs.xdr.BadXdrException;
import org.rpcrdma4j.nfs.xdr.Nfs3Xdr;

/**
 * LOCK, LOCKT and LOCKU (RFC 8881 sections 18.10-18.12): byte-range locks on the current file, kept by the state
 * layer ({@link LockStates}). The seqids inside the arguments are NFSv4.0's and are not used: the session orders the
 * requests. A LOCK or LOCKT that meets a conflicting lock fails with NFS4ERR_DENIED and names that lock
 * ({@code LOCK4denied}). The lock stateid LOCK and LOCKU return becomes the COMPOUND's current stateid.
 */
final class LockOps {
    private LockOps() {
    }

    /** {@code lock_owner4}'s owner: the client ID in it is the session's. */
    private static byte[] decodeLockOwner(XdrDecodingStream xdr) throws BadXdrException {
        Nfs3Xdr.decodeLong(xdr); // clientid
        return Nfs3Xdr.decodeOpaque(xdr, Nfs4.OPAQUE_LIMIT, "lock_owner4");
    }

    /** {@code LOCK4denied}. */
    private static void encodeDenied(XdrEncodingStream xdr, LockStates.Denied d) {
        xdr.xdrEncodeLong(d.offset());
        xdr.xdrEncodeLong(d.length());
        xdr.xdrEncodeInt(d.type());
        xdr.xdrEncodeLong(d.ownerClientId());
        xdr.xdrEncodeDynamicOpaque(d.owner());
    }

    /** The conflicting lock of a DENIED failure, kept for the result; the failure is thrown on. */
    private static LockStates.Denied denied(Nfs4Exception e) {
        return e instanceof LockStates.DeniedException d ? d.denied() : null;
    }

    static final class Lock extends Op {
        private int type;
        private boolean reclaim;
        private long offset;
        private long length;
        private boolean newOwner;
        private Stateid stateid;
        private byte[] owner;
        private Stateid result;
        private LockStates.Denied denied;

        Lock() {
            super(Nfs4.OP_LOCK);
        }

        @Override
        void decode(XdrDecodingStream xdr) throws BadXdrException {
            type = Nfs3Xdr.decodeInt(xdr);
            reclaim = Nfs3Xdr.decodeBool(xdr);
            offset = Nfs3Xdr.decodeLong(xdr);
            length = Nfs3Xdr.decodeLong(xdr);
            newOwner = Nfs3Xdr.decodeBool(xdr);
            if (newOwner) {
                Nfs3Xdr.decodeInt(xdr); // open_seqid
                stateid = StateOps.decodeStateid(xdr);
                Nfs3Xdr.decodeInt(xdr); // lock_seqid
                owner = decodeLockOwner(xdr);
            } else {
                stateid = StateOps.decodeStateid(xdr);
                Nfs3Xdr.decodeInt(xdr); // lock_seqid
            }
        }

        @Override
        void execute(Compound c) throws Nfs4Exception {
            IoOps.regularFile(c, false);
            c.server.clients.checkOpen(c.clientId, reclaim);
            LockStates locks = c.server.clients.opens().locks();
            Stateid s = StateOps.resolve(c, stateid);
            try {
                result = newOwner ? locks.lockNew(c.clientId, s, owner, c.current(), type, offset, length)
                        : locks.lock(c.clientId, s, c.current(), type, offset, length);
            } catch (Nfs4Exception e) {
                denied = denied(e);
                throw e;
            }
            c.currentStateid = result;
        }

        @Override
        void encodeOk(XdrEncodingStream xdr) {
            StateOps.encodeStateid(xdr, result);
        }

        @Override
        void encodeError(XdrEncodingStream xdr) {
            if (status == Nfs4Status.NFS4ERR_DENIED && denied != null) {
                encodeDenied(xdr, denied);
            }
        }
    }

    static final class LockT extends Op {
        private int type;
        private long offset;
        private long length;
        private byte[] owner;
        private LockStates.Denied denied;

        LockT() {
            super(Nfs4.OP_LOCKT);
        }

        @Override
        void decode(XdrDecodingStream xdr) throws BadXdrException {
            type = Nfs3Xdr.decodeInt(xdr);
            offset = Nfs3Xdr.decodeLong(xdr);
            length = Nfs3Xdr.decodeLong(xdr);
            owner = decodeLockOwner(xdr);
        }

        @Override
        void execute(Compound c) throws Nfs4Exception {
            IoOps.regularFile(c, false);
            if (c.server.clients.inGrace()) {
                throw new Nfs4Exception(Nfs4Status.NFS4ERR_GRACE, "LOCKT in the grace period");
            }
            try {
                c.server.clients.opens().locks().test(c.clientId, owner, c.current(), type, offset, length);
            } catch (Nfs4Exception e) {
                denied = denied(e);
                throw e;
            }
        }

        @Override
        void encodeError(XdrEncodingStream xdr) {
            if (status == Nfs4Status.NFS4ERR_DENIED && denied != null) {
                encodeDenied(xdr, denied);
            }
        }
    }

    static final class LockU extends Op {
        private int type;
        private Stateid stateid;
        private long offset;
        private long length;
        private Stateid result;

        LockU() {
            super(Nfs4.OP_LOCKU);
        }

        @Override
        void decode(XdrDecodingStream xdr) throws BadXdrException {
            type = Nfs3Xdr.decodeInt(xdr);
            Nfs3Xdr.decodeInt(xdr); // seqid
            stateid = StateOps.decodeStateid(xdr);
            offset = Nfs3Xdr.decodeLong(xdr);
            length = Nfs3Xdr.decodeLong(xdr);
        }

        @Override
        void execute(Compound c) throws Nfs4Exception {
            IoOps.regularFile(c, false);
            result = c.server.clients.opens().locks().unlock(c.clientId, StateOps.resolve(c, stateid), c.current(),
                    type, offset, length);
            c.currentStateid = result;
        }

        @Override
        void encodeOk(XdrEncodingStream xdr) {
            StateOps.encodeStateid(xdr, result);
        }
    }
}
