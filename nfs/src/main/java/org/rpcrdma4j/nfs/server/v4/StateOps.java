package org.rpcrdma4j.nfs.server.v4;

import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs.CreateMode;
import org.rpcrdma4j.nfs.FileAttributes;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.nfs.SetAttributes;
import org.rpcrdma4j.nfs.server.Caller;
import org.rpcrdma4j.nfs.server.ExportTable;
import org.rpcrdma4j.nfs.server.Permissions;
import org.rpcrdma4j.nfs.server.TargetChecks;
import org.rpcrdma4j.nfs.v4.Bitmap4;
import org.rpcrdma4j.nfs.v4.Fattr4;
import org.rpcrdma4j.nfs.v4.Nfs4;
import org.rpcrdma4j.nfs.v4.Nfs4Exception;
import org.rpcrdma4j.nfs.v4.Nfs4Status;
import org.rpcrdma4j.nfs.v4.SettableAttributes;
import org.rpcrdma4j.nfs.v4.state.OpenStates;
import org.rpcrdma4j.nfs.v4.state.Stateid;
import org.rpcrdma4j.nfs.vfs.Created;
import org.rpcrdma4j.nfs.xdr.BadXdrException;
import org.rpcrdma4j.nfs.xdr.Nfs3Xdr;

/**
 * OPEN, CLOSE, OPEN_DOWNGRADE, TEST_STATEID, FREE_STATEID and DELEGRETURN (RFC 8881 sections 18.16, 18.2, 18.18,
 * 18.48, 18.38, 18.6), and the stateid check of READ, WRITE and SETATTR. The open state itself is the state layer's
 * ({@link org.rpcrdma4j.nfs.v4.state.OpenStates}). An OPEN for reading may get a read delegation
 * ({@link Delegations}), which DELEGRETURN gives back; an OPEN that may write waits for the other clients' delegations
 * of the file to come back (NFS4ERR_DELAY meanwhile), and so does any WRITE. OPEN claims by name (CLAIM_NULL), by
 * handle (CLAIM_FH), through a delegation the client holds (CLAIM_DELEGATE_CUR by name, CLAIM_DELEG_CUR_FH by handle:
 * the opens a client made locally under it, sent before it gives it back) and reclaims after a restart
 * (CLAIM_PREVIOUS, during the grace period); the reclaims of delegations after a client's restart
 * (CLAIM_DELEGATE_PREV, CLAIM_DELEG_PREV_FH) are NFS4ERR_NOTSUPP: this server keeps nothing across its restarts.
 */
final class StateOps {
    static final int CLAIM_NULL = 0;
    static final int CLAIM_PREVIOUS = 1;
    static final int CLAIM_DELEGATE_CUR = 2;
    static final int CLAIM_DELEGATE_PREV = 3;
    static final int CLAIM_FH = 4;
    static final int CLAIM_DELEG_CUR_FH = 5;
    static final int CLAIM_DELEG_PREV_FH = 6;
    static final int OPEN4_CREATE = 1;
    static final int UNCHECKED4 = 0;
    static final int GUARDED4 = 1;
    static final int EXCLUSIVE4 = 2;
    static final int EXCLUSIVE4_1 = 3;
    /** OPEN's rflags: byte-range locks behave as POSIX locks (without it the Linux client refuses fcntl locks). */
    static final int OPEN4_RESULT_LOCKTYPE_POSIX = 4;
    /** The access and deny bits of {@code share_access} / {@code share_deny}; the rest are NFSv4.1 "want" flags. */
    static final int SHARE_MASK = 0xff;
    private static final int MAX_TEST_STATEIDS = 1024;

    private StateOps() {
    }

    static Stateid decodeStateid(XdrDecodingStream xdr) throws BadXdrException {
        int seqid = Nfs3Xdr.decodeInt(xdr);
        return new Stateid(seqid, Nfs3Xdr.decodeFixedOpaque(xdr, Stateid.OTHER_SIZE));
    }

