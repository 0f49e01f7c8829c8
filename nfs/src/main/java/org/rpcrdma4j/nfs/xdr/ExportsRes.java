package org.rpcrdma4j.nfs.xdr;

import java.util.ArrayList;
import java.util.List;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;

/** MOUNT EXPORT's result ({@code exports}): a list of exported paths, each with the groups allowed to mount it. */
public final class ExportsRes implements XdrAble {
    /** One {@code exportnode}. */
    public record Export(String path, List<String> groups) {
    }

    public List<Export> exports = List.of();

    @Override
    public void xdrDecode(XdrDecodingStream xdr) throws BadXdrException {
        List<Export> list = new ArrayList<>();
        int total = 0;
        while (Nfs3Xdr.decodeBool(xdr)) {
            String path = Nfs3Xdr.decodeString(xdr, Mount3.MNTPATHLEN, "dirpath");
            List<String> groups = new ArrayList<>();
            while (Nfs3Xdr.decodeBool(xdr)) {
                if (++total > Mount3.DECODE_MAX_ENTRIES) {
                    throw new BadXdrException("too many export entries");
                }
                groups.add(Nfs3Xdr.decodeString(xdr, Mount3.MNTNAMLEN, "name"));
            }
            if (++total > Mount3.DECODE_MAX_ENTRIES) {
                throw new BadXdrException("too many export entries");
            }
            list.add(new Export(path, List.copyOf(groups)));
        }
        exports = list;
    }

    @Override
    public void xdrEncode(XdrEncodingStream xdr) {
        for (Export e : exports) {
            xdr.xdrEncodeBoolean(true);
            Nfs3Xdr.encodeString(xdr, e.path());
            for (String g : e.groups()) {
                xdr.xdrEncodeBoolean(true);
                Nfs3Xdr.encodeString(xdr, g);
            }
            xdr.xdrEncodeBoolean(false);
        }
        xdr.xdrEncodeBoolean(false);
    }
}
