package org.rpcrdma4j.nfs.xdr;

import java.util.ArrayList;
import java.util.List;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs.DirEntry;
import org.rpcrdma4j.nfs.FileAttributes;
import org.rpcrdma4j.nfs.FileHandle;

/**
 * READDIR3res, or READDIRPLUS3res with {@link #plus}: the directory's attributes on both arms; on success the
 * cookie verifier, the entries (a linked list on the wire) and whether the listing reached the end.
 */
public final class ReaddirRes extends Nfs3Result {
    /** Size of an {@code entry3} without its name: list discriminant, fileid, name length word, cookie. */
    public static final int ENTRY_OVERHEAD = 4 + 8 + 4 + 8;
    /** Size of the resok part around the entries: cookie verifier, end-of-list discriminant and eof. */
    public static final int RESOK_OVERHEAD = 8 + 4 + 4;

    public final boolean plus;
    public FileAttributes dirAttributes;
    public long cookieVerifier;
    public List<DirEntry> entries = List.of();
    public boolean eof;

    public ReaddirRes(boolean plus) {
        this.plus = plus;
    }

    /** Encoded size of one entry (READDIR or READDIRPLUS) whose name is {@code nameBytes} long. */
    public static int entrySize(boolean plus, int nameBytes, FileAttributes attributes, FileHandle handle) {
        int size = ENTRY_OVERHEAD + ((nameBytes + 3) & ~3);
        if (plus) {
            size += 4 + (attributes != null ? Nfs3Xdr.FATTR3_SIZE : 0);
            size += 4 + (handle != null ? Nfs3Xdr.opaqueSize(handle.length()) : 0);
        }
        return size;
    }

    @Override
    public void xdrDecode(XdrDecodingStream xdr) throws BadXdrException {
        status = Nfs3Xdr.decodeInt(xdr);
        dirAttributes = Nfs3Xdr.decodePostOpAttr(xdr);
        if (!isOk()) {
            return;
        }
        cookieVerifier = Nfs3Xdr.decodeLong(xdr);
        List<DirEntry> list = new ArrayList<>();
        while (Nfs3Xdr.decodeBool(xdr)) {
            if (list.size() >= Nfs3.DECODE_MAX_ENTRIES) {
                throw new BadXdrException("more than " + Nfs3.DECODE_MAX_ENTRIES + " directory entries");
            }
            long fileid = Nfs3Xdr.decodeLong(xdr);
            String name = Nfs3Xdr.decodeString(xdr, Nfs3.DECODE_MAX_NAME, "filename3");
            long cookie = Nfs3Xdr.decodeLong(xdr);
            FileAttributes attributes = null;
            FileHandle handle = null;
            if (plus) {
                attributes = Nfs3Xdr.decodePostOpAttr(xdr);
                handle = Nfs3Xdr.decodePostOpFileHandle(xdr);
            }
            list.add(new DirEntry(fileid, name, cookie, attributes, handle));
        }
        entries = list;
        eof = Nfs3Xdr.decodeBool(xdr);
    }

    @Override
    public void xdrEncode(XdrEncodingStream xdr) {
        xdr.xdrEncodeInt(status);
        Nfs3Xdr.encodePostOpAttr(xdr, dirAttributes);
        if (!isOk()) {
            return;
        }
        xdr.xdrEncodeLong(cookieVerifier);
        for (DirEntry e : entries) {
            xdr.xdrEncodeBoolean(true);
            xdr.xdrEncodeLong(e.fileid());
            Nfs3Xdr.encodeString(xdr, e.name());
            xdr.xdrEncodeLong(e.cookie());
            if (plus) {
                Nfs3Xdr.encodePostOpAttr(xdr, e.attributes());
                Nfs3Xdr.encodePostOpFileHandle(xdr, e.handle());
            }
        }
        xdr.xdrEncodeBoolean(false);
        xdr.xdrEncodeBoolean(eof);
    }
}
