package org.rpcrdma4j.nfs.server.v4;

import java.util.ArrayList;
import java.util.List;

import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs.v4.Nfs4;
import org.rpcrdma4j.nfs.v4.Nfs4Status;
import org.rpcrdma4j.nfs.xdr.BadXdrException;
import org.rpcrdma4j.nfs.xdr.Nfs3Xdr;

/**
 * {@code COMPOUND4args} (RFC 8881 section 16.2): the tag, the minor version and the operations, decoded one after
 * the other. Decoding stops at the first operation it cannot take: an unknown number becomes OP_ILLEGAL, arguments
 * that do not decode NFS4ERR_BADXDR, an operation this server does not do NFS4ERR_NOTSUPP; that operation is the
 * last, and the ones before it still run (as RFC 8881 section 15.2 has it). A minor version other than 1 or 2 stops
 * decoding after the header. The tag and the operation count are bounded before anything is allocated.
 */
final class CompoundArgs implements XdrAble {
    /** Most operations decoded; a session's ca_maxoperations is far below (the excess is NFS4ERR_TOO_MANY_OPS). */
    static final int MAX_DECODED_OPS = 1024;

    byte[] tag = new byte[0];
    int minorVersion;
    /** The number of operations the client sent (may exceed {@link #ops}' size). */
    int count;
    final List<Op> ops = new ArrayList<>();

    @Override
    public void xdrDecode(XdrDecodingStream xdr) throws BadXdrException {
        tag = Nfs3Xdr.decodeOpaque(xdr, Nfs4.DECODE_MAX_NAME, "COMPOUND tag");
        minorVersion = Nfs3Xdr.decodeInt(xdr);
        count = Nfs3Xdr.decodeInt(xdr);
        if (count < 0) {
            throw new BadXdrException("negative operation count " + count);
        }
        if (minorVersion != 1 && minorVersion != 2) {
            return;
        }
        for (int i = 0; i < count && i < MAX_DECODED_OPS; i++) {
            int opcode;
            try {
                opcode = Nfs3Xdr.decodeInt(xdr);
            } catch (BadXdrException e) {
                ops.add(new Op.Refused(Nfs4.OP_ILLEGAL, Nfs4Status.NFS4ERR_BADXDR, "the operations end early"));
                return;
            }
            Op op = Operations.create(opcode, minorVersion);
            ops.add(op);
            if (op instanceof Op.Refused) {
                return;
            }
            try {
                op.decode(xdr);
            } catch (BadXdrException e) {
                ops.set(ops.size() - 1, new Op.Refused(opcode, Nfs4Status.NFS4ERR_BADXDR, e.getMessage()));
                return;
            }
        }
    }

    @Override
    public void xdrEncode(XdrEncodingStream xdr) {
        throw new UnsupportedOperationException("a server decodes COMPOUND4args");
    }
}
