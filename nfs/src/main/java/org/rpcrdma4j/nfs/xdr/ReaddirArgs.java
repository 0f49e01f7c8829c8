package org.rpcrdma4j.nfs.xdr;

import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs.FileHandle;

/**
 * READDIR3args and READDIRPLUS3args (with {@link #plus}): where to resume ({@code cookie} and its verifier) and how
 * many bytes the reply may take. For READDIR {@link #maxCount} is {@code count} and {@link #dirCount} is unused.
 */
public final class ReaddirArgs implements XdrAble {
    public final boolean plus;
    public FileHandle dir;
    public long cookie;
    public long cookieVerifier;
    /** READDIRPLUS {@code dircount}: bytes of directory information (fileid, name, cookie); unsigned 32-bit. */
    public long dirCount;
    /** READDIR {@code count} / READDIRPLUS {@code maxcount}: size of the whole result; unsigned 32-bit. */
    public long maxCount;

    public ReaddirArgs(boolean plus) {
        this.plus = plus;
    }

    public ReaddirArgs(boolean plus, FileHandle dir, long cookie, long cookieVerifier, long dirCount, long maxCount) {
        this.plus = plus;
        this.dir = dir;
        this.cookie = cookie;
        this.cookieVerifier = cookieVerifier;
        this.dirCount = dirCount;
        this.maxCount = maxCount;
    }

    @Override
    public void xdrDecode(XdrDecodingStream xdr) throws BadXdrException {
        dir = Nfs3Xdr.decodeFileHandle(xdr);
        cookie = Nfs3Xdr.decodeLong(xdr);
        cookieVerifier = Nfs3Xdr.decodeLong(xdr);
        if (plus) {
            dirCount = Nfs3Xdr.decodeUint(xdr);
        }
        maxCount = Nfs3Xdr.decodeUint(xdr);
    }

    @Override
    public void xdrEncode(XdrEncodingStream xdr) {
        Nfs3Xdr.encodeFileHandle(xdr, dir);
        xdr.xdrEncodeLong(cookie);
        xdr.xdrEncodeLong(cookieVerifier);
        if (plus) {
            xdr.xdrEncodeInt((int) dirCount);
        }
        xdr.xdrEncodeInt((int) maxCount);
    }
}
