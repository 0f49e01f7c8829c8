package org.rpcrdma4j.nfs.xdr;

import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs.FileAttributes;
import org.rpcrdma4j.nfs.FileHandle;

/** LOOKUP3res: the object's handle and attributes, and the directory's attributes (on both arms). */
public final class LookupRes extends Nfs3Result {
    public FileHandle object;
    public FileAttributes objectAttributes;
    public FileAttributes dirAttributes;

    @Override
    public void xdrDecode(XdrDecodingStream xdr) throws BadXdrException {
        status = Nfs3Xdr.decodeInt(xdr);
        if (isOk()) {
            object = Nfs3Xdr.decodeFileHandle(xdr);
            objectAttributes = Nfs3Xdr.decodePostOpAttr(xdr);
        }
        dirAttributes = Nfs3Xdr.decodePostOpAttr(xdr);
    }

    @Override
    public void xdrEncode(XdrEncodingStream xdr) {
        xdr.xdrEncodeInt(status);
        if (isOk()) {
            Nfs3Xdr.encodeFileHandle(xdr, object);
            Nfs3Xdr.encodePostOpAttr(xdr, objectAttributes);
        }
        Nfs3Xdr.encodePostOpAttr(xdr, dirAttributes);
    }
}
