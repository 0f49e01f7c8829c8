package org.rpcrdma4j.nfs.client.v4;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.dcache.oncrpc4j.rpc.OncRpcException;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.dcache.oncrpc4j.xdr.XdrVoid;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.v4.Nfs4;
import org.rpcrdma4j.nfs.v4.Nfs4Status;
import org.rpcrdma4j.nfs.xdr.BadXdrException;
import org.rpcrdma4j.nfs.xdr.Nfs3Xdr;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client's NFSv4.1 callback service (RFC 8881 section 20), served on the reverse direction of the session's RDMA
 * connection (RFC 8167): CB_NULL, and CB_COMPOUND with CB_SEQUENCE first. After it:
 * <ul>
 * <li>CB_RECALL: NFS4_OK for a delegation this client holds or is returning (it asks for none, and returns one
 * granted anyway at once), NFS4ERR_BAD_STATEID for any other;</li>
 * <li>CB_RECALL_ANY and CB_RECALL_SLOT: NFS4_OK (nothing is held; one back channel slot);</li>
 * <li>any other callback: NFS4ERR_NOTSUPP; an unknown operation: OP_CB_ILLEGAL with NFS4ERR_OP_ILLEGAL.</li>
 * </ul>
 * CB_SEQUENCE checks the session (NFS4ERR_BADSESSION for any but the current one), the slot (one,
 * NFS4ERR_BADSLOT beyond it) and the sequence id: the next one runs the COMPOUND, the same one gets the reply that
 * was sent for it again, any other NFS4ERR_SEQ_MISORDERED. A COMPOUND that does not start with CB_SEQUENCE gets
 * NFS4ERR_OP_NOT_IN_SESSION; one of another minor version NFS4ERR_MINOR_VERS_MISMATCH.
 * <p>
 * Made before the connection (its transport serves it from the start) and {@linkplain #attach attached} to the
 * session once there is one; until then, a CB_COMPOUND gets NFS4ERR_BADSESSION. Thread-safe.
 */
final class CallbackService implements RpcDispatchable {
    private static final Logger LOG = LoggerFactory.getLogger(CallbackService.class);

    /** {@code NFS_CB}: the callback program's only version. */
    static final int VERSION = 1;
    static final int CB_NULL = 0;
    static final int CB_COMPOUND = 1;

    static final int OP_CB_GETATTR = 3;
    static final int OP_CB_RECALL = 4;
    static final int OP_CB_RECALL_ANY = 8;
    static final int OP_CB_RECALL_SLOT = 10;
    static final int OP_CB_SEQUENCE = 11;
    static final int OP_CB_OFFLOAD = 15;
    static final int OP_CB_ILLEGAL = 10044;
    /** Back channel slots this client offers (CREATE_SESSION's {@code ca_maxrequests}). */
    static final int SLOTS = 1;
    /** Operations in one CB_COMPOUND this client takes (CB_SEQUENCE and one more). */
    static final int MAX_OPERATIONS = 2;

    /** What the callbacks act on: the session's identity and its delegations. */
    interface Target {
        /** The current session's id, or null between sessions. */
        byte[] sessionId();

        int minorVersion();

        /** Whether {@code stateid} names a delegation this client holds or is returning. */
        boolean recall(Stateid4 stateid, FileHandle fh);
    }

    private volatile Target target;
    /** The back channel slot: the session it belongs to, its last sequence id and the reply sent for it. */
    private byte[] slotSession;
    private int slotSequence;
    private CbCompoundRes slotReply;
    private final AtomicLong compounds = new AtomicLong();
    private final AtomicLong recalls = new AtomicLong();

    void attach(Target t) {
        this.target = t;
    }

    /** CB_COMPOUNDs answered. */
    long compounds() {
        return compounds.get();
    }

    /** CB_RECALLs answered (whatever their status). */
    long recalls() {
        return recalls.get();
    }

    @Override
    public void dispatchOncRpcCall(RpcCall call) throws OncRpcException, IOException {
        switch (call.getProcedure()) {
            case CB_NULL -> call.reply(XdrVoid.XDR_VOID);
            case CB_COMPOUND -> {
                CbCompoundArgs args = new CbCompoundArgs();
                try {
                    call.retrieveCall(args);
                } catch (BadXdrException | RuntimeException e) {
                    LOG.debug("CB_COMPOUND arguments do not decode: {}", e.toString());
                    call.failRpcGarbage();
                    return;
                }
                compounds.incrementAndGet();
                call.reply(answer(args));
            }
            default -> call.failProcedureUnavailable();
        }
    }

    /** The reply to a decoded CB_COMPOUND. */
    CbCompoundRes answer(CbCompoundArgs args) {
        Target t = target;
        List<int[]> results = new ArrayList<>();
        if (t == null || args.minorVersion != t.minorVersion()) {
            int status = t == null ? Nfs4Status.NFS4ERR_BADSESSION : Nfs4Status.NFS4ERR_MINOR_VERS_MISMATCH;
            return new CbCompoundRes(status, args.tag, results, null);
        }
        if (args.ops.isEmpty()) {
            return new CbCompoundRes(Nfs4Status.NFS4_OK, args.tag, results, null);
        }
        CbOp first = args.ops.get(0);
        if (first.opcode != OP_CB_SEQUENCE) {
            int op = first.known ? first.opcode : OP_CB_ILLEGAL;
            int status = first.known ? Nfs4Status.NFS4ERR_OP_NOT_IN_SESSION : Nfs4Status.NFS4ERR_OP_ILLEGAL;
            results.add(new int[] {op, status});
            return new CbCompoundRes(status, args.tag, results, null);
        }
        synchronized (this) {
            int status = sequence(t, first);
            if (status == REPLAY) {
                return slotReply;
            }
            if (status != Nfs4Status.NFS4_OK) {
                results.add(new int[] {OP_CB_SEQUENCE, status});
                return new CbCompoundRes(status, args.tag, results, null);
            }
            results.add(new int[] {OP_CB_SEQUENCE, Nfs4Status.NFS4_OK});
            int compoundStatus = Nfs4Status.NFS4_OK;
            if (args.ops.size() > MAX_OPERATIONS) {
                compoundStatus = Nfs4Status.NFS4ERR_TOO_MANY_OPS;
                results.set(0, new int[] {OP_CB_SEQUENCE, compoundStatus});
            } else {
                for (int i = 1; i < args.ops.size(); i++) {
                    CbOp op = args.ops.get(i);
                    int s = run(t, op);
                    results.add(new int[] {op.known ? op.opcode : OP_CB_ILLEGAL, s});
                    if (s != Nfs4Status.NFS4_OK) {
                        compoundStatus = s;
                        break;
                    }
                }
            }
            CbCompoundRes reply = new CbCompoundRes(compoundStatus, args.tag, results, first);
            slotReply = reply;
            return reply;
        }
    }

    private static final int REPLAY = -1;

    /** CB_SEQUENCE's checks and the slot's sequence id; REPLAY for a retransmission of the last request. */
    private int sequence(Target t, CbOp seq) {
        byte[] current = t.sessionId();
        if (current == null || !Arrays.equals(current, seq.sessionId)) {
            return Nfs4Status.NFS4ERR_BADSESSION;
        }
        if (Integer.compareUnsigned(seq.slot, SLOTS) >= 0) {
            return Nfs4Status.NFS4ERR_BADSLOT;
        }
        if (!Arrays.equals(slotSession, current)) {
            slotSession = current; // a new session: its slot starts at sequence id 0, the first call is 1
            slotSequence = 0;
            slotReply = null;
        }
        if (seq.sequence == slotSequence + 1) {
            slotSequence = seq.sequence;
            return Nfs4Status.NFS4_OK;
        }
        if (seq.sequence == slotSequence && slotReply != null) {
            return REPLAY;
        }
        return Nfs4Status.NFS4ERR_SEQ_MISORDERED;
    }

    private int run(Target t, CbOp op) {
        if (!op.known) {
            return Nfs4Status.NFS4ERR_OP_ILLEGAL;
        }
        return switch (op.opcode) {
            case OP_CB_SEQUENCE -> Nfs4Status.NFS4ERR_SEQUENCE_POS;
            case OP_CB_RECALL -> {
                recalls.incrementAndGet();
                boolean held = t.recall(op.stateid, op.fh);
                LOG.debug("CB_RECALL of {} ({}): {}", op.stateid, op.fh, held ? "held" : "not held");
                yield held ? Nfs4Status.NFS4_OK : Nfs4Status.NFS4ERR_BAD_STATEID;
            }
            case OP_CB_RECALL_ANY, OP_CB_RECALL_SLOT -> Nfs4Status.NFS4_OK;
            default -> Nfs4Status.NFS4ERR_NOTSUPP;
        };
    }

    // ------------------------------------------------------------------------------------------ XDR

    /** One callback operation as far as it is decoded: CB_SEQUENCE and CB_RECALL whole, others by opcode. */
    static final class CbOp {
        final int opcode;
        final boolean known;
        byte[] sessionId;
        int sequence;
        int slot;
        int highestSlot;
        Stateid4 stateid;
        FileHandle fh;

        CbOp(int opcode) {
            this.opcode = opcode;
            this.known = opcode >= OP_CB_GETATTR && opcode <= OP_CB_OFFLOAD;
        }
    }

    /**
     * {@code CB_COMPOUND4args}. Decoding stops at the first operation whose arguments it does not read (the COMPOUND
     * ends there in the answer anyway).
     */
    static final class CbCompoundArgs implements XdrAble {
        byte[] tag;
        int minorVersion;
        int callbackIdent;
        final List<CbOp> ops = new ArrayList<>();

        @Override
        public void xdrDecode(XdrDecodingStream xdr) throws BadXdrException {
            tag = Nfs3Xdr.decodeOpaque(xdr, Nfs4.DECODE_MAX_NAME, "tag");
            minorVersion = Nfs3Xdr.decodeInt(xdr);
            callbackIdent = Nfs3Xdr.decodeInt(xdr);
            int n = Nfs3Xdr.decodeLength(xdr, 64, "nfs_cb_argop4 count");
            for (int i = 0; i < n; i++) {
                CbOp op = new CbOp(Nfs3Xdr.decodeInt(xdr));
                ops.add(op);
                switch (op.opcode) {
                    case OP_CB_SEQUENCE -> {
                        op.sessionId = Nfs3Xdr.decodeFixedOpaque(xdr, Nfs4.SESSIONID_SIZE);
                        op.sequence = Nfs3Xdr.decodeInt(xdr);
                        op.slot = Nfs3Xdr.decodeInt(xdr);
                        op.highestSlot = Nfs3Xdr.decodeInt(xdr);
                        Nfs3Xdr.decodeBool(xdr); // cachethis: every reply is kept for a retransmission
                        int lists = Nfs3Xdr.decodeLength(xdr, 64, "referring_call_list4 count");
                        for (int l = 0; l < lists; l++) {
                            Nfs3Xdr.decodeFixedOpaque(xdr, Nfs4.SESSIONID_SIZE);
                            int calls = Nfs3Xdr.decodeLength(xdr, 1024, "referring_call4 count");
                            for (int c = 0; c < calls; c++) {
                                Nfs3Xdr.decodeInt(xdr); // sequence id
                                Nfs3Xdr.decodeInt(xdr); // slot
                            }
                        }
                    }
                    case OP_CB_RECALL -> {
                        op.stateid = Stateid4.decode(xdr);
                        Nfs3Xdr.decodeBool(xdr); // truncate
                        op.fh = FileHandle.wrap(Nfs3Xdr.decodeOpaque(xdr, Nfs4.FHSIZE, "nfs_fh4"));
                    }
                    case OP_CB_RECALL_ANY -> {
                        Nfs3Xdr.decodeInt(xdr); // objects to keep
                        int words = Nfs3Xdr.decodeLength(xdr, Nfs4.DECODE_MAX_BITMAP_WORDS, "bitmap4");
                        for (int w = 0; w < words; w++) {
                            Nfs3Xdr.decodeInt(xdr);
                        }
                    }
                    case OP_CB_RECALL_SLOT -> Nfs3Xdr.decodeInt(xdr); // target highest slot id
                    default -> {
                        return;
                    }
                }
            }
        }

        @Override
        public void xdrEncode(XdrEncodingStream xdr) {
            throw new UnsupportedOperationException("callback arguments are decoded only");
        }
    }

    /** {@code CB_COMPOUND4res}: the status, the tag, each operation's opcode and status (CB_SEQUENCE's result). */
    static final class CbCompoundRes implements XdrAble {
        final int status;
        final byte[] tag;
        final List<int[]> results;
        private final CbOp sequence;

        CbCompoundRes(int status, byte[] tag, List<int[]> results, CbOp sequence) {
            this.status = status;
            this.tag = tag;
            this.results = List.copyOf(results);
            this.sequence = sequence;
        }

        @Override
        public void xdrEncode(XdrEncodingStream xdr) {
            xdr.xdrEncodeInt(status);
            Nfs3Xdr.encodeOpaque(xdr, tag);
            xdr.xdrEncodeInt(results.size());
            for (int[] r : results) {
                xdr.xdrEncodeInt(r[0]);
                xdr.xdrEncodeInt(r[1]);
                if (r[0] == OP_CB_SEQUENCE && r[1] == Nfs4Status.NFS4_OK) {
                    xdr.xdrEncodeOpaque(sequence.sessionId, 0, Nfs4.SESSIONID_SIZE);
                    xdr.xdrEncodeInt(sequence.sequence);
                    xdr.xdrEncodeInt(sequence.slot);
                    xdr.xdrEncodeInt(SLOTS - 1); // highest slot id
                    xdr.xdrEncodeInt(SLOTS - 1); // target highest slot id
                }
            }
        }

        @Override
        public void xdrDecode(XdrDecodingStream xdr) {
            throw new UnsupportedOperationException("callback results are encoded only");
        }
    }
}
