package org.rpcrdma4j.nfs.client.v4;

import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs.v4.Nfs4;
import org.rpcrdma4j.nfs.v4.Nfs4Status;
import org.rpcrdma4j.nfs.xdr.BadXdrException;
import org.rpcrdma4j.nfs.xdr.Nfs3Xdr;

/**
 * A COMPOUND of SEQUENCE alone, with {@code sa_cachethis} false, sent to learn whether the server holds a sequence id
 * on a slot (RFC 8881 section 2.10.6.2), and its reply. It changes nothing, so it may go on an id that a request which
 * went unanswered may have had. The reply is read only as far as SEQUENCE's result: on an id the server holds, a server
 * may answer a request's cached reply, whatever that request was (a replay), and what follows SEQUENCE there belongs to
 * that request.
 */
final class SequenceProbe implements XdrAble {
    /** The COMPOUND's tag. */
    static final String TAG = "probe";

    private final Ops.Sequence sequence;
    private int status = Nfs4Status.NFS4ERR_SERVERFAULT;

    SequenceProbe(byte[] sessionId, int sequenceId, int slotId, int highestSlotId) {
        this.sequence = new Ops.Sequence(sessionId, sequenceId, slotId, highestSlotId, false);
    }

    int sequenceId() {
        return sequence.sequenceId;
    }

    /** The call's arguments. */
    CompoundArgs args(int minorVersion) {
        return new Compound(TAG).args(minorVersion, sequence);
    }

    /** SEQUENCE's status: NFS4_OK, its error, or the COMPOUND's status when the reply has no result. */
    int status() {
        return status;
    }

    @Override
    public void xdrDecode(XdrDecodingStream xdr) throws BadXdrException {
        int compound = Nfs3Xdr.decodeInt(xdr);
        Nfs3Xdr.decodeOpaque(xdr, Nfs4.DECODE_MAX_NAME, "tag");
        if (Nfs3Xdr.decodeUint(xdr) == 0) {
            status = compound == Nfs4Status.NFS4_OK ? Nfs4Status.NFS4ERR_SERVERFAULT : compound;
            return;
        }
        int opcode = Nfs3Xdr.decodeInt(xdr);
        if (opcode != Nfs4.OP_SEQUENCE) {
            throw new BadXdrException("the first result is for " + Nfs4Ops.name(opcode) + ", the call sent SEQUENCE");
        }
        int st = Nfs3Xdr.decodeInt(xdr);
        if (st == Nfs4Status.NFS4_OK) {
            sequence.decodeOk(xdr, Op.ReplyDecoding.FLAT); // checks that it answers this session, slot and id
        }
        status = st;
    }

    @Override
    public void xdrEncode(XdrEncodingStream xdr) {
        throw new UnsupportedOperationException("client results are not encoded");
    }

    @Override
    public String toString() {
        return "SEQUENCE probe of slot " + sequence.slotId + " sequence id "
                + Integer.toUnsignedString(sequence.sequenceId);
    }
}
