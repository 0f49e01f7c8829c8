package org.rpcrdma4j.nfs.xdr;

import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs.WccData;

/** Results that are one {@code wcc_data} on either arm: SETATTR3res, REMOVE3res, RMDIR3res. */
public final class WccRes extends Nfs3Result {
    public WccData wcc;

    @Override
    public void xdrDecode(XdrDecodingStream xdr) throws BadXdrException {
        status = Nfs3Xdr.decodeInt(xdr);
        wcc = Nfs3Xdr.decodeWcc(xdr);
    }

    @Override
    public void xdrEncode(XdrEncodingStream xdr) {
        xdr.xdrEncodeInt(status);
        Nfs3Xdr.encodeWcc(xdr, wcc);
    }
}
