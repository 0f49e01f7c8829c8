package org.rpcrdma4j.nfs.xdr;

import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs.FileHandle;

/** Arguments that are one file handle: GETATTR3args, READLINK3args, FSSTAT3args, FSINFO3args, PATHCONF3args. */
public final class FhArgs implements XdrAble {
    public FileHandle object;

    public FhArgs() {
    }

    public FhArgs(FileHandle object) {
        this.object = object;
    }

    @Override
    public void xdrDecode(XdrDecodingStream xdr) throws BadXdrException {
        object = Nfs3Xdr.decodeFileHandle(xdr);
    }

    @Override
    public void xdrEncode(XdrEncodingStream xdr) {
        Nfs3Xdr.encodeFileHandle(xdr, object);
    }
}
