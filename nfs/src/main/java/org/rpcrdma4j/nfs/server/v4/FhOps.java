package org.rpcrdma4j.nfs.server.v4;

import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.nfs.NfsObject;
import org.rpcrdma4j.nfs.server.ExportTable;
import org.rpcrdma4j.nfs.server.Permissions;
import org.rpcrdma4j.nfs.server.TargetChecks;
import org.rpcrdma4j.nfs.v4.Nfs4;
import org.rpcrdma4j.nfs.v4.Nfs4Exception;
import org.rpcrdma4j.nfs.v4.Nfs4Status;
import org.rpcrdma4j.nfs.xdr.BadXdrException;
import org.rpcrdma4j.nfs.xdr.Nfs3Xdr;

/**
 * The operations that move the current file handle (RFC 8881 sections 18.19-18.22, 18.13-18.15, 18.27-18.28):
 * PUTFH, PUTROOTFH, PUTPUBFH, GETFH, SAVEFH, RESTOREFH, LOOKUP, LOOKUPP; and the security negotiation that comes
 * with the name space, SECINFO and SECINFO_NO_NAME (AUTH_SYS only; both consume the current file handle).
 */
final class FhOps {
    /** {@code AUTH_SYS}: the one flavor this server offers. */
    static final int AUTH_SYS = 1;

    private FhOps() {
    }

    static final class PutFh extends Op {
        private FileHandle fh;

        PutFh() {
            super(Nfs4.OP_PUTFH);
        }

        @Override
        void decode(XdrDecodingStream xdr) throws BadXdrException {
            fh = FileHandle.wrap(Nfs3Xdr.decodeOpaque(xdr, Nfs4.FHSIZE, "nfs_fh4"));
        }

        @Override
        void execute(Compound c) throws Nfs4Exception {
            if (fh.length() == 0) {
                throw new Nfs4Exception(Nfs4Status.NFS4ERR_BADHANDLE, "empty handle");
            }
            c.object(fh); // stale or bad handles fail here, as RFC 8881 lets PUTFH report them
            c.current = fh;
        }
    }

    static final class PutRootFh extends Op.NoArgs {
        PutRootFh(int opcode) {
            super(opcode); // PUTROOTFH, and PUTPUBFH: this server's public file handle is its root
        }

        @Override
        void execute(Compound c) {
            c.current = c.server.pseudo.root(c.client);
        }
    }

    static final class GetFh extends Op.NoArgs {
        private FileHandle fh;

        GetFh() {
            super(Nfs4.OP_GETFH);
        }

        @Override
        void execute(Compound c) throws Nfs4Exception {
            fh = c.current();
        }

        @Override
        void encodeOk(XdrEncodingStream xdr) {
            Nfs3Xdr.encodeOpaque(xdr, fh.unsafeBytes());
        }
    }

    static final class SaveFh extends Op.NoArgs {
        SaveFh() {
            super(Nfs4.OP_SAVEFH);
        }

        @Override
        void execute(Compound c) throws Nfs4Exception {
            c.saved = c.current();
            c.savedStateid = c.currentStateid; // RFC 8881 section 16.2.3.1.2: saved and restored with the handle
        }
    }

    static final class RestoreFh extends Op.NoArgs {
        RestoreFh() {
            super(Nfs4.OP_RESTOREFH);
        }

        @Override
        void execute(Compound c) throws Nfs4Exception {
            if (c.saved == null) {
                throw new Nfs4Exception(Nfs4Status.NFS4ERR_RESTOREFH, "no saved file handle");
            }
            c.current = c.saved;
            c.currentStateid = c.savedStateid;
        }
    }

    static final class Lookup extends Op {
        private byte[] name;

        Lookup() {
            super(Nfs4.OP_LOOKUP);
        }

        @Override
        void decode(XdrDecodingStream xdr) throws BadXdrException {
            name = Names.decode(xdr);
        }

        @Override
        void execute(Compound c) throws Nfs4Exception {
            c.current = lookup(c, c.currentObject(), Names.check(name));
        }
    }

    /** The handle of {@code name} in the directory {@code dir}, a pseudo directory or one of an export. */
    static FileHandle lookup(Compound c, Compound.Obj dir, String name) throws Nfs4Exception {
        if (!dir.attributes().isDirectory()) {
            throw new Nfs4Exception(dir.attributes().isSymlink() ? Nfs4Status.NFS4ERR_SYMLINK
                    : Nfs4Status.NFS4ERR_NOTDIR, "not a directory");
        }
        if (dir.isPseudo()) {
            return c.server.pseudo.lookup(dir.path(), name, c.client);
        }
        ExportTable.Target t = dir.target();
        Compound.check(() -> TargetChecks.requireDir(c.caller(t), t, Permissions.EXECUTE, "search this directory"));
        try {
            NfsObject o = t.export().vfs().lookup(t.fh(), name);
            return t.export().wrap(o.handle());
        } catch (NfsException e) {
            throw Compound.of(e);
        }
    }

    static final class LookupP extends Op.NoArgs {
        LookupP() {
            super(Nfs4.OP_LOOKUPP);
        }

        @Override
        void execute(Compound c) throws Nfs4Exception {
            Compound.Obj o = c.currentObject();
            if (!o.attributes().isDirectory()) {
                throw new Nfs4Exception(o.attributes().isSymlink() ? Nfs4Status.NFS4ERR_SYMLINK
                        : Nfs4Status.NFS4ERR_NOTDIR, "not a directory");
            }
            if (o.isPseudo()) {
                c.current = c.server.pseudo.parent(o.path());
                return;
            }
            ExportTable.Target t = o.target();
            Compound.check(() -> TargetChecks.requireDir(c.caller(t), t, Permissions.EXECUTE,
                    "search this directory"));
            if (t.fh().equals(t.export().vfs().root())) {
                if (t.export().path().equals("/")) {
                    throw new Nfs4Exception(Nfs4Status.NFS4ERR_NOENT, "the root has no parent");
                }
                c.current = c.server.pseudo.parent(t.export().path());
                return;
            }
            try {
                c.current = t.export().wrap(t.export().vfs().lookup(t.fh(), "..").handle());
            } catch (NfsException e) {
                throw Compound.of(e);
            }
        }
    }

    /** SECINFO (a name in the current directory) and SECINFO_NO_NAME: AUTH_SYS; the current handle is consumed. */
    static final class SecInfo extends Op {
        private byte[] name;
        private int style;

        SecInfo(int opcode) {
            super(opcode);
        }

        @Override
        void decode(XdrDecodingStream xdr) throws BadXdrException {
            if (opcode == Nfs4.OP_SECINFO) {
                name = Names.decode(xdr);
            } else {
                style = Nfs3Xdr.decodeInt(xdr);
            }
        }

        @Override
        void execute(Compound c) throws Nfs4Exception {
            Compound.Obj o = c.currentObject();
            if (name != null) {
                lookup(c, o, Names.check(name));
            } else if (style == 1) { // SECINFO_STYLE4_PARENT
                if (o.isPseudo() && o.path().equals("/")) {
                    throw new Nfs4Exception(Nfs4Status.NFS4ERR_NOENT, "the root has no parent");
                }
            } else if (style != 0) {
                throw new Nfs4Exception(Nfs4Status.NFS4ERR_INVAL, "secinfo_style4 " + style);
            }
            c.current = null;
        }

        @Override
        void encodeOk(XdrEncodingStream xdr) {
            xdr.xdrEncodeInt(1);
            xdr.xdrEncodeInt(AUTH_SYS);
        }
    }
}
