package org.rpcrdma4j.nfs.xdr;

import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;

/** MOUNT's {@code dirpath} argument (MNT, UMNT): at most {@link Mount3#MNTPATHLEN} bytes. */
public final class MountPathArgs implements XdrAble {
    public String path;

    public MountPathArgs() {
    }

    public MountPathArgs(String path) {
        this.path = path;
    }

    @Override
    public void xdrDecode(XdrDecodingStream xdr) throws BadXdrException {
        path = Nfs3Xdr.decodeString(xdr, Mount3.MNTPATHLEN, "dirpath");
    }

    @Override
    public void xdrEncode(XdrEncodingStream xdr) {
        Nfs3Xdr.encodeString(xdr, path);
    }
}
