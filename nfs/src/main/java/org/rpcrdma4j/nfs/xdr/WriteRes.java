package org.rpcrdma4j.nfs.xdr;

import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs.StableHow;
import org.rpcrdma4j.nfs.WccData;

/** WRITE3res: wcc data on both arms; count, how it was committed and the write verifier on success. */
public final class WriteRes extends Nfs3Result {
    public WccData wcc;
    /** Unsigned 32-bit count of bytes written. */
    public long count;
    public StableHow committed;
    public long verifier;

    @Override
    public void xdrDecode(XdrDecodingStream xdr) throws BadXdrException {
        status = Nfs3Xdr.decodeInt(xdr);
        wcc = Nfs3Xdr.decodeWcc(xdr);
        if (isOk()) {
            count = Nfs3Xdr.decodeUint(xdr);
            int how = Nfs3Xdr.decodeInt(xdr);
            committed = StableHow.fromWire(how);
            if (committed == null) {
                throw new BadXdrException("stable_how out of range: " + how);
            }
            verifier = Nfs3Xdr.decodeLong(xdr);
        }
    }

    @Override
    public void xdrEncode(XdrEncodingStream xdr) {
        xdr.xdrEncodeInt(status);
        Nfs3Xdr.encodeWcc(xdr, wcc);
        if (isOk()) {
            xdr.xdrEncodeInt((int) count);
            xdr.xdrEncodeInt(committed.wireValue());
            xdr.xdrEncodeLong(verifier);
        }
    }
}
