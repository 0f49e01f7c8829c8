package org.rpcrdma4j.nfs.server.v4;

import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs.FileAttributes;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.nfs.server.Caller;
import org.rpcrdma4j.nfs.server.DirectoryChanges;
import org.rpcrdma4j.nfs.server.ExportTable;
import org.rpcrdma4j.nfs.server.TargetChecks;
import org.rpcrdma4j.nfs.v4.Nfs4;
import org.rpcrdma4j.nfs.v4.Nfs4Exception;
import org.rpcrdma4j.nfs.v4.Nfs4Status;
import org.rpcrdma4j.nfs.vfs.Vfs;
import org.rpcrdma4j.nfs.xdr.BadXdrException;

/** REMOVE, RENAME and READLINK (RFC 8881 sections 18.25, 18.26, 18.24); LINK is {@link LinkOp}. */
final class DirOps {
    private DirOps() {
    }

    /** The current handle as a directory of an export that may change. */
    static ExportTable.Target writableDirectory(Compound c) throws Nfs4Exception {
        Compound.Obj o = c.currentObject();
        if (!o.attributes().isDirectory()) {
            throw new Nfs4Exception(Nfs4Status.NFS4ERR_NOTDIR, "not a directory");
        }
        if (o.isPseudo()) {
            throw new Nfs4Exception(Nfs4Status.NFS4ERR_ROFS, "a directory of the pseudo file system");
        }
        return c.writableTarget();
    }

    /** Runs {@code change} of {@code dir} under its hold ({@link DirectoryChanges}): what it did to the directory. */
    static ChangeInfo changing(Compound c, ExportTable.Target dir, DirectoryChanges.Change<Nfs4Exception> change)
            throws Nfs4Exception {
        DirectoryChanges.Seen seen = new DirectoryChanges.Seen();
        try {
            c.server.exports.directoryChanges().change(dir, seen, change);
        } catch (NfsException e) {
            throw Compound.of(e);
        }
        return ChangeInfo.of(seen);
    }

    static final class Remove extends Op {
        private byte[] name;
        private ChangeInfo info;

        Remove() {
            super(Nfs4.OP_REMOVE);
        }

        @Override
        void decode(XdrDecodingStream xdr) throws BadXdrException {
            name = Names.decode(xdr);
        }

        @Override
        void execute(Compound c) throws Nfs4Exception {
            String n = Names.check(name);
            ExportTable.Target dir = writableDirectory(c);
            Vfs vfs = dir.export().vfs();
            Compound.check(() -> TargetChecks.requireRemove(c.caller(dir), dir, n));
            c.server.delegations.beforeNameChange(c, dir, n);
            info = changing(c, dir, () -> {
                FileAttributes a = vfs.lookup(dir.fh(), n).attributes();
                if (a != null && a.isDirectory()) {
                    vfs.rmdir(dir.fh(), n);
                } else {
                    vfs.remove(dir.fh(), n);
                }
            });
        }

        @Override
        void encodeOk(XdrEncodingStream xdr) {
            info.encode(xdr);
        }
    }

    /** RENAME: from the saved directory to the current one. */
    static final class Rename extends Op {
        private byte[] from;
        private byte[] to;
        private ChangeInfo source;
        private ChangeInfo target;

        Rename() {
            super(Nfs4.OP_RENAME);
        }

        @Override
        void decode(XdrDecodingStream xdr) throws BadXdrException {
            from = Names.decode(xdr);
            to = Names.decode(xdr);
        }

        @Override
        void execute(Compound c) throws Nfs4Exception {
            if (c.saved == null) {
                throw new Nfs4Exception(Nfs4Status.NFS4ERR_NOFILEHANDLE, "no saved file handle");
            }
            String f = Names.check(from);
            String t = Names.check(to);
            ExportTable.Target toDir = writableDirectory(c);
            Compound.Obj fromObj = c.object(c.saved);
            if (fromObj.isPseudo() || !fromObj.attributes().isDirectory()) {
                throw new Nfs4Exception(fromObj.isPseudo() ? Nfs4Status.NFS4ERR_ROFS : Nfs4Status.NFS4ERR_NOTDIR,
                        "the saved handle is no directory that may change");
            }
            ExportTable.Target fromDir = fromObj.target();
            if (fromDir.export() != toDir.export()) {
                throw new Nfs4Exception(Nfs4Status.NFS4ERR_XDEV, "rename across exports");
            }
            Caller caller = c.caller(fromDir);
            if (!caller.isRoot()) {
                Compound.check(() -> TargetChecks.requireRename(caller, fromDir, f, toDir, t));
            }
            c.server.delegations.beforeNameChange(c, fromDir, f);
            c.server.delegations.beforeNameChange(c, toDir, t);
            DirectoryChanges.Seen fromSeen = new DirectoryChanges.Seen();
            DirectoryChanges.Seen toSeen = new DirectoryChanges.Seen();
            try {
                c.server.exports.directoryChanges().change(fromDir, fromSeen, toDir, toSeen,
                        () -> toDir.export().vfs().rename(fromDir.fh(), f, toDir.fh(), t));
            } catch (NfsException e) {
                throw Compound.of(e);
            }
            source = ChangeInfo.of(fromSeen);
            target = ChangeInfo.of(toSeen);
        }

        @Override
        void encodeOk(XdrEncodingStream xdr) {
            source.encode(xdr);
            target.encode(xdr);
        }
    }

    static final class ReadLink extends Op.NoArgs {
        private String text;

        ReadLink() {
            super(Nfs4.OP_READLINK);
        }

        @Override
        void execute(Compound c) throws Nfs4Exception {
            Compound.Obj o = c.currentObject();
            if (!o.attributes().isSymlink()) {
                throw new Nfs4Exception(Nfs4Status.NFS4ERR_INVAL, "not a symbolic link");
            }
            try {
                text = o.target().export().vfs().readlink(o.target().fh());
            } catch (NfsException e) {
                throw Compound.of(e);
            }
        }

        @Override
        void encodeOk(XdrEncodingStream xdr) {
            org.rpcrdma4j.nfs.xdr.Nfs3Xdr.encodeString(xdr, text);
        }
    }
}