    static void encodeStateid(XdrEncodingStream xdr, Stateid s) {
        xdr.xdrEncodeInt(s.seqid());
        xdr.xdrEncodeOpaque(s.other(), 0, Stateid.OTHER_SIZE);
    }

    /** The stateid an operation means: the COMPOUND's current one for the special "current stateid". */
    static Stateid resolve(Compound c, Stateid s) throws Nfs4Exception {
        if (!s.isCurrent()) {
            return s;
        }
        if (c.currentStateid == null) {
            throw new Nfs4Exception(Nfs4Status.NFS4ERR_BAD_STATEID, "no current stateid in this COMPOUND");
        }
        return c.currentStateid;
    }

    /** Checks that {@code s} allows a READ ({@code write} false) or a WRITE of the current file. */
    static void checkIo(Compound c, Stateid s, boolean write) throws Nfs4Exception {
        checkIo(c, s, c.current(), write);
    }

    /**
     * I/O on {@code file} through stateid {@code s}: the state layer's checks, then the caller's permission on the
     * file as it is now, as NFSv3's READ and WRITE check it (the owner always passes), whatever the stateid: Linux's
     * server checks it on every READ and WRITE too, so a mode its owner took away since the OPEN holds.
     */
    static void checkIo(Compound c, Stateid s, FileHandle file, boolean write) throws Nfs4Exception {
        Stateid resolved = resolve(c, s);
        try {
            c.server.clients.opens().checkIo(c.clientId, resolved, file, write);
        } catch (Nfs4Exception e) {
            if (!write || e.status() != Nfs4Status.NFS4ERR_DELAY) {
                throw e;
            }
            // another client's delegation of the file, now recalled: a moment for its return, then once more
            c.server.delegations.beforeChange(c, file);
            c.server.clients.opens().checkIo(c.clientId, resolved, file, write);
        }
        ExportTable.Target t = c.targetOf(file);
        if (t == null) {
            return;
        }
        Caller caller = c.caller(t);
        if (!caller.isRoot()) {
            Compound.check(() -> {
                FileAttributes a = t.export().vfs().getattr(t.fh());
                if (write) {
                    Permissions.requireWrite(caller, a);
                } else {
                    Permissions.requireRead(caller, a);
                }
            });
        }
    }

    static final class Open extends Op {
        private int shareAccess;
        private int shareDeny;
        private byte[] owner;
        private int openType;
        private int createMode;
        private long verifier;
        private SettableAttributes createAttrs;
        private Nfs4Exception refused;
        private int claim;
        private byte[] name;
        private Stateid stateid;
        private Stateid claimed;
        private Stateid delegation;
        private ChangeInfo info = ChangeInfo.NONE;
        private Bitmap4 attrsSet = new Bitmap4();
        private boolean truncate;

        Open() {
            super(Nfs4.OP_OPEN);
        }

