package org.rpcrdma4j.nfs.xdr;

import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs.FileHandle;

/** LINK3args: the file and where the new link goes. */
public final class LinkArgs implements XdrAble {
    public FileHandle file;
    public FileHandle dir;
    public String name;

    public LinkArgs() {
    }

    public LinkArgs(FileHandle file, FileHandle dir, String name) {
        this.file = file;
        this.dir = dir;
        this.name = name;
    }

    @Override
    public void xdrDecode(XdrDecodingStream xdr) throws BadXdrException {
        file = Nfs3Xdr.decodeFileHandle(xdr);
        dir = Nfs3Xdr.decodeFileHandle(xdr);
        name = Nfs3Xdr.decodeString(xdr, Nfs3.DECODE_MAX_NAME, "filename3");
    }

    @Override
    public void xdrEncode(XdrEncodingStream xdr) {
        Nfs3Xdr.encodeFileHandle(xdr, file);
        Nfs3Xdr.encodeFileHandle(xdr, dir);
        Nfs3Xdr.encodeString(xdr, name);
    }
}
