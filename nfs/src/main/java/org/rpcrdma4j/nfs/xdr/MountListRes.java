package org.rpcrdma4j.nfs.xdr;

import java.util.ArrayList;
import java.util.List;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;

/** MOUNT DUMP's result ({@code mountlist}): which host mounted which path. */
public final class MountListRes implements XdrAble {
    /** One {@code mountbody}. */
    public record Mount(String host, String path) {
    }

    public List<Mount> mounts = List.of();

    @Override
    public void xdrDecode(XdrDecodingStream xdr) throws BadXdrException {
        List<Mount> list = new ArrayList<>();
        while (Nfs3Xdr.decodeBool(xdr)) {
            if (list.size() >= Mount3.DECODE_MAX_ENTRIES) {
                throw new BadXdrException("too many mount entries");
            }
            list.add(new Mount(Nfs3Xdr.decodeString(xdr, Mount3.MNTNAMLEN, "name"),
                    Nfs3Xdr.decodeString(xdr, Mount3.MNTPATHLEN, "dirpath")));
        }
        mounts = list;
    }

    @Override
    public void xdrEncode(XdrEncodingStream xdr) {
        for (Mount m : mounts) {
            xdr.xdrEncodeBoolean(true);
            Nfs3Xdr.encodeString(xdr, m.host());
            Nfs3Xdr.encodeString(xdr, m.path());
        }
        xdr.xdrEncodeBoolean(false);
    }
}
