package org.rpcrdma4j.nfs.xdr;

import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs.WccData;

/** RENAME3res: both directories' wcc data on both arms. */
public final class RenameRes extends Nfs3Result {
    public WccData fromDirWcc;
    public WccData toDirWcc;

    @Override
    public void xdrDecode(XdrDecodingStream xdr) throws BadXdrException {
        status = Nfs3Xdr.decodeInt(xdr);
        fromDirWcc = Nfs3Xdr.decodeWcc(xdr);
        toDirWcc = Nfs3Xdr.decodeWcc(xdr);
    }

    @Override
    public void xdrEncode(XdrEncodingStream xdr) {
        xdr.xdrEncodeInt(status);
        Nfs3Xdr.encodeWcc(xdr, fromDirWcc);
        Nfs3Xdr.encodeWcc(xdr, toDirWcc);
    }
}
