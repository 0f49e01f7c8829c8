package org.rpcrdma4j.nfs.xdr;

import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs.WccData;

/** COMMIT3res: wcc data on both arms, the write verifier on success. */
public final class CommitRes extends Nfs3Result {
    public WccData wcc;
    public long verifier;

    @Override
    public void xdrDecode(XdrDecodingStream xdr) throws BadXdrException {
        status = Nfs3Xdr.decodeInt(xdr);
        wcc = Nfs3Xdr.decodeWcc(xdr);
        if (isOk()) {
            verifier = Nfs3Xdr.decodeLong(xdr);
        }
    }

    @Override
    public void xdrEncode(XdrEncodingStream xdr) {
        xdr.xdrEncodeInt(status);
        Nfs3Xdr.encodeWcc(xdr, wcc);
        if (isOk()) {
            xdr.xdrEncodeLong(verifier);
        }
    }
}
