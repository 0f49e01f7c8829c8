package org.rpcrdma4j.nfs.server.v4;

import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs.FileType;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.nfs.NfsObject;
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
import org.rpcrdma4j.nfs.xdr.BadXdrException;
import org.rpcrdma4j.nfs.xdr.Nfs3Xdr;

/**
 * CREATE (RFC 8881 section 18.4): a directory, a symbolic link, a device, a socket or a FIFO in the current directory,
 * which becomes the current handle. Regular files are made by OPEN (NF4REG is NFS4ERR_BADTYPE, as the RFC says).
 * Devices are made by root only ({@link TargetChecks#requireMayMake}).
 */
final class CreateOp extends Op {
    static final int NF4DIR = 2;
    static final int NF4LNK = 5;

    private int type;
    private String linkText;
    private int major;
    private int minor;
    private byte[] name;
    private SettableAttributes attrs;
    private Nfs4Exception refused;
    private ChangeInfo info;

    CreateOp() {
        super(Nfs4.OP_CREATE);
    }

    @Override
    void decode(XdrDecodingStream xdr) throws BadXdrException {
        type = Nfs3Xdr.decodeInt(xdr);
        if (type == NF4LNK) {
            linkText = Nfs3Xdr.decodeString(xdr, Nfs4.DECODE_MAX_PATH, "linktext4");
        } else if (type == Nfs4.NF4BLK || type == Nfs4.NF4CHR) {
            major = Nfs3Xdr.decodeInt(xdr);
            minor = Nfs3Xdr.decodeInt(xdr);
        }
        name = Names.decode(xdr);
        try {
            attrs = Fattr4.decodeSettable(xdr);
        } catch (Nfs4Exception e) {
            refused = e;
        }
    }

    @Override
    void execute(Compound c) throws Nfs4Exception {
        if (refused != null) {
            throw refused;
        }
        String n = Names.check(name);
        FileType special = type == NF4DIR || type == NF4LNK ? null : FileType.fromWire(type);
        if (type != NF4DIR && type != NF4LNK && (special == null || !special.isSpecial())) {
            throw new Nfs4Exception(Nfs4Status.NFS4ERR_BADTYPE, "CREATE of type " + type);
        }
        ExportTable.Target dir = DirOps.writableDirectory(c);
        Caller caller = c.caller(dir);
        SetAttributes[] owned = {attrs.attributes()};
        Compound.check(() -> {
            TargetChecks.requireDir(caller, dir, Permissions.WRITE | Permissions.EXECUTE,
                    "make a name in this directory");
            if (special != null) {
                TargetChecks.requireMayMake(caller, special);
            }
            owned[0] = TargetChecks.owned(caller, dir, owned[0], type == NF4DIR);
        });
        NfsObject[] made = new NfsObject[1];
        info = DirOps.changing(c, dir, () -> made[0] = type == NF4DIR ? dir.export().vfs().mkdir(dir.fh(), n, owned[0])
                : type == NF4LNK ? dir.export().vfs().symlink(dir.fh(), n, linkText, owned[0])
                : dir.export().vfs().mknod(dir.fh(), n, special, major, minor, owned[0]));
        c.current = dir.export().wrap(made[0].handle());
    }

    @Override
    void encodeOk(XdrEncodingStream xdr) {
        info.encode(xdr);
        Fattr4.encodeBitmap(attrs == null ? new Bitmap4() : attrs.attrmask(), xdr);
    }
}