        @Override
        void decode(XdrDecodingStream xdr) throws BadXdrException {
            Nfs3Xdr.decodeInt(xdr); // seqid: not used in NFSv4.1
            shareAccess = Nfs3Xdr.decodeInt(xdr);
            shareDeny = Nfs3Xdr.decodeInt(xdr);
            Nfs3Xdr.decodeLong(xdr); // the owner's clientid: the session's client is the one that counts
            owner = Nfs3Xdr.decodeOpaque(xdr, Nfs4.OPAQUE_LIMIT, "open_owner4");
            openType = Nfs3Xdr.decodeInt(xdr);
            if (openType == OPEN4_CREATE) {
                createMode = Nfs3Xdr.decodeInt(xdr);
                try {
                    switch (createMode) {
                        case UNCHECKED4, GUARDED4 -> createAttrs = Fattr4.decodeSettable(xdr);
                        case EXCLUSIVE4 -> verifier = Nfs3Xdr.decodeLong(xdr);
                        case EXCLUSIVE4_1 -> {
                            verifier = Nfs3Xdr.decodeLong(xdr);
                            createAttrs = Fattr4.decodeSettable(xdr);
                        }
                        default -> throw new BadXdrException("createmode4 " + createMode);
                    }
                } catch (Nfs4Exception e) {
                    refused = e;
                    return;
                }
            } else if (openType != 0) {
                throw new BadXdrException("opentype4 " + openType);
            }
            claim = Nfs3Xdr.decodeInt(xdr);
            switch (claim) {
                case CLAIM_NULL, CLAIM_DELEGATE_PREV -> name = Names.decode(xdr);
                case CLAIM_PREVIOUS -> Nfs3Xdr.decodeInt(xdr);
                case CLAIM_DELEGATE_CUR -> {
                    claimed = decodeStateid(xdr);
                    name = Names.decode(xdr);
                }
                case CLAIM_DELEG_CUR_FH -> claimed = decodeStateid(xdr);
                case CLAIM_FH, CLAIM_DELEG_PREV_FH -> { }
                default -> throw new BadXdrException("open_claim_type4 " + claim);
            }
        }

        @Override
        void execute(Compound c) throws Nfs4Exception {
            if (refused != null) {
                throw refused;
            }
            int access = shareAccess & SHARE_MASK;
            int deny = shareDeny & SHARE_MASK;
            if (access < 1 || access > 3 || deny > 3) {
                throw new Nfs4Exception(Nfs4Status.NFS4ERR_INVAL, "share_access " + shareAccess + ", share_deny "
                        + shareDeny);
            }
            FileHandle file;
            boolean created = false;
            switch (claim) {
                case CLAIM_NULL -> {
                    c.server.clients.checkOpen(c.clientId, false);
                    Compound.Obj dir = c.currentObject();
                    String n = Names.check(name);
                    if (openType == OPEN4_CREATE) {
                        Created made = createOrFind(c, dir, n);
                        created = made.made();
                        file = made.handle();
                    } else {
                        file = FhOps.lookup(c, dir, n);
                    }
                }
                case CLAIM_FH -> {
                    c.server.clients.checkOpen(c.clientId, false);
                    file = c.current();
                }
                case CLAIM_PREVIOUS -> {
                    c.server.clients.checkOpen(c.clientId, true);
                    file = c.current();
                }
                case CLAIM_DELEGATE_CUR, CLAIM_DELEG_CUR_FH -> {
                    file = claim == CLAIM_DELEG_CUR_FH ? c.current()
                            : FhOps.lookup(c, c.currentObject(), Names.check(name));
                    c.server.clients.delegations().checkHeld(c.clientId, resolve(c, claimed), file);
                }
                default -> throw new Nfs4Exception(Nfs4Status.NFS4ERR_NOTSUPP, "no reclaims of delegations: claim "
                        + claim);
            }
            Compound.Obj o = c.object(file);
            FileAttributes a = o.attributes();
            if (a.isDirectory()) {
                throw new Nfs4Exception(Nfs4Status.NFS4ERR_ISDIR, "OPEN of a directory");
            }
            if (a.isSymlink()) {
                throw new Nfs4Exception(Nfs4Status.NFS4ERR_SYMLINK, "OPEN of a symbolic link");
            }
            if (!a.isRegularFile()) {
                throw new Nfs4Exception(Nfs4Status.NFS4ERR_WRONG_TYPE, "OPEN of a special file");
            }
            checkOpen(c, o, access, deny, created);
            if ((access & 2) != 0 || (deny & 1) != 0) {
                // other clients' read delegations of the file come back first
                c.server.delegations.beforeChange(c, file);
            }
            if (truncate && (access & 2) == 0) {
                throw new Nfs4Exception(Nfs4Status.NFS4ERR_INVAL, "a truncating OPEN that does not write");
            }
            OpenStates.Held before = truncate ? c.server.clients.opens().held(c.clientId, owner, file) : null;
            stateid = c.server.clients.opens().open(c.clientId, owner, file, access, deny);
            if (truncate) {
                // UNCHECKED4 of an existing file with a size of 0: truncated only once the open is granted, so that
                // another owner's deny of writes refuses it first, and the open's access keeps such denials out
                // while it truncates
                try {
                    o.target().export().vfs().setattr(o.target().fh(), SetAttributes.NONE.withSize(0), null);
                } catch (NfsException e) {
                    c.server.clients.opens().withdraw(c.clientId, owner, file, stateid, before);
                    throw Compound.of(e);
                }
            }
            if (claim == CLAIM_NULL || claim == CLAIM_FH) {
                delegation = c.server.delegations.grant(c, o.target(), file, shareAccess, access, deny);
            }
            c.current = file;
            c.currentStateid = stateid;
        }

