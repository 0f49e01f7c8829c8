package org.rpcrdma4j.nfs.server.v4;

import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs.FileAttributes;

/**
 * {@code change_info4} (RFC 8881 section 3.3.12): a directory's change attribute before and after an operation that
 * changed it. Not atomic: the VFS cannot read the attribute together with the change. The change attribute is the
 * object's ctime in nanoseconds, as the attribute codec encodes it.
 */
record ChangeInfo(long before, long after) {
    static long change(FileAttributes a) {
        return a.ctime().seconds() * 1_000_000_000L + a.ctime().nseconds();
    }

    void encode(XdrEncodingStream xdr) {
        xdr.xdrEncodeBoolean(false);
        xdr.xdrEncodeLong(before);
        xdr.xdrEncodeLong(after);
    }
}
