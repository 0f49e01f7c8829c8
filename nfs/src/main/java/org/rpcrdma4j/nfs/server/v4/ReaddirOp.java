package org.rpcrdma4j.nfs.server.v4;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs.DirEntry;
import org.rpcrdma4j.nfs.FileAttributes;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.nfs.server.Caller;
import org.rpcrdma4j.nfs.server.ExportTable;
import org.rpcrdma4j.nfs.server.Permissions;
import org.rpcrdma4j.nfs.server.TargetChecks;
import org.rpcrdma4j.nfs.v4.Bitmap4;
import org.rpcrdma4j.nfs.v4.Fattr4;
import org.rpcrdma4j.nfs.v4.Fattr4Values;
import org.rpcrdma4j.nfs.v4.Nfs4;
import org.rpcrdma4j.nfs.v4.Nfs4Exception;
import org.rpcrdma4j.nfs.v4.Nfs4Status;
import org.rpcrdma4j.nfs.vfs.DirectoryPage;
import org.rpcrdma4j.nfs.xdr.BadXdrException;
import org.rpcrdma4j.nfs.xdr.Nfs3Xdr;

/**
 * READDIR (RFC 8881 section 18.23): the entries of the current directory from a cookie, each with the attributes
 * asked for, as many as fit {@code maxcount}. "." and ".." are never returned and cookies 1 and 2 are reserved
 * (NFS4ERR_BAD_COOKIE): the VFS's own cookies, which give 1 and 2 to its "." and "..", serve as they are. The cookie
 * verifier is the VFS's; a pseudo directory's is zero. The VFS decides whether a cookie can be resumed:
 * {@code MemoryVfs}'s and {@code LocalVfs}'s always can, so a verifier from before a change to the directory is
 * never NFS4ERR_NOT_SAME (nor is any, as with Linux's server); a cookie a VFS never gave is NFS4ERR_BAD_COOKIE. An
 * entry too large for {@code maxcount} on its own is NFS4ERR_TOOSMALL.
 */
final class ReaddirOp extends Op {
    /** The reply's fixed part: status, cookie verifier, the end-of-list bool, eof. */
    private static final int FIXED = 4 + 8 + 4 + 4;
    /** Entries asked of the VFS at a time. */
    private static final int PAGE = 256;
    /** What a caller without search permission on a directory may still have of its entries (as from Linux). */
    private static final Bitmap4 NAMES_ONLY = Bitmap4.of(Fattr4.FATTR4_RDATTR_ERROR, Fattr4.FATTR4_FILEID,
            Fattr4.FATTR4_MOUNTED_ON_FILEID).freeze();

    private long cookie;
    private byte[] verifier;
    private long maxCount;
    /** The error when not one entry fits, where the session's reply size is the bound rather than maxcount. */
    private Nfs4Exception nothingFits;
    private Bitmap4 requested;
    private final List<Entry> entries = new ArrayList<>();
    private long replyVerifier;
    private boolean eof;
    private int minor;

    private record Entry(long cookie, String name, Fattr4Values values) {
    }

    ReaddirOp() {
        super(Nfs4.OP_READDIR);
    }

    @Override
    void decode(XdrDecodingStream xdr) throws BadXdrException {
        cookie = Nfs3Xdr.decodeLong(xdr);
        verifier = Nfs3Xdr.decodeFixedOpaque(xdr, 8);
        Nfs3Xdr.decodeUint(xdr); // dircount: a hint
        maxCount = Nfs3Xdr.decodeUint(xdr);
        requested = Fattr4.decodeBitmap(xdr);
    }

    @Override
    void execute(Compound c) throws Nfs4Exception {
        Fattr4.requireGettable(requested);
        minor = c.minorVersion;
        if (cookie == 1 || cookie == 2) {
            throw new Nfs4Exception(Nfs4Status.NFS4ERR_BAD_COOKIE, "cookie " + cookie + " is reserved");
        }
        Compound.Obj dir = c.currentObject();
        if (!dir.attributes().isDirectory()) {
            throw new Nfs4Exception(Nfs4Status.NFS4ERR_NOTDIR, "not a directory");
        }
        long limit = Math.min(maxCount, c.server.limits.maxReaddir());
        long room = c.replyRoom() - 4; // the operation number precedes READDIR4res
        if (room < limit) {
            // the reply the session allows is the bound: nothing fitting it is REP_TOO_BIG, not TOOSMALL
            nothingFits = c.replyTooBig("READDIR's result");
            if (room < FIXED) {
                throw nothingFits;
            }
        }
        long budget = Math.min(limit, room) - FIXED;
        if (dir.isPseudo()) {
            pseudo(c, dir, budget);
        } else {
            export(c, dir.target(), budget);
        }
    }

