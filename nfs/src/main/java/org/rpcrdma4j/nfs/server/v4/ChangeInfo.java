package org.rpcrdma4j.nfs.server.v4;

import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs.server.DirectoryChanges;
import org.rpcrdma4j.nfs.v4.Fattr4Values;

/**
 * {@code change_info4} (RFC 8881 section 3.3.12): a directory's change attribute before and after an operation that
 * changed it, atomic when both were read under the directory's hold ({@link DirectoryChanges}). The change attribute
 * is {@link Fattr4Values#changeOf}, as the attribute codec encodes it.
 */
record ChangeInfo(boolean atomic, long before, long after) {
    /** Nothing changed (an OPEN that made no file). */
    static final ChangeInfo NONE = new ChangeInfo(false, 0, 0);

    /** From a directory read on both sides of a change; not atomic when one side could not be read. */
    static ChangeInfo of(DirectoryChanges.Seen seen) {
        if (seen.complete()) {
            return new ChangeInfo(true, Fattr4Values.changeOf(seen.before()), Fattr4Values.changeOf(seen.after()));
        }
        long before = seen.before() == null ? 0 : Fattr4Values.changeOf(seen.before());
        return new ChangeInfo(false, before, seen.after() == null ? before : Fattr4Values.changeOf(seen.after()));
    }

    void encode(XdrEncodingStream xdr) {
        xdr.xdrEncodeBoolean(atomic);
        xdr.xdrEncodeLong(before);
        xdr.xdrEncodeLong(after);
    }
}
