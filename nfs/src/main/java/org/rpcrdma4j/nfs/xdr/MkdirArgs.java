package org.rpcrdma4j.nfs.xdr;

import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.SetAttributes;

/** MKDIR3args: where and the new directory's attributes. */
public final class MkdirArgs implements XdrAble {
    public FileHandle dir;
    public String name;
    public SetAttributes attributes;

    public MkdirArgs() {
    }

    public MkdirArgs(FileHandle dir, String name, SetAttributes attributes) {
        this.dir = dir;
        this.name = name;
        this.attributes = attributes;
    }

    @Override
    public void xdrDecode(XdrDecodingStream xdr) throws BadXdrException {
        dir = Nfs3Xdr.decodeFileHandle(xdr);
        name = Nfs3Xdr.decodeString(xdr, Nfs3.DECODE_MAX_NAME, "filename3");
        attributes = Nfs3Xdr.decodeSattr(xdr);
    }

    @Override
    public void xdrEncode(XdrEncodingStream xdr) {
        Nfs3Xdr.encodeFileHandle(xdr, dir);
        Nfs3Xdr.encodeString(xdr, name);
        Nfs3Xdr.encodeSattr(xdr, attributes);
    }
}
