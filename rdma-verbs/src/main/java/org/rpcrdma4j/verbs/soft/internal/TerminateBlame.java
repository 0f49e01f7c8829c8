package org.rpcrdma4j.verbs.soft.internal;

import java.nio.ByteBuffer;

import org.rpcrdma4j.verbs.Opcode;
import org.rpcrdma4j.verbs.WcStatus;
import org.rpcrdma4j.verbs.soft.wire.Ddp;
import org.rpcrdma4j.verbs.soft.wire.Fpdu;
import org.rpcrdma4j.verbs.soft.wire.Rdmap;
import org.rpcrdma4j.verbs.soft.wire.Terminate;

/**
 * What a received Terminate means for the local send queue, decoded leniently: the control word is read both in RFC
 * order and in siw's mirrored layout, and the quoted header (looked for at its fixed place whatever the flags say)
 * names the work request the peer refused: a Write by STag and tagged offset, a Send or Read by its MSN.
 * <p>
 * That work request gets REM_ACCESS_ERR when the peer reports a protection error (DDP tagged buffer or RDMAP remote
 * protection in either reading), else REM_OP_ERR; its vendor error carries the reading that fits it.
 */
final class TerminateBlame {
    final Terminate.Reading rfc;
    final Terminate.Reading mirrored;
    final SendWqe culprit;
    final WcStatus status;
    final int vendorError;

    private TerminateBlame(Terminate.Reading rfc, Terminate.Reading mirrored, SendWqe culprit, WcStatus status,
                           int vendorError) {
        this.rfc = rfc;
        this.mirrored = mirrored;
        this.culprit = culprit;
        this.status = status;
        this.vendorError = vendorError;
    }

    static TerminateBlame of(SoftQp qp, ByteBuffer frame, int ulpduLength) {
        int u = Fpdu.LENGTH_FIELD;
        int word = frame.getInt(u + Terminate.OFFSET_CONTROL);
        Terminate.Reading rfc = Terminate.rfcReading(word);
        Terminate.Reading mirrored = Terminate.mirroredReading(word);
        SendWqe culprit = null;
        int h = u + Terminate.OFFSET_TERMINATED_HEADER;
        if (ulpduLength >= Terminate.OFFSET_TERMINATED_HEADER + Ddp.TAGGED_HEADER_LENGTH) {
            int ddp = frame.get(h) & 0xFF;
            int op = frame.get(h + 1) & Rdmap.OPCODE_MASK;
            if ((ddp & Ddp.FLAG_TAGGED) != 0) {
                if (op == Rdmap.WRITE) {
                    culprit = findWrite(qp, frame.getInt(h + Ddp.OFFSET_STAG),
                            frame.getLong(h + Ddp.OFFSET_TAGGED_OFFSET));
                }
            } else if (ulpduLength >= Terminate.OFFSET_TERMINATED_HEADER + Ddp.UNTAGGED_HEADER_LENGTH) {
                int qn = frame.getInt(h + Ddp.OFFSET_QN);
                int msn = frame.getInt(h + Ddp.OFFSET_MSN);
                if (qn == Ddp.QN_SEND || qn == Ddp.QN_READ_REQUEST) {
                    culprit = findByMsn(qp, qn == Ddp.QN_READ_REQUEST, msn);
                }
            }
        }
        boolean protection = isProtection(rfc) || isProtection(mirrored);
        WcStatus status = WcStatus.REM_OP_ERR;
        Terminate.Reading chosen = rfc.plausible() || !mirrored.plausible() ? rfc : mirrored;
        if (culprit != null) {
            if (culprit.opcode == Opcode.RDMA_WRITE || protection) {
                status = WcStatus.REM_ACCESS_ERR;
            }
            if (protection && !isProtection(chosen)) {
                chosen = isProtection(rfc) ? rfc : mirrored;
            }
        }
        return new TerminateBlame(rfc, mirrored, culprit, status, chosen.vendorError(true));
    }

    private static boolean isProtection(Terminate.Reading r) {
        return (r.layer() == Terminate.LAYER_DDP && r.etype() == Terminate.DDP_TAGGED_BUFFER)
                || (r.layer() == Terminate.LAYER_RDMAP && r.etype() == Terminate.RDMAP_REMOTE_PROTECTION);
    }

    private static SendWqe findWrite(SoftQp qp, int stag, long to) {
        long end = Math.min(qp.sq.exec + 1, qp.sq.published);
        for (long i = qp.sq.retire; i < end; i++) {
            SendWqe w = qp.sq.slot(i);
            if (w.opcode == Opcode.RDMA_WRITE && w.rkey == stag
                    && Long.compareUnsigned(to, w.remoteAddress) >= 0
                    && Long.compareUnsigned(to, w.remoteAddress + w.length) <= 0) {
                return w;
            }
        }
        return null;
    }

    private static SendWqe findByMsn(SoftQp qp, boolean read, int msn) {
        long end = Math.min(qp.sq.exec + 1, qp.sq.published);
        for (long i = qp.sq.retire; i < end; i++) {
            SendWqe w = qp.sq.slot(i);
            if (w.msn == msn && (read ? w.isRead() : w.isSend())) {
                return w;
            }
        }
        return null;
    }

    @Override
    public String toString() {
        String reading = rfc.plausible() ? rfc.toString() : "?";
        return reading + " (mirrored reading: " + (mirrored.plausible() ? mirrored : "?") + ")"
                + (culprit != null ? ", refused work request " + culprit.wrId + " (" + culprit.opcode + ")" : "");
    }
}
