package org.rpcrdma4j.nfs.server.v4;

import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs.FileAttributes;
import org.rpcrdma4j.nfs.FsStat;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.nfs.SetAttributes;
import org.rpcrdma4j.nfs.server.AccessRights;
import org.rpcrdma4j.nfs.server.Caller;
import org.rpcrdma4j.nfs.server.Permissions;
import org.rpcrdma4j.nfs.server.ExportTable;
import org.rpcrdma4j.nfs.v4.Bitmap4;
import org.rpcrdma4j.nfs.v4.Fattr4;
import org.rpcrdma4j.nfs.v4.Fattr4Values;
import org.rpcrdma4j.nfs.v4.Nfs4;
import org.rpcrdma4j.nfs.v4.Nfs4Exception;
import org.rpcrdma4j.nfs.v4.Nfs4Status;
import org.rpcrdma4j.nfs.v4.SettableAttributes;
import org.rpcrdma4j.nfs.xdr.BadXdrException;
import org.rpcrdma4j.nfs.xdr.Nfs3Xdr;

/** GETATTR, SETATTR and ACCESS (RFC 8881 sections 18.7, 18.30, 18.1), and the attribute values of an object. */
final class AttrOps {
    /** The attributes that need the file system's statistics (one FSSTAT of the VFS). */
    private static final Bitmap4 FS_STATISTICS = Bitmap4.of(Fattr4.FATTR4_FILES_AVAIL, Fattr4.FATTR4_FILES_FREE,
            Fattr4.FATTR4_FILES_TOTAL, Fattr4.FATTR4_SPACE_AVAIL, Fattr4.FATTR4_SPACE_FREE,
            Fattr4.FATTR4_SPACE_TOTAL);
    /** Every ACCESS bit of RFC 8881 (the NFSv3 ones); the extended-attribute bits of RFC 8276 are not supported. */
    private static final int ACCESS4_ALL = 0x3f;

    private AttrOps() {
    }

    /**
     * The attribute values of {@code o} for a request of {@code requested}: its attributes, handle and change, its
     * file system (pseudo directories have fsid 0.0, each export its own), the server's limits and lease, whether
     * the file system makes hard links ({@code link_support}, and {@code maxlink} from the VFS's {@code linkMax});
     * the file system's statistics only when asked for. Owners are numeric, as clients expect with id mapping off.
     */
    static Fattr4Values values(Compound c, Compound.Obj o, Bitmap4 requested) {
        FileAttributes a = o.attributes();
        // change: the ctime, declared so (change_attr_type TIME_METADATA): a client then orders the attributes of
        // replies that cross by their change attribute, instead of taking a later one as a change by someone else
        Fattr4Values.Builder b = Fattr4Values.builder(a)
                .fileHandle(o.wire().toByteArray())
                .change(Fattr4Values.changeOf(a))
                .changeAttrType(Fattr4.NFS4_CHANGE_TYPE_IS_TIME_METADATA)
                .maxRead(c.server.limits.maxRead())
                .maxWrite(c.server.limits.maxWrite())
                .maxName(Names.MAX_NAME)
                .leaseSeconds(c.server.clients.leaseTimeSeconds())
                .owner(Integer.toString(a.uid()))
                .ownerGroup(Integer.toString(a.gid()));
        if (o.isPseudo()) {
            b.fsid(PseudoFs.PSEUDO_FSID, 0).mountedOnFileid(a.fileid()).maxFileSize(0).maxLink(1).linkSupport(false);
        } else {
            ExportTable.Target t = o.target();
            boolean root = t.fh().equals(t.export().vfs().root());
            int linkMax = t.export().vfs().linkMax();
            b.fsid(PseudoFs.fsidMajor(t.export()), 0).maxLink(linkMax).linkSupport(linkMax > 1)
                    .mountedOnFileid(root && !t.export().path().equals("/")
                            ? PseudoFs.fileid(t.export().path()) : a.fileid())
                    .maxFileSize(t.export().vfs().maxFileSize());
            if (!requested.and(FS_STATISTICS).isEmpty()) {
                try {
                    FsStat s = t.export().vfs().fsstat(t.fh());
                    b.fsStat(s);
                } catch (NfsException e) {
                    // left out: the attributes are then not returned
                }
            }
        }
        return b.build();
    }

