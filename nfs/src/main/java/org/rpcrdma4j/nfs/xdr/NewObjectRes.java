package org.rpcrdma4j.nfs.xdr;

import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs.FileAttributes;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.WccData;

/**
 * The result of procedures that make a new object (CREATE3res, MKDIR3res, SYMLINK3res, MKNOD3res): its optional
 * handle and attributes on success, the directory's wcc data on both arms.
 */
public final class NewObjectRes extends Nfs3Result {
    public FileHandle object;
    public FileAttributes attributes;
    public WccData dirWcc;

    @Override
    public void xdrDecode(XdrDecodingStream xdr) throws BadXdrException {
        status = Nfs3Xdr.decodeInt(xdr);
        if (isOk()) {
            object = Nfs3Xdr.decodePostOpFileHandle(xdr);
            attributes = Nfs3Xdr.decodePostOpAttr(xdr);
        }
        dirWcc = Nfs3Xdr.decodeWcc(xdr);
    }

    @Override
    public void xdrEncode(XdrEncodingStream xdr) {
        xdr.xdrEncodeInt(status);
        if (isOk()) {
            Nfs3Xdr.encodePostOpFileHandle(xdr, object);
            Nfs3Xdr.encodePostOpAttr(xdr, attributes);
        }
        Nfs3Xdr.encodeWcc(xdr, dirWcc);
    }
}
