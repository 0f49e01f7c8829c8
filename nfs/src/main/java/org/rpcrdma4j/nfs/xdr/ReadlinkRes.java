package org.rpcrdma4j.nfs.xdr;

import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs.FileAttributes;

/** READLINK3res: the link's attributes on both arms, its contents (DDP-eligible) on success. */
public final class ReadlinkRes extends Nfs3Result {
    public FileAttributes attributes;
    public String target;

    @Override
    public void xdrDecode(XdrDecodingStream xdr) throws BadXdrException {
        status = Nfs3Xdr.decodeInt(xdr);
        attributes = Nfs3Xdr.decodePostOpAttr(xdr);
        if (isOk()) {
            target = Nfs3Xdr.decodeString(xdr, Nfs3.DECODE_MAX_PATH, "nfspath3");
        }
    }

    @Override
    public void xdrEncode(XdrEncodingStream xdr) {
        xdr.xdrEncodeInt(status);
        Nfs3Xdr.encodePostOpAttr(xdr, attributes);
        if (isOk()) {
            Nfs3Xdr.encodeString(xdr, target);
        }
    }
}
