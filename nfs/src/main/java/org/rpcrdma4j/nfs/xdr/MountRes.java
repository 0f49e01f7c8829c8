package org.rpcrdma4j.nfs.xdr;

import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs.FileHandle;

/** {@code mountres3}: on MNT3_OK the export's root handle and the accepted authentication flavors. */
public final class MountRes implements XdrAble {
    /** At most this many flavors decode. */
    public static final int MAX_FLAVORS = 64;

    public int status;
    public FileHandle root;
    public int[] authFlavors = new int[0];

    public boolean isOk() {
        return status == MountStatus.MNT3_OK.wireValue();
    }

    @Override
    public void xdrDecode(XdrDecodingStream xdr) throws BadXdrException {
        status = Nfs3Xdr.decodeInt(xdr);
        if (isOk()) {
            root = FileHandle.wrap(Nfs3Xdr.decodeOpaque(xdr, Mount3.FHSIZE3, "fhandle3"));
            int n = Nfs3Xdr.decodeLength(xdr, MAX_FLAVORS, "auth_flavors");
            authFlavors = new int[n];
            for (int i = 0; i < n; i++) {
                authFlavors[i] = Nfs3Xdr.decodeInt(xdr);
            }
        }
    }

    @Override
    public void xdrEncode(XdrEncodingStream xdr) {
        xdr.xdrEncodeInt(status);
        if (isOk()) {
            Nfs3Xdr.encodeFileHandle(xdr, root);
            xdr.xdrEncodeInt(authFlavors.length);
            for (int f : authFlavors) {
                xdr.xdrEncodeInt(f);
            }
        }
    }
}
