package org.rpcrdma4j.nfs.xdr;

import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs.FileAttributes;

/** ACCESS3res: attributes on both arms, the granted bits on success. */
public final class AccessRes extends Nfs3Result {
    public FileAttributes attributes;
    public int access;

    @Override
    public void xdrDecode(XdrDecodingStream xdr) throws BadXdrException {
        status = Nfs3Xdr.decodeInt(xdr);
        attributes = Nfs3Xdr.decodePostOpAttr(xdr);
        if (isOk()) {
            access = Nfs3Xdr.decodeInt(xdr);
        }
    }

    @Override
    public void xdrEncode(XdrEncodingStream xdr) {
        xdr.xdrEncodeInt(status);
        Nfs3Xdr.encodePostOpAttr(xdr, attributes);
        if (isOk()) {
            xdr.xdrEncodeInt(access);
        }
    }
}
