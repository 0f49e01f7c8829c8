package org.rpcrdma4j.nfs.xdr;

import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs.FileHandle;

/**
 * {@code diropargs3}: a directory and a name in it. Also the whole of LOOKUP3args, REMOVE3args and RMDIR3args. Names
 * up to {@link Nfs3#DECODE_MAX_NAME} bytes decode so that a server can answer NFS3ERR_NAMETOOLONG.
 */
public final class DirOpArgs implements XdrAble {
    public FileHandle dir;
    public String name;

    public DirOpArgs() {
    }

    public DirOpArgs(FileHandle dir, String name) {
        this.dir = dir;
        this.name = name;
    }

    @Override
    public void xdrDecode(XdrDecodingStream xdr) throws BadXdrException {
        dir = Nfs3Xdr.decodeFileHandle(xdr);
        name = Nfs3Xdr.decodeString(xdr, Nfs3.DECODE_MAX_NAME, "filename3");
    }

    @Override
    public void xdrEncode(XdrEncodingStream xdr) {
        Nfs3Xdr.encodeFileHandle(xdr, dir);
        Nfs3Xdr.encodeString(xdr, name);
    }
}