        /** The wire handle of {@code n} in {@code dir}, or null when there is none. */
        private static FileHandle existing(ExportTable.Target dir, String n) throws Nfs4Exception {
            try {
                return dir.export().wrap(dir.export().vfs().lookup(dir.fh(), n).handle());
            } catch (NfsException e) {
                if (e.wireValue() == 2) { // NOENT
                    return null;
                }
                throw Compound.of(e);
            }
        }

        /**
         * OPEN4_CREATE of {@code n} in the current directory {@code dir}: search permission on the directory first
         * (as Linux's server asks); an UNCHECKED4 of an existing name opens it as it is (a size of 0 truncates it
         * once the open is allowed), which a read-only export or host allows; anything else makes a name, which needs
         * a writable export and write permission on the directory. A file this call made is the caller's.
         */
        private Created createOrFind(Compound c, Compound.Obj dir, String n) throws Nfs4Exception {
            if (!dir.attributes().isDirectory()) {
                throw new Nfs4Exception(Nfs4Status.NFS4ERR_NOTDIR, "not a directory");
            }
            if (dir.isPseudo()) {
                throw new Nfs4Exception(Nfs4Status.NFS4ERR_ROFS, "a directory of the pseudo file system");
            }
            ExportTable.Target d = dir.target();
            Caller caller = c.caller(d);
            Compound.check(() -> TargetChecks.requireDir(caller, d, Permissions.EXECUTE, "search this directory"));
            SetAttributes attrs = createAttrs == null ? SetAttributes.NONE : createAttrs.attributes();
            Created[] found = new Created[1];
            info = DirOps.changing(c, d, () -> {
                FileHandle existing = existing(d, n);
                if (existing != null && createMode == UNCHECKED4) {
                    c.server.clients.opens().checkRoom(c.clientId, owner, existing);
                    found[0] = new Created(existing, null, false);
                } else {
                    DirOps.writableDirectory(c);
                    Compound.check(() -> TargetChecks.requireDir(caller, d, Permissions.WRITE | Permissions.EXECUTE,
                            "make a name in this directory"));
                    // a client at its bound of opens is refused before the create changes anything
                    c.server.clients.opens().checkRoom(c.clientId, owner, existing);
                    found[0] = create(d, n, caller, attrs);
                }
            });
            Created made = found[0];
            truncate = !made.made() && createMode == UNCHECKED4 && attrs.size() != null && attrs.size() == 0;
            attrsSet = !made.made() || createMode == EXCLUSIVE4 || createAttrs == null ? new Bitmap4()
                    : createAttrs.attrmask();
            return made;
        }

