package org.rpcrdma4j.nfs.xdr;

import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs.FileHandle;

/** ACCESS3args: object and the {@link org.rpcrdma4j.nfs.Access} bits asked about. */
public final class AccessArgs implements XdrAble {
    public FileHandle object;
    public int access;

    public AccessArgs() {
    }

    public AccessArgs(FileHandle object, int access) {
        this.object = object;
        this.access = access;
    }

    @Override
    public void xdrDecode(XdrDecodingStream xdr) throws BadXdrException {
        object = Nfs3Xdr.decodeFileHandle(xdr);
        access = Nfs3Xdr.decodeInt(xdr);
    }

    @Override
    public void xdrEncode(XdrEncodingStream xdr) {
        Nfs3Xdr.encodeFileHandle(xdr, object);
        xdr.xdrEncodeInt(access);
    }
}
