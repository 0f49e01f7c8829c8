package org.rpcrdma4j.nfs.xdr;

import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs.FileHandle;

/** A file and a byte range: READ3args and COMMIT3args ({@code nfs_fh3 file; offset3 offset; count3 count}). */
public final class FileRangeArgs implements XdrAble {
    public FileHandle file;
    public long offset;
    /** Unsigned 32-bit count. */
    public long count;

    public FileRangeArgs() {
    }

    public FileRangeArgs(FileHandle file, long offset, long count) {
        this.file = file;
        this.offset = offset;
        this.count = count;
    }

    @Override
    public void xdrDecode(XdrDecodingStream xdr) throws BadXdrException {
        file = Nfs3Xdr.decodeFileHandle(xdr);
        offset = Nfs3Xdr.decodeLong(xdr);
        count = Nfs3Xdr.decodeUint(xdr);
    }

    @Override
    public void xdrEncode(XdrEncodingStream xdr) {
        Nfs3Xdr.encodeFileHandle(xdr, file);
        xdr.xdrEncodeLong(offset);
        xdr.xdrEncodeInt((int) count);
    }
}