        /**
         * Creates {@code n} in {@code dir} for {@code caller}, answering with its wire handle; the attributes go to a
         * file this call made only.
         */
        private Created create(ExportTable.Target dir, String n, Caller caller, SetAttributes attrs)
                throws Nfs4Exception {
            CreateMode mode = switch (createMode) {
                case GUARDED4 -> CreateMode.GUARDED;
                case EXCLUSIVE4, EXCLUSIVE4_1 -> CreateMode.EXCLUSIVE;
                default -> CreateMode.UNCHECKED;
            };
            try {
                SetAttributes owned = TargetChecks.owned(caller, dir, attrs, false);
                Created made = dir.export().vfs().create(dir.fh(), n, mode, owned, verifier);
                FileAttributes attributes = made.attributes();
                if (made.made() && createMode == EXCLUSIVE4_1) {
                    // made with its owner only (its verifier is kept in its times): the client's attributes now
                    SetAttributes rest = new SetAttributes(owned.mode(), null, null, owned.size(), owned.atime(),
                            owned.mtime());
                    if (!rest.isEmpty()) {
                        attributes = dir.export().vfs().setattr(made.handle(), rest, null);
                    }
                }
                return new Created(dir.export().wrap(made.handle()), attributes, made.made());
            } catch (NfsException e) {
                throw Compound.of(e);
            }
        }

        /**
         * Whether the caller may open {@code o} with {@code access} and {@code deny}, as Linux's server decides: read
         * needs read or execute permission, write needs write permission (ROFS on a read-only export or host), denying
         * others reads needs write permission too; the owner of a file this OPEN made may do both whatever its mode.
         */
        private static void checkOpen(Compound c, Compound.Obj o, int access, int deny, boolean created)
                throws Nfs4Exception {
            boolean readOnly = o.target().readOnly();
            boolean writes = (access & 2) != 0 || (deny & 1) != 0;
            if (writes && readOnly) {
                throw new Nfs4Exception(Nfs4Status.NFS4ERR_ROFS, "read-only export " + o.target().export().path());
            }
            Caller caller = c.caller(o.target());
            FileAttributes a = o.attributes();
            if (caller.isRoot() || (created && caller.uid() == a.uid())) {
                return;
            }
            int bits = Permissions.bits(caller, a);
            if (writes && (bits & Permissions.WRITE) == 0) {
                throw new Nfs4Exception(Nfs4Status.NFS4ERR_ACCESS, "no write permission for " + caller);
            }
            if ((access & 1) != 0 && (bits & (Permissions.READ | Permissions.EXECUTE)) == 0) {
                throw new Nfs4Exception(Nfs4Status.NFS4ERR_ACCESS, "no read permission for " + caller);
            }
        }

        @Override
        void encodeOk(XdrEncodingStream xdr) {
            encodeStateid(xdr, stateid);
            info.encode(xdr);
            xdr.xdrEncodeInt(OPEN4_RESULT_LOCKTYPE_POSIX); // nothing to confirm; Linux takes POSIX locks only so
            Fattr4.encodeBitmap(attrsSet, xdr);
            if (delegation == null) {
                int want = shareAccess & Delegations.WANT_MASK;
                if (want == Delegations.WANT_NO_PREFERENCE) {
                    xdr.xdrEncodeInt(0); // OPEN_DELEGATE_NONE
                } else if (want == Delegations.WANT_NO_DELEG) {
                    xdr.xdrEncodeInt(3); // OPEN_DELEGATE_NONE_EXT, as Linux's server answers a want
                    xdr.xdrEncodeInt(0); // WND4_NOT_WANTED
                } else {
                    xdr.xdrEncodeInt(3);
                    xdr.xdrEncodeInt(1); // WND4_CONTENTION: none now (or ever, for a write delegation)
                    xdr.xdrEncodeBoolean(false); // ond_server_will_push_deleg
                }
                return;
            }
            xdr.xdrEncodeInt(1); // OPEN_DELEGATE_READ
            encodeStateid(xdr, delegation);
            xdr.xdrEncodeBoolean(false); // recall: not yet
            // permissions: an ACE that allows nothing, as Linux's server sends: access is asked as without it
            xdr.xdrEncodeInt(0); // ACE4_ACCESS_ALLOWED_ACE_TYPE
            xdr.xdrEncodeInt(0); // flags
            xdr.xdrEncodeInt(0); // access mask
            xdr.xdrEncodeInt(0); // who: empty
        }
    }

