package org.rpcrdma4j.nfs.xdr;

import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs.FileAttributes;
import org.rpcrdma4j.nfs.FsStat;

/** FSSTAT3res. */
public final class FsstatRes extends Nfs3Result {
    public FileAttributes attributes;
    public FsStat fsstat;

    @Override
    public void xdrDecode(XdrDecodingStream xdr) throws BadXdrException {
        status = Nfs3Xdr.decodeInt(xdr);
        attributes = Nfs3Xdr.decodePostOpAttr(xdr);
        if (isOk()) {
            fsstat = new FsStat(Nfs3Xdr.decodeLong(xdr), Nfs3Xdr.decodeLong(xdr), Nfs3Xdr.decodeLong(xdr),
                    Nfs3Xdr.decodeLong(xdr), Nfs3Xdr.decodeLong(xdr), Nfs3Xdr.decodeLong(xdr), Nfs3Xdr.decodeInt(xdr));
        }
    }

    @Override
    public void xdrEncode(XdrEncodingStream xdr) {
        xdr.xdrEncodeInt(status);
        Nfs3Xdr.encodePostOpAttr(xdr, attributes);
        if (isOk()) {
            xdr.xdrEncodeLong(fsstat.totalBytes());
            xdr.xdrEncodeLong(fsstat.freeBytes());
            xdr.xdrEncodeLong(fsstat.availableBytes());
            xdr.xdrEncodeLong(fsstat.totalFiles());
            xdr.xdrEncodeLong(fsstat.freeFiles());
            xdr.xdrEncodeLong(fsstat.availableFiles());
            xdr.xdrEncodeInt(fsstat.invarSeconds());
        }
    }
}
