package org.rpcrdma4j.nfs.server.v4;

import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.nfs.v4.Nfs4;
import org.rpcrdma4j.nfs.v4.Nfs4Exception;
import org.rpcrdma4j.nfs.v4.Nfs4Status;
import org.rpcrdma4j.nfs.xdr.BadXdrException;

/**
 * CLONE (RFC 7862 section 15.13): the current file's range from {@code cl_dst_offset} comes to share the saved file's
 * from {@code cl_src_offset}, all of it or none, as the FICLONERANGE ioctl (Linux's client sends it for
 * {@code cp --reflink}). The two files are checked as for COPY ({@link CopyOp#endpoints}). The export's VFS decides:
 * {@code MemoryVfs} shares its blocks, others answer NFS4ERR_NOTSUPP ({@code Vfs#clone}), which tells Linux's client
 * to stop asking. A {@code cl_count} of 0 reaches the end of the source; a range past the source's end, overlapping
 * ranges of one file, and ranges that are not whole blocks (but for the tail of the source) are NFS4ERR_INVAL, as
 * from Linux's server.
 */
final class CloneOp extends Op {
    private CopyOp.Range range;

    CloneOp() {
        super(Nfs4.OP_CLONE);
    }

    @Override
    void decode(XdrDecodingStream xdr) throws BadXdrException {
        range = CopyOp.Range.decode(xdr);
    }

    @Override
    void execute(Compound c) throws Nfs4Exception {
        CopyOp.Endpoints e = CopyOp.endpoints(c, range.srcStateid(), range.dstStateid());
        if (range.srcOffset() < 0 || range.dstOffset() < 0 || range.count() < 0) {
            throw new Nfs4Exception(Nfs4Status.NFS4ERR_INVAL, "offset or length beyond 2^63");
        }
        try {
            e.src().export().vfs().clone(e.src().fh(), range.srcOffset(), e.dst().fh(), range.dstOffset(),
                    range.count());
        } catch (NfsException x) {
            throw Compound.of(x);
        }
    }
}
