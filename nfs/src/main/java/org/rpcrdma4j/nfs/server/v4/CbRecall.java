package org.rpcrdma4j.nfs.server.v4;

import org.dcache.oncrpc4j.rpc.OncRpcException;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs.v4.Nfs4;
import org.rpcrdma4j.nfs.v4.Nfs4Status;
import org.rpcrdma4j.nfs.v4.state.Recall;
import org.rpcrdma4j.nfs.v4.state.ReferringCall;
import org.rpcrdma4j.nfs.v4.state.SessionId;
import org.rpcrdma4j.nfs.xdr.BadXdrException;

/**
 * A CB_COMPOUND of CB_SEQUENCE and CB_RECALL (RFC 8881 sections 20.9 and 20.2) and its reply: the server asks a
 * client to give a delegation back. The session's one back channel slot is used (slot 0, highest slot 0), the reply
 * is not to be cached, and the OPEN that granted the delegation is named as the referring call when it came on the
 * same session, so that a client that has not seen its reply yet waits for it.
 */
final class CbRecall implements XdrAble {
    static final int CB_COMPOUND = 1;
    static final int OP_CB_RECALL = 4;
    static final int OP_CB_SEQUENCE = 11;

    private final int minorVersion;
    private final SessionId session;
    private final int sequenceId;
    private final Recall recall;

    /** What the client answered: the COMPOUND's status, CB_SEQUENCE's and CB_RECALL's (-1 when not reached). */
    int status = -1;
    int sequenceStatus = -1;
    int recallStatus = -1;

    CbRecall(int minorVersion, SessionId session, int sequenceId, Recall recall) {
        this.minorVersion = minorVersion;
        this.session = session;
        this.sequenceId = sequenceId;
        this.recall = recall;
    }

    @Override
    public void xdrEncode(XdrEncodingStream xdr) {
        xdr.xdrEncodeInt(0); // tag: empty
        xdr.xdrEncodeInt(minorVersion); // the session's
        xdr.xdrEncodeInt(0); // callback_ident: unused in NFSv4.1
        xdr.xdrEncodeInt(2);
        xdr.xdrEncodeInt(OP_CB_SEQUENCE);
        xdr.xdrEncodeOpaque(session.toByteArray(), 0, Nfs4.SESSIONID_SIZE);
        xdr.xdrEncodeInt(sequenceId);
        xdr.xdrEncodeInt(0); // slot
        xdr.xdrEncodeInt(0); // highest slot
        xdr.xdrEncodeBoolean(false); // cachethis
        ReferringCall by = recall.grantedBy();
        if (by != null && by.session().equals(session)) {
            xdr.xdrEncodeInt(1);
            xdr.xdrEncodeOpaque(by.session().toByteArray(), 0, Nfs4.SESSIONID_SIZE);
            xdr.xdrEncodeInt(1);
            xdr.xdrEncodeInt(by.sequenceId());
            xdr.xdrEncodeInt(by.slotId());
        } else {
            xdr.xdrEncodeInt(0);
        }
        xdr.xdrEncodeInt(OP_CB_RECALL);
        StateOps.encodeStateid(xdr, recall.stateid());
        xdr.xdrEncodeBoolean(false); // truncate
        xdr.xdrEncodeDynamicOpaque(recall.file().toByteArray());
    }

    @Override
    public void xdrDecode(XdrDecodingStream xdr) throws OncRpcException, java.io.IOException {
        status = xdr.xdrDecodeInt();
        int tag = xdr.xdrDecodeInt();
        if (tag < 0 || tag > Nfs4.OPAQUE_LIMIT) {
            throw new BadXdrException("a CB_COMPOUND reply's tag of " + tag + " bytes");
        }
        xdr.xdrDecodeOpaque(tag);
        int n = xdr.xdrDecodeInt();
        if (n < 0 || n > 2) {
            throw new BadXdrException("a CB_COMPOUND reply of " + n + " results to 2 operations");
        }
        for (int i = 0; i < n; i++) {
            int op = xdr.xdrDecodeInt();
            int s = xdr.xdrDecodeInt();
            if (op == OP_CB_SEQUENCE) {
                sequenceStatus = s;
                if (s == Nfs4Status.NFS4_OK) {
                    xdr.xdrDecodeOpaque(Nfs4.SESSIONID_SIZE);
                    xdr.xdrDecodeInt(); // sequence id
                    xdr.xdrDecodeInt(); // slot
                    xdr.xdrDecodeInt(); // highest slot
                    xdr.xdrDecodeInt(); // target highest slot
                }
            } else if (op == OP_CB_RECALL) {
                recallStatus = s;
            }
            if (s != Nfs4Status.NFS4_OK) {
                return;
            }
        }
    }

    /** The status that counts: CB_RECALL's when it ran, else the first failure. */
    int outcome() {
        return recallStatus >= 0 ? recallStatus : sequenceStatus >= 0 && sequenceStatus != 0 ? sequenceStatus : status;
    }
}
