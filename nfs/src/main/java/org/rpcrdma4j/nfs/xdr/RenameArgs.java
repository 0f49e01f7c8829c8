package org.rpcrdma4j.nfs.xdr;

import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs.FileHandle;

/** RENAME3args: two {@code diropargs3}. */
public final class RenameArgs implements XdrAble {
    public FileHandle fromDir;
    public String fromName;
    public FileHandle toDir;
    public String toName;

    public RenameArgs() {
    }

    public RenameArgs(FileHandle fromDir, String fromName, FileHandle toDir, String toName) {
        this.fromDir = fromDir;
        this.fromName = fromName;
        this.toDir = toDir;
        this.toName = toName;
    }

    @Override
    public void xdrDecode(XdrDecodingStream xdr) throws BadXdrException {
        fromDir = Nfs3Xdr.decodeFileHandle(xdr);
        fromName = Nfs3Xdr.decodeString(xdr, Nfs3.DECODE_MAX_NAME, "filename3");
        toDir = Nfs3Xdr.decodeFileHandle(xdr);
        toName = Nfs3Xdr.decodeString(xdr, Nfs3.DECODE_MAX_NAME, "filename3");
    }

    @Override
    public void xdrEncode(XdrEncodingStream xdr) {
        Nfs3Xdr.encodeFileHandle(xdr, fromDir);
        Nfs3Xdr.encodeString(xdr, fromName);
        Nfs3Xdr.encodeFileHandle(xdr, toDir);
        Nfs3Xdr.encodeString(xdr, toName);
    }
}
