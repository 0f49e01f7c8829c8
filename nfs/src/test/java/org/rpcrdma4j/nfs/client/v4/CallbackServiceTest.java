package org.rpcrdma4j.nfs.client.v4;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.testing.XdrBytes;
import org.rpcrdma4j.nfs.v4.Nfs4Status;

/**
 * The callback service's answers to CB_COMPOUNDs, decoded from and encoded to XDR: CB_SEQUENCE's session, slot and
 * sequence checks, the slot's replay, CB_RECALL of a delegation held or not, and what is refused.
 */
class CallbackServiceTest {
    private static final byte[] SESSION = new byte[16];
    private static final FileHandle FH = FileHandle.of(new byte[] {1, 2, 3, 4});
    private final Stateid4 held = new Stateid4(3, new byte[] {9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9});
    private final List<Stateid4> recalled = new ArrayList<>();
    private byte[] session = SESSION;
    private final CallbackService service = new CallbackService();

    CallbackServiceTest() {
        SESSION[0] = 42;
        service.attach(new CallbackService.Target() {
            @Override
            public byte[] sessionId() {
                return session;
            }

            @Override
            public int minorVersion() {
                return 2;
            }

            @Override
            public boolean recall(Stateid4 stateid, FileHandle fh) {
                recalled.add(stateid);
                return stateid.current().equals(held.current()) && fh.equals(FH);
            }
        });
    }

    /** Writes operations. */
    @FunctionalInterface
    private interface Ops {
        void accept(XdrEncodingStream x) throws Exception;
    }