    static final class GetAttr extends Op {
        private Bitmap4 requested;
        private Fattr4Values values;
        private int minor;

        GetAttr() {
            super(Nfs4.OP_GETATTR);
        }

        @Override
        void decode(XdrDecodingStream xdr) throws BadXdrException {
            requested = Fattr4.decodeBitmap(xdr);
        }

        @Override
        void execute(Compound c) throws Nfs4Exception {
            Fattr4.requireGettable(requested);
            values = values(c, c.currentObject(), requested);
            minor = c.minorVersion;
        }

        @Override
        void encodeOk(XdrEncodingStream xdr) {
            Fattr4.encode(requested, values, minor, xdr);
        }
    }

    static final class SetAttr extends Op {
        private org.rpcrdma4j.nfs.v4.state.Stateid stateid;
        private SettableAttributes set;
        private Nfs4Exception refused;
        private Bitmap4 done = new Bitmap4();

        SetAttr() {
            super(Nfs4.OP_SETATTR);
        }

        @Override
        void decode(XdrDecodingStream xdr) throws BadXdrException {
            stateid = StateOps.decodeStateid(xdr);
            try {
                set = Fattr4.decodeSettable(xdr);
            } catch (Nfs4Exception e) {
                refused = e; // an attribute this server cannot set: the operation's status
            }
        }

        @Override
        void execute(Compound c) throws Nfs4Exception {
            if (refused != null) {
                throw refused;
            }
            Compound.Obj o = c.currentObject();
            if (o.isPseudo()) {
                throw new Nfs4Exception(Nfs4Status.NFS4ERR_ROFS, "a directory of the pseudo file system");
            }
            ExportTable.Target t = c.writableTarget();
            if (set.attributes().size() != null) {
                if (o.attributes().isDirectory()) {
                    throw new Nfs4Exception(Nfs4Status.NFS4ERR_ISDIR, "size of a directory");
                }
                if (!o.attributes().isRegularFile()) {
                    throw new Nfs4Exception(Nfs4Status.NFS4ERR_INVAL, "size of a special file");
                }
                StateOps.checkIo(c, stateid, true);
            }
            Caller caller = c.caller(t);
            SetAttributes[] attributes = {set.attributes()};
            if (!caller.isRoot()) {
                Compound.check(() -> attributes[0] = Permissions.requireSetattr(caller, o.attributes(), attributes[0]));
            }
            if (!o.attributes().isDirectory()) {
                c.server.delegations.beforeChange(c, c.current());
            }
            if (o.attributes().isDirectory()) {
                // under the directory's hold: a change of it another call brackets is its only one
                DirOps.changing(c, t, () -> t.export().vfs().setattr(t.fh(), attributes[0], null));
            } else {
                try {
                    t.export().vfs().setattr(t.fh(), attributes[0], null);
                } catch (NfsException e) {
                    throw Compound.of(e);
                }
            }
            done = set.attrmask();
        }

        @Override
        void encodeOk(XdrEncodingStream xdr) {
            Fattr4.encodeBitmap(done, xdr);
        }

        @Override
        void encodeError(XdrEncodingStream xdr) {
            Fattr4.encodeBitmap(new Bitmap4(), xdr); // SETATTR4res carries attrsset whatever the status
        }
    }

    static final class Access extends Op {
        private int asked;
        private int supported;
        private int allowed;

        Access() {
            super(Nfs4.OP_ACCESS);
        }

        @Override
        void decode(XdrDecodingStream xdr) throws BadXdrException {
            asked = Nfs3Xdr.decodeInt(xdr);
        }

        @Override
        void execute(Compound c) throws Nfs4Exception {
            Compound.Obj o = c.currentObject();
            supported = asked & ACCESS4_ALL;
            boolean readOnly = o.isPseudo() || o.target().readOnly();
            Caller caller = o.isPseudo() ? Caller.of(c.call, null) : c.caller(o.target());
            allowed = supported & AccessRights.allowed(caller, o.attributes(), readOnly);
        }

        @Override
        void encodeOk(XdrEncodingStream xdr) {
            xdr.xdrEncodeInt(supported);
            xdr.xdrEncodeInt(allowed);
        }
    }
}
