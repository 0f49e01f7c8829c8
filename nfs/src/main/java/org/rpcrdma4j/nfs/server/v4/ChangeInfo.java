package org.rpcrdma4j.nfs.server.v4;

import org.dcache.oncrpc4j.xdr.XdrEncodingStream;

/**
 * {@code change_info4} (RFC 8881 section 3.3.12): a directory's change attribute before and after an operation that
 * changed it. Not atomic: the VFS cannot read the attribute together with the change. The change attribute is
 * {@link org.rpcrdma4j.nfs.v4.Fattr4Values#changeOf}, as the attribute codec encodes it.
 */
record ChangeInfo(long before, long after) {
    void encode(XdrEncodingStream xdr) {
        xdr.xdrEncodeBoolean(false);
        xdr.xdrEncodeLong(before);
        xdr.xdrEncodeLong(after);
    }
}
