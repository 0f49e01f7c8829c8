package org.rpcrdma4j.nfs.server.v4;

import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.nfs.server.Caller;
import org.rpcrdma4j.nfs.server.ExportTable;
import org.rpcrdma4j.nfs.server.Permissions;
import org.rpcrdma4j.nfs.server.TargetChecks;
import org.rpcrdma4j.nfs.v4.Nfs4;
import org.rpcrdma4j.nfs.v4.Nfs4Exception;
import org.rpcrdma4j.nfs.v4.Nfs4Status;
import org.rpcrdma4j.nfs.xdr.BadXdrException;

/**
 * LINK (RFC 8881 section 18.9): a new name in the current directory for the saved handle's object, checked in the order
 * Linux's server checks: the directory (NFS4ERR_NOTDIR; NFS4ERR_ROFS for a read-only export or the pseudo file system;
 * NFS4ERR_ACCESS without write and search permission on it, the object needing none), then the object (NFS4ERR_ISDIR
 * for a directory, NFS4ERR_XDEV in another export), then the VFS's answer (NFS4ERR_EXIST, NFS4ERR_MLINK,
 * NFS4ERR_NOTSUPP where it makes no links). Both handles stay as they are.
 */
final class LinkOp extends Op {
    private byte[] name;
    private ChangeInfo info;

    LinkOp() {
        super(Nfs4.OP_LINK);
    }

    @Override
    void decode(XdrDecodingStream xdr) throws BadXdrException {
        name = Names.decode(xdr);
    }

    @Override
    void execute(Compound c) throws Nfs4Exception {
        if (c.saved == null) {
            throw new Nfs4Exception(Nfs4Status.NFS4ERR_NOFILEHANDLE, "no saved file handle");
        }
        String n = Names.check(name);
        ExportTable.Target dir = DirOps.writableDirectory(c);
        Caller caller = c.caller(dir);
        Compound.check(() -> TargetChecks.requireDir(caller, dir, Permissions.WRITE | Permissions.EXECUTE,
                "make a name in this directory"));
        Compound.Obj file = c.object(c.saved);
        if (file.attributes().isDirectory()) {
            throw new Nfs4Exception(Nfs4Status.NFS4ERR_ISDIR, "a directory has one name only");
        }
        if (file.export() != dir.export()) {
            throw new Nfs4Exception(Nfs4Status.NFS4ERR_XDEV, "link across exports");
        }
        c.server.delegations.beforeChange(c, c.saved);
        info = DirOps.changing(c, dir, () -> dir.export().vfs().link(file.target().fh(), dir.fh(), n));
    }

    @Override
    void encodeOk(XdrEncodingStream xdr) {
        info.encode(xdr);
    }
}
