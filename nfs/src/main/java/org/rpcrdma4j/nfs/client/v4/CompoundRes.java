package org.rpcrdma4j.nfs.client.v4;

import io.netty.buffer.ByteBuf;
import java.util.List;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs.v4.Nfs4;
import org.rpcrdma4j.nfs.v4.Nfs4Status;
import org.rpcrdma4j.nfs.xdr.BadXdrException;
import org.rpcrdma4j.nfs.xdr.DdpResult;
import org.rpcrdma4j.nfs.xdr.Nfs3Xdr;

/**
 * {@code COMPOUND4res} of one attempt, decoded against the operations the call sent: the COMPOUND's status, then one
 * result per operation up to the first that failed (RFC 8881 section 16.2.3). Checked while decoding: no more results
 * than operations, each result for the operation at its place (or OP_ILLEGAL), a failed result only last, the
 * COMPOUND's status that of its last result; anything else is a {@link BadXdrException}, which the transport reports
 * as a bad reply.
 * <p>
 * Indexes given to {@link #result} and returned by {@link #failedIndex} count the COMPOUND's own operations, without
 * the SEQUENCE the session put first.
 */
class CompoundRes implements XdrAble {
    private final List<Op> ops;
    /** 1 when the first operation is the session's SEQUENCE. */
    private final int offset;
    private int status;
    private int count;
    private Object[] results;
    private int failedAt = -1;
    private int failedStatus;

    CompoundRes(List<Op> ops, int offset) {
        this.ops = ops;
        this.offset = offset;
    }

    @Override
    public void xdrDecode(XdrDecodingStream xdr) throws BadXdrException {
        decode(xdr, Op.ReplyDecoding.FLAT);
    }

    final void decode(XdrDecodingStream xdr, Op.ReplyDecoding mode) throws BadXdrException {
        failedAt = -1;
        failedStatus = Nfs4Status.NFS4_OK;
        count = 0;
        status = Nfs3Xdr.decodeInt(xdr);
        Nfs3Xdr.decodeOpaque(xdr, Nfs4.DECODE_MAX_NAME, "tag");
        long n = Nfs3Xdr.decodeUint(xdr);
        if (n > ops.size()) {
            throw new BadXdrException(n + " results to a COMPOUND of " + ops.size() + " operations");
        }
        count = (int) n;
        results = new Object[ops.size()];
        for (int i = 0; i < count; i++) {
            int opcode = Nfs3Xdr.decodeInt(xdr);
            int st = Nfs3Xdr.decodeInt(xdr);
            Op op = ops.get(i);
            if (opcode != op.opcode) {
                if (opcode == Nfs4.OP_ILLEGAL && st == Nfs4Status.NFS4ERR_OP_ILLEGAL) {
                    fail(i, st);
                    continue;
                }
                throw new BadXdrException("result " + i + " is for " + Nfs4Ops.name(opcode) + ", the call sent "
                        + Nfs4Ops.name(op.opcode));
            }
            if (st == Nfs4Status.NFS4_OK) {
                results[i] = op.decodeOk(xdr, mode);
            } else {
                op.decodeError(xdr, st);
                fail(i, st);
            }
        }
        if (failedAt >= 0 && failedAt != count - 1) {
            throw new BadXdrException("results follow the failed " + Nfs4Ops.name(ops.get(failedAt).opcode));
        }
        if (status == Nfs4Status.NFS4_OK) {
            if (count != ops.size()) {
                throw new BadXdrException("NFS4_OK with " + count + " results to " + ops.size() + " operations");
            }
        } else if (failedAt >= 0 && failedStatus != status) {
            throw new BadXdrException("COMPOUND status " + Nfs4Status.name(status) + " differs from its last result's "
                    + Nfs4Status.name(failedStatus));
        } else if (failedAt < 0 && count == ops.size()) {
            throw new BadXdrException("COMPOUND status " + Nfs4Status.name(status) + " but every result NFS4_OK");
        }
    }

    private void fail(int index, int st) {
        failedAt = index;
        failedStatus = st;
    }

    @Override
    public void xdrEncode(XdrEncodingStream xdr) {
        throw new UnsupportedOperationException("client results are not encoded");
    }

    /** The COMPOUND's status. */
    int status() {
        return status;
    }

    boolean isOk() {
        return status == Nfs4Status.NFS4_OK;
    }

    /** Whether the reply has a SEQUENCE result and it is NFS4_OK. */
    boolean sequenceOk() {
        return offset == 1 && count >= 1 && failedAt != 0;
    }

    /** The SEQUENCE's status: NFS4_OK, its error, or the COMPOUND's status when there was no SEQUENCE result. */
    int sequenceStatus() {
        if (offset == 0) {
            throw new IllegalStateException("no SEQUENCE in this COMPOUND");
        }
        if (count == 0) {
            return status == Nfs4Status.NFS4_OK ? Nfs4Status.NFS4ERR_SERVERFAULT : status;
        }
        return failedAt == 0 ? failedStatus : Nfs4Status.NFS4_OK;
    }

    Ops.SequenceOk sequence() {
        return (Ops.SequenceOk) results[0];
    }

    /**
     * The index, among the COMPOUND's own operations, of the one that failed; -1 when SEQUENCE failed; {@link
     * Integer#MAX_VALUE} when none did (or the COMPOUND failed before any ran).
     */
    int failedIndex() {
        return failedAt < 0 ? Integer.MAX_VALUE : failedAt - offset;
    }

    /** The opcode of the operation that failed, or 0. */
    int failedOpcode() {
        return failedAt < 0 ? 0 : ops.get(failedAt).opcode;
    }

    /** The result of the COMPOUND's own operation {@code index} (null if it has none or did not run). */
    @SuppressWarnings("unchecked")
    <T> T result(int index) {
        return (T) results[index + offset];
    }

    /** Throws the failure of the COMPOUND as an {@link Nfs4StatusException}; returns when it succeeded. */
    CompoundRes check() throws Nfs4StatusException {
        if (status != Nfs4Status.NFS4_OK) {
            throw new Nfs4StatusException(status, failedOpcode(), null);
        }
        return this;
    }

    /** A COMPOUND with a READ: its data goes into the READ's buffer (over RDMA through a Write chunk). */
    static final class WithData extends CompoundRes implements DdpResult {
        private final Ops.Read read;

        WithData(List<Op> ops, int offset, Ops.Read read) {
            super(ops, offset);
            this.read = read;
        }

        @Override
        public ByteBuf sink() {
            return read.sink;
        }

        @Override
        public void decodeReduced(XdrDecodingStream xdr, long placedBytes) throws BadXdrException {
            decode(xdr, new Op.ReplyDecoding(true, placedBytes));
        }
    }
}