    private void pseudo(Compound c, Compound.Obj dir, long budget) throws Nfs4Exception {
        List<String> names = c.server.pseudo.children(dir.path(), c.client);
        long used = 0;
        eof = true;
        // a cookie past the listing (any 64-bit value a client sends) lists nothing: it ends the listing
        for (int i = (int) Math.min(Math.max(0, cookie - 2), names.size()); i < names.size(); i++) {
            FileHandle fh = c.server.pseudo.lookup(dir.path(), names.get(i), c.client);
            Entry e = new Entry(i + 3, names.get(i), AttrOps.values(c, c.listedObject(fh), requested));
            long size = size(e);
            if (used + size > budget) {
                eof = false;
                break;
            }
            entries.add(e);
            used += size;
        }
        tooSmall();
    }

    private void export(Compound c, ExportTable.Target dir, long budget) throws Nfs4Exception {
        Caller caller = c.caller(dir);
        FileAttributes[] checked = {null};
        Compound.check(() -> checked[0] = TargetChecks.requireDir(caller, dir, Permissions.READ, "list this directory"));
        FileAttributes dirAttributes = checked[0];
        if (dirAttributes != null && (Permissions.bits(caller, dirAttributes) & Permissions.EXECUTE) == 0
                && !requested.andNot(NAMES_ONLY).isEmpty()) {
            // the entries' attributes and handles need search permission, as a lookup of each would
            throw new Nfs4Exception(Nfs4Status.NFS4ERR_ACCESS, caller + " may list this directory's names only");
        }
        long at = cookie;
        long verf = ByteBuffer.wrap(verifier).getLong();
        long used = 0;
        while (true) {
            DirectoryPage page;
            try {
                page = dir.export().vfs().readdir(dir.fh(), at, at == 0 ? 0 : verf, PAGE);
            } catch (NfsException e) {
                throw Compound.of(e);
            }
            replyVerifier = page.verifier();
            for (DirEntry d : page.entries()) {
                if (d.isDotOrDotDot()) {
                    continue;
                }
                Compound.Obj o;
                try {
                    if (d.handle() != null && d.attributes() != null) {
                        // listed with its handle and attributes: as the directory's, the export's and the client's
                        o = new Compound.Obj(dir.export().wrap(d.handle()), null,
                                new ExportTable.Target(dir.export(), d.handle(), dir.grant()), d.attributes());
                    } else {
                        FileHandle inner = d.handle() != null ? d.handle()
                                : dir.export().vfs().lookup(dir.fh(), d.name()).handle();
                        o = c.object(dir.export().wrap(inner));
                    }
                } catch (NfsException | Nfs4Exception e) {
                    continue; // removed since the listing was read
                }
                Entry e = new Entry(d.cookie(), d.name(), AttrOps.values(c, o, requested));
                long size = size(e);
                if (used + size > budget) {
                    eof = false;
                    tooSmall();
                    return;
                }
                entries.add(e);
                used += size;
            }
            if (page.eof() || page.entries().isEmpty()) {
                eof = true;
                return;
            }
            at = page.entries().get(page.entries().size() - 1).cookie();
        }
    }

    private void tooSmall() throws Nfs4Exception {
        if (entries.isEmpty() && !eof) {
            if (nothingFits != null) {
                throw nothingFits;
            }
            throw new Nfs4Exception(Nfs4Status.NFS4ERR_TOOSMALL, "maxcount " + maxCount + " holds no entry");
        }
    }

    private long size(Entry e) {
        int name = Nfs3Xdr.utf8(e.name()).length;
        return 4 + 8 + 4 + ((name + 3) & ~3) + Fattr4.encodedSize(requested, e.values(), minor);
    }

    @Override
    void encodeOk(XdrEncodingStream xdr) {
        xdr.xdrEncodeLong(replyVerifier);
        for (Entry e : entries) {
            xdr.xdrEncodeBoolean(true);
            xdr.xdrEncodeLong(e.cookie());
            Nfs3Xdr.encodeString(xdr, e.name());
            Fattr4.encode(requested, e.values(), minor, xdr);
        }
        xdr.xdrEncodeBoolean(false);
        xdr.xdrEncodeBoolean(eof);
    }
}
