package org.rpcrdma4j.nfs.client.v4;

import java.util.concurrent.CompletionException;

import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs.v4.Nfs4;
import org.rpcrdma4j.nfs.v4.Nfs4Status;
import org.rpcrdma4j.nfs.xdr.BadXdrException;
import org.rpcrdma4j.nfs.xdr.Nfs3Xdr;

/**
 * LOCK, LOCKT and LOCKU of the client (RFC 8881 sections 18.10-18.12). The seqids of NFSv4.0 inside the arguments go
 * as 0; the lock owner's client ID is the session's, fixed for each attempt. A DENIED result's {@code LOCK4denied} is
 * kept in the operation ({@link Denying#denied()}).
 */
final class LockOps {
    private LockOps() {
    }

    /** An operation whose NFS4ERR_DENIED result names the conflicting lock. */
    abstract static class Denying extends Op {
        private LockConflict denied;

        Denying(int opcode) {
            super(opcode);
        }

        /** The lock in the way, after a DENIED result; else null. */
        LockConflict denied() {
            return denied;
        }

        @Override
        void decodeError(XdrDecodingStream xdr, int status) throws BadXdrException {
            denied = null;
            if (status == Nfs4Status.NFS4ERR_DENIED) {
                long offset = Nfs3Xdr.decodeLong(xdr);
                long length = Nfs3Xdr.decodeLong(xdr);
                int type = Nfs3Xdr.decodeInt(xdr);
                long clientId = Nfs3Xdr.decodeLong(xdr);
                byte[] owner = Nfs3Xdr.decodeOpaque(xdr, Nfs4.OPAQUE_LIMIT, "lock_owner4");
                denied = new LockConflict(offset, length, LockType.fromWire(type), clientId, owner);
            }
        }
    }

    /**
     * The lock stateid of the file's entry for an attempt (seqid 0: the current one); null when the lock owner has
     * none there yet. An attempt of a file whose locks were lost fails with {@link LocksLostException}.
     */
    static Stateid4 lockStateid(OpenFiles.Entry file) {
        if (file.locksLost) {
            throw new CompletionException(new LocksLostException(file.fh));
        }
        Stateid4 s = file.lockStateid;
        return s == null ? null : s.current();
    }

    /**
     * LOCK of the file of an {@link OpenFiles} entry, whose stateids are taken at each attempt (a recovery between
     * attempts may have made them anew): with the lock owner's lock stateid there ({@code exist_lock_owner4}), or,
     * for its first lock on the file, with the open's stateid and {@code owner} ({@code open_to_lock_owner4}).
     */
    static final class Lock extends Denying {
        private final OpenFiles.Entry file;
        private final int type;
        private final boolean reclaim;
        private final long offset;
        private final long length;
        private final byte[] owner;
        private long clientId;
        private Stateid4 openStateid;
        private Stateid4 lockStateid;

        Lock(OpenFiles.Entry file, LockType type, boolean reclaim, long offset, long length, byte[] owner) {
            this(file, type, false, reclaim, offset, length, owner);
        }

        /** With {@code waiting}, the blocking type (READW_LT, WRITEW_LT): the client will ask again if denied. */
        Lock(OpenFiles.Entry file, LockType type, boolean waiting, boolean reclaim, long offset, long length,
             byte[] owner) {
            super(Nfs4.OP_LOCK);
            this.file = file;
            this.type = waiting ? type.waitingWire() : type.wire();
            this.reclaim = reclaim;
            this.offset = offset;
            this.length = length;
            this.owner = owner;
        }

        @Override
        void prepare(long id) {
            clientId = id;
            lockStateid = lockStateid(file);
            openStateid = file.stateid(); // not open: the anonymous stateid, which the server refuses
        }

        @Override
        void encode(XdrEncodingStream xdr) {
            xdr.xdrEncodeInt(type);
            xdr.xdrEncodeBoolean(reclaim);
            xdr.xdrEncodeLong(offset);
            xdr.xdrEncodeLong(length);
            xdr.xdrEncodeBoolean(lockStateid == null);
            if (lockStateid == null) {
                xdr.xdrEncodeInt(0); // open_seqid
                openStateid.encode(xdr);
                xdr.xdrEncodeInt(0); // lock_seqid
                xdr.xdrEncodeLong(clientId);
                Nfs3Xdr.encodeOpaque(xdr, owner);
            } else {
                lockStateid.encode(xdr);
                xdr.xdrEncodeInt(0); // lock_seqid
            }
        }

        @Override
        boolean mutating() {
            return true;
        }

        @Override
        Object decodeOk(XdrDecodingStream xdr, ReplyDecoding mode) throws BadXdrException {
            return Stateid4.decode(xdr);
        }
    }

    /** LOCKT: whether {@code owner} could lock the range. */
    static final class LockT extends Denying {
        private final int type;
        private final long offset;
        private final long length;
        private final byte[] owner;
        private long clientId;

        LockT(LockType type, long offset, long length, byte[] owner) {
            super(Nfs4.OP_LOCKT);
            this.type = type.wire();
            this.offset = offset;
            this.length = length;
            this.owner = owner;
        }

        @Override
        void prepare(long id) {
            clientId = id;
        }

        @Override
        void encode(XdrEncodingStream xdr) {
            xdr.xdrEncodeInt(type);
            xdr.xdrEncodeLong(offset);
            xdr.xdrEncodeLong(length);
            xdr.xdrEncodeLong(clientId);
            Nfs3Xdr.encodeOpaque(xdr, owner);
        }
    }

    /** LOCKU of the range under the lock stateid of the file's entry, taken at each attempt. */
    static final class LockU extends Op {
        private final OpenFiles.Entry file;
        private final long offset;
        private final long length;
        private Stateid4 lockStateid;

        LockU(OpenFiles.Entry file, long offset, long length) {
            super(Nfs4.OP_LOCKU);
            this.file = file;
            this.offset = offset;
            this.length = length;
        }

        @Override
        void prepare(long id) {
            lockStateid = lockStateid(file);
            if (lockStateid == null) {
                throw new CompletionException(new LocksLostException(file.fh));
            }
        }

        @Override
        void encode(XdrEncodingStream xdr) {
            xdr.xdrEncodeInt(LockType.WRITE.wire()); // the type of an unlock is not compared
            xdr.xdrEncodeInt(0); // seqid
            lockStateid.encode(xdr);
            xdr.xdrEncodeLong(offset);
            xdr.xdrEncodeLong(length);
        }

        @Override
        boolean mutating() {
            return true;
        }

        @Override
        Object decodeOk(XdrDecodingStream xdr, ReplyDecoding mode) throws BadXdrException {
            return Stateid4.decode(xdr);
        }
    }
}