    /** CB_COMPOUND4args with the given minor version and operations (each written by the caller). */
    private static byte[] call(int minor, int count, Ops ops) {
        return XdrBytes.encode(new XdrAble() {
            @Override
            public void xdrEncode(XdrEncodingStream x) {
                try {
                    x.xdrEncodeDynamicOpaque(new byte[] {'t'});
                    x.xdrEncodeInt(minor);
                    x.xdrEncodeInt(7);
                    x.xdrEncodeInt(count);
                    ops.accept(x);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }

            @Override
            public void xdrDecode(org.dcache.oncrpc4j.xdr.XdrDecodingStream x) {
                throw new UnsupportedOperationException();
            }
        });
    }

    private static void sequence(XdrEncodingStream x, byte[] session, int seq, int slot) throws Exception {
        x.xdrEncodeInt(CallbackService.OP_CB_SEQUENCE);
        x.xdrEncodeOpaque(session, 0, 16);
        x.xdrEncodeInt(seq);
        x.xdrEncodeInt(slot);
        x.xdrEncodeInt(0);
        x.xdrEncodeBoolean(true);
        x.xdrEncodeInt(1); // one referring call list
        x.xdrEncodeOpaque(session, 0, 16);
        x.xdrEncodeInt(1);
        x.xdrEncodeInt(5);
        x.xdrEncodeInt(0);
    }

    private static void recall(XdrEncodingStream x, Stateid4 stateid, FileHandle fh) throws Exception {
        x.xdrEncodeInt(CallbackService.OP_CB_RECALL);
        stateid.encode(x);
        x.xdrEncodeBoolean(false);
        x.xdrEncodeDynamicOpaque(fh.toByteArray());
    }

    /** The answer, encoded and read back: the COMPOUND's status, then opcode and status of each result. */
    private List<Integer> answer(byte[] call) throws Exception {
        CallbackService.CbCompoundArgs args = XdrBytes.decode(call, new CallbackService.CbCompoundArgs());
        Xdr r = new Xdr(XdrBytes.encode(service.answer(args)));
        r.beginDecoding();
        List<Integer> statuses = new ArrayList<>();
        statuses.add(r.xdrDecodeInt());
        assertThat(r.xdrDecodeDynamicOpaque()).as("the tag echoed").containsExactly('t');
        int n = r.xdrDecodeInt();
        for (int i = 0; i < n; i++) {
            int op = r.xdrDecodeInt();
            int status = r.xdrDecodeInt();
            statuses.add(op);
            statuses.add(status);
            if (op == CallbackService.OP_CB_SEQUENCE && status == Nfs4Status.NFS4_OK) {
                assertThat(r.xdrDecodeOpaque(16)).isEqualTo(session);
                r.xdrDecodeInt(); // sequence
                assertThat(r.xdrDecodeInt()).as("slot").isZero();
                assertThat(r.xdrDecodeInt()).as("highest slot").isZero();
                assertThat(r.xdrDecodeInt()).as("target highest slot").isZero();
            }
        }
        return statuses;
    }

    private static final int SEQ = CallbackService.OP_CB_SEQUENCE;
    private static final int RECALL = CallbackService.OP_CB_RECALL;
    private static final int OK = Nfs4Status.NFS4_OK;

    @Test
    void aRecallOfAHeldDelegationIsOkAndOfAnyOtherBadStateid() throws Exception {
        assertThat(answer(call(2, 2, x -> {
            sequence(x, SESSION, 1, 0);
            recall(x, new Stateid4(4, held.other()), FH);
        }))).containsExactly(OK, SEQ, OK, RECALL, OK);
        assertThat(answer(call(2, 2, x -> {
            sequence(x, SESSION, 2, 0);
            recall(x, new Stateid4(1, new byte[12]), FH);
        }))).containsExactly(Nfs4Status.NFS4ERR_BAD_STATEID, SEQ, OK, RECALL, Nfs4Status.NFS4ERR_BAD_STATEID);
        assertThat(recalled).hasSize(2);
        assertThat(service.recalls()).isEqualTo(2);
    }

    @Test
    void theSlotReplaysItsLastReplyAndRefusesOtherSequenceIds() throws Exception {
        Ops first = x -> {
            sequence(x, SESSION, 1, 0);
            recall(x, held, FH);
        };
        List<Integer> reply = answer(call(2, 2, first));
        assertThat(answer(call(2, 2, first))).as("the retransmission").isEqualTo(reply);
        assertThat(recalled).as("run once").hasSize(1);
        assertThat(answer(call(2, 1, x -> sequence(x, SESSION, 3, 0))))
                .containsExactly(Nfs4Status.NFS4ERR_SEQ_MISORDERED, SEQ, Nfs4Status.NFS4ERR_SEQ_MISORDERED);
        assertThat(answer(call(2, 1, x -> sequence(x, SESSION, 2, 0)))).containsExactly(OK, SEQ, OK);
        assertThat(answer(call(2, 1, x -> sequence(x, SESSION, 2, 1))))
                .containsExactly(Nfs4Status.NFS4ERR_BADSLOT, SEQ, Nfs4Status.NFS4ERR_BADSLOT);
    }

    @Test
    void aNewSessionStartsItsSlotAgain() throws Exception {
        assertThat(answer(call(2, 1, x -> sequence(x, SESSION, 1, 0)))).containsExactly(OK, SEQ, OK);
        byte[] other = new byte[16];
        other[0] = 7;
        assertThat(answer(call(2, 1, x -> sequence(x, other, 1, 0))))
                .containsExactly(Nfs4Status.NFS4ERR_BADSESSION, SEQ, Nfs4Status.NFS4ERR_BADSESSION);
        session = other;
        assertThat(answer(call(2, 1, x -> sequence(x, other, 1, 0)))).containsExactly(OK, SEQ, OK);
    }

    @Test
    void whatIsNotInASessionOrNotKnownIsRefused() throws Exception {
        assertThat(answer(call(2, 1, x -> recall(x, held, FH))))
                .containsExactly(Nfs4Status.NFS4ERR_OP_NOT_IN_SESSION, RECALL, Nfs4Status.NFS4ERR_OP_NOT_IN_SESSION);
        assertThat(answer(call(1, 1, x -> sequence(x, SESSION, 1, 0))))
                .containsExactly(Nfs4Status.NFS4ERR_MINOR_VERS_MISMATCH);
        assertThat(answer(call(2, 2, x -> {
            sequence(x, SESSION, 1, 0);
            x.xdrEncodeInt(99);
        }))).containsExactly(Nfs4Status.NFS4ERR_OP_ILLEGAL, SEQ, OK, CallbackService.OP_CB_ILLEGAL,
                Nfs4Status.NFS4ERR_OP_ILLEGAL);
        assertThat(answer(call(2, 2, x -> {
            sequence(x, SESSION, 2, 0);
            x.xdrEncodeInt(CallbackService.OP_CB_GETATTR);
        }))).containsExactly(Nfs4Status.NFS4ERR_NOTSUPP, SEQ, OK, CallbackService.OP_CB_GETATTR,
                Nfs4Status.NFS4ERR_NOTSUPP);
        assertThat(answer(call(2, 3, x -> {
            sequence(x, SESSION, 3, 0);
            recall(x, held, FH);
            recall(x, held, FH);
        }))).containsExactly(Nfs4Status.NFS4ERR_TOO_MANY_OPS, SEQ, Nfs4Status.NFS4ERR_TOO_MANY_OPS);
        assertThat(answer(call(2, 2, x -> {
            sequence(x, SESSION, 4, 0);
            sequence(x, SESSION, 4, 0);
        }))).containsExactly(Nfs4Status.NFS4ERR_SEQUENCE_POS, SEQ, OK, SEQ, Nfs4Status.NFS4ERR_SEQUENCE_POS);
        assertThat(recalled).as("nothing recalled by what was refused").isEmpty();
    }
}