    static final class Close extends Op {
        private Stateid stateid;
        private Stateid closed;

        Close() {
            super(Nfs4.OP_CLOSE);
        }

        @Override
        void decode(XdrDecodingStream xdr) throws BadXdrException {
            Nfs3Xdr.decodeInt(xdr); // seqid: not used in NFSv4.1
            stateid = decodeStateid(xdr);
        }

        @Override
        void execute(Compound c) throws Nfs4Exception {
            closed = c.server.clients.opens().close(c.clientId, resolve(c, stateid), c.current());
            c.currentStateid = closed;
        }

        @Override
        void encodeOk(XdrEncodingStream xdr) {
            encodeStateid(xdr, closed);
        }
    }

    static final class OpenDowngrade extends Op {
        private Stateid stateid;
        private int shareAccess;
        private int shareDeny;
        private Stateid result;

        OpenDowngrade() {
            super(Nfs4.OP_OPEN_DOWNGRADE);
        }

        @Override
        void decode(XdrDecodingStream xdr) throws BadXdrException {
            stateid = decodeStateid(xdr);
            Nfs3Xdr.decodeInt(xdr); // seqid
            shareAccess = Nfs3Xdr.decodeInt(xdr);
            shareDeny = Nfs3Xdr.decodeInt(xdr);
        }

        @Override
        void execute(Compound c) throws Nfs4Exception {
            result = c.server.clients.opens().openDowngrade(c.clientId, resolve(c, stateid), c.current(),
                    shareAccess & SHARE_MASK, shareDeny & SHARE_MASK);
            c.currentStateid = result;
        }

        @Override
        void encodeOk(XdrEncodingStream xdr) {
            encodeStateid(xdr, result);
        }
    }

    static final class TestStateid extends Op {
        private Stateid[] stateids;
        private int[] statuses;

        TestStateid() {
            super(Nfs4.OP_TEST_STATEID);
        }

        @Override
        void decode(XdrDecodingStream xdr) throws BadXdrException {
            int n = Nfs3Xdr.decodeLength(xdr, MAX_TEST_STATEIDS, "ts_stateids");
            stateids = new Stateid[n];
            for (int i = 0; i < n; i++) {
                stateids[i] = decodeStateid(xdr);
            }
        }

        @Override
        void execute(Compound c) {
            statuses = new int[stateids.length];
            for (int i = 0; i < stateids.length; i++) {
                statuses[i] = c.server.clients.opens().testStateid(c.clientId, stateids[i]);
            }
        }

        @Override
        void encodeOk(XdrEncodingStream xdr) {
            xdr.xdrEncodeInt(statuses.length);
            for (int s : statuses) {
                xdr.xdrEncodeInt(s);
            }
        }
    }

    static final class FreeStateid extends Op {
        private Stateid stateid;

        FreeStateid() {
            super(Nfs4.OP_FREE_STATEID);
        }

        @Override
        void decode(XdrDecodingStream xdr) throws BadXdrException {
            stateid = decodeStateid(xdr);
        }

        @Override
        void execute(Compound c) throws Nfs4Exception {
            int s = c.server.clients.opens().freeStateid(c.clientId, resolve(c, stateid));
            if (s != Nfs4Status.NFS4_OK) {
                throw new Nfs4Exception(s, "FREE_STATEID");
            }
        }
    }

    static final class DelegReturn extends Op {
        private Stateid stateid;

        DelegReturn() {
            super(Nfs4.OP_DELEGRETURN);
        }

        @Override
        void decode(XdrDecodingStream xdr) throws BadXdrException {
            stateid = decodeStateid(xdr);
        }

        @Override
        void execute(Compound c) throws Nfs4Exception {
            c.server.clients.delegations().delegReturn(c.clientId, resolve(c, stateid), c.current());
        }
    }
}
