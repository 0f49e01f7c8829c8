package org.rpcrdma4j.nfs.xdr;

import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs.FileAttributes;
import org.rpcrdma4j.nfs.FsInfo;

/** FSINFO3res. */
public final class FsinfoRes extends Nfs3Result {
    public FileAttributes attributes;
    public FsInfo fsinfo;

    @Override
    public void xdrDecode(XdrDecodingStream xdr) throws BadXdrException {
        status = Nfs3Xdr.decodeInt(xdr);
        attributes = Nfs3Xdr.decodePostOpAttr(xdr);
        if (isOk()) {
            fsinfo = new FsInfo(Nfs3Xdr.decodeInt(xdr), Nfs3Xdr.decodeInt(xdr), Nfs3Xdr.decodeInt(xdr),
                    Nfs3Xdr.decodeInt(xdr), Nfs3Xdr.decodeInt(xdr), Nfs3Xdr.decodeInt(xdr), Nfs3Xdr.decodeInt(xdr),
                    Nfs3Xdr.decodeLong(xdr), Nfs3Xdr.decodeTime(xdr), Nfs3Xdr.decodeInt(xdr));
        }
    }

    @Override
    public void xdrEncode(XdrEncodingStream xdr) {
        xdr.xdrEncodeInt(status);
        Nfs3Xdr.encodePostOpAttr(xdr, attributes);
        if (isOk()) {
            xdr.xdrEncodeInt(fsinfo.rtmax());
            xdr.xdrEncodeInt(fsinfo.rtpref());
            xdr.xdrEncodeInt(fsinfo.rtmult());
            xdr.xdrEncodeInt(fsinfo.wtmax());
            xdr.xdrEncodeInt(fsinfo.wtpref());
            xdr.xdrEncodeInt(fsinfo.wtmult());
            xdr.xdrEncodeInt(fsinfo.dtpref());
            xdr.xdrEncodeLong(fsinfo.maxFileSize());
            Nfs3Xdr.encodeTime(xdr, fsinfo.timeDelta());
            xdr.xdrEncodeInt(fsinfo.properties());
        }
    }
}
