package org.rpcrdma4j.nfs.xdr;

import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs.FileAttributes;
import org.rpcrdma4j.nfs.PathConf;

/** PATHCONF3res. */
public final class PathconfRes extends Nfs3Result {
    public FileAttributes attributes;
    public PathConf pathconf;

    @Override
    public void xdrDecode(XdrDecodingStream xdr) throws BadXdrException {
        status = Nfs3Xdr.decodeInt(xdr);
        attributes = Nfs3Xdr.decodePostOpAttr(xdr);
        if (isOk()) {
            pathconf = new PathConf(Nfs3Xdr.decodeInt(xdr), Nfs3Xdr.decodeInt(xdr), Nfs3Xdr.decodeBool(xdr),
                    Nfs3Xdr.decodeBool(xdr), Nfs3Xdr.decodeBool(xdr), Nfs3Xdr.decodeBool(xdr));
        }
    }

    @Override
    public void xdrEncode(XdrEncodingStream xdr) {
        xdr.xdrEncodeInt(status);
        Nfs3Xdr.encodePostOpAttr(xdr, attributes);
        if (isOk()) {
            xdr.xdrEncodeInt(pathconf.linkMax());
            xdr.xdrEncodeInt(pathconf.nameMax());
            xdr.xdrEncodeBoolean(pathconf.noTrunc());
            xdr.xdrEncodeBoolean(pathconf.chownRestricted());
            xdr.xdrEncodeBoolean(pathconf.caseInsensitive());
            xdr.xdrEncodeBoolean(pathconf.casePreserving());
        }
    }
}
