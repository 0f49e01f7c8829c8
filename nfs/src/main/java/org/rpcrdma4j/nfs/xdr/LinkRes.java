package org.rpcrdma4j.nfs.xdr;

import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs.FileAttributes;
import org.rpcrdma4j.nfs.WccData;

/** LINK3res: the file's attributes and the link directory's wcc data, on both arms. */
public final class LinkRes extends Nfs3Result {
    public FileAttributes attributes;
    public WccData linkDirWcc;

    @Override
    public void xdrDecode(XdrDecodingStream xdr) throws BadXdrException {
        status = Nfs3Xdr.decodeInt(xdr);
        attributes = Nfs3Xdr.decodePostOpAttr(xdr);
        linkDirWcc = Nfs3Xdr.decodeWcc(xdr);
    }

    @Override
    public void xdrEncode(XdrEncodingStream xdr) {
        xdr.xdrEncodeInt(status);
        Nfs3Xdr.encodePostOpAttr(xdr, attributes);
        Nfs3Xdr.encodeWcc(xdr, linkDirWcc);
    }
}
