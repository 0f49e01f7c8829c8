package org.rpcrdma4j.nfs.xdr;

import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs.FileAttributes;

/** GETATTR3res: the attributes on success, nothing otherwise. */
public final class GetattrRes extends Nfs3Result {
    public FileAttributes attributes;

    @Override
    public void xdrDecode(XdrDecodingStream xdr) throws BadXdrException {
        status = Nfs3Xdr.decodeInt(xdr);
        if (isOk()) {
            attributes = Nfs3Xdr.decodeFattr(xdr);
        }
    }

    @Override
    public void xdrEncode(XdrEncodingStream xdr) {
        xdr.xdrEncodeInt(status);
        if (isOk()) {
            Nfs3Xdr.encodeFattr(xdr, attributes);
        }
    }
}
