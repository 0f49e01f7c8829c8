package org.rpcrdma4j.verbs.disni;

import com.ibm.disni.verbs.IbvWC;
import org.rpcrdma4j.verbs.WcOpcode;
import org.rpcrdma4j.verbs.WcStatus;
import org.rpcrdma4j.verbs.WorkCompletion;

/**
 * The pure translation of DiSNI's {@link IbvWC} into the SPI's reusable {@link WorkCompletion}.
 * <p>
 * What DiSNI 2.1 delivers, read from its poll call: for a <em>successful</em> completion every {@code ibv_wc} field;
 * for a <em>failed</em> one only {@code wr_id}, {@code status} and {@code opcode} &mdash; {@code byte_len},
 * {@code qp_num}, {@code wc_flags}, {@code imm_data} and {@code vendor_err} are not read and keep whatever the reused
 * {@link IbvWC} held before. So for a failed completion this translation reports byte length 0, no flags and vendor
 * error 0, and takes the queue pair number from the caller (who knows it only when one queue pair uses the
 * completion queue). libibverbs itself leaves {@code opcode} undefined for failed completions; it is used when it
 * names an opcode this provider posts, else the completion queue's role decides (a queue that only receives reports
 * RECV, otherwise SEND).
 * <p>
 * Values outside what the SPI names are never passed off as something else: an unknown status, or a successful
 * completion of an opcode this provider never posts (an atomic, a bind, a receive of an RDMA Write with immediate
 * from a misbehaving peer), becomes {@link WcStatus#GENERAL_ERR} with the raw value in
 * {@link WorkCompletion#vendorError}.
 */
final class CompletionTranslation {
    // libibverbs enum ibv_wc_opcode
    static final int IBV_WC_SEND = 0;
    static final int IBV_WC_RDMA_WRITE = 1;
    static final int IBV_WC_RDMA_READ = 2;
    static final int IBV_WC_RECV = 128;
    static final int IBV_WC_RECV_RDMA_WITH_IMM = 129;

    // libibverbs enum ibv_wc_flags
    static final int IBV_WC_WITH_IMM = 1 << 1;
    static final int IBV_WC_WITH_INV = 1 << 3;

    /** libibverbs enum ibv_wc_status by value; null where the SPI has no status of that meaning. */
    private static final WcStatus[] STATUS = {
            WcStatus.SUCCESS,            // 0  IBV_WC_SUCCESS
            WcStatus.LOC_LEN_ERR,        // 1  IBV_WC_LOC_LEN_ERR
            WcStatus.LOC_QP_OP_ERR,      // 2  IBV_WC_LOC_QP_OP_ERR
            null,                        // 3  IBV_WC_LOC_EEC_OP_ERR (reliable datagram only)
            WcStatus.LOC_PROT_ERR,       // 4  IBV_WC_LOC_PROT_ERR
            WcStatus.WR_FLUSH_ERR,       // 5  IBV_WC_WR_FLUSH_ERR
            WcStatus.MW_BIND_ERR,        // 6  IBV_WC_MW_BIND_ERR
            WcStatus.BAD_RESP_ERR,       // 7  IBV_WC_BAD_RESP_ERR
            WcStatus.LOC_ACCESS_ERR,     // 8  IBV_WC_LOC_ACCESS_ERR
            WcStatus.REM_INV_REQ_ERR,    // 9  IBV_WC_REM_INV_REQ_ERR
            WcStatus.REM_ACCESS_ERR,     // 10 IBV_WC_REM_ACCESS_ERR
            WcStatus.REM_OP_ERR,         // 11 IBV_WC_REM_OP_ERR
            WcStatus.RETRY_EXC_ERR,      // 12 IBV_WC_RETRY_EXC_ERR
            WcStatus.RNR_RETRY_EXC_ERR,  // 13 IBV_WC_RNR_RETRY_EXC_ERR
            null,                        // 14 IBV_WC_LOC_RDD_VIOL_ERR (reliable datagram only)
            null,                        // 15 IBV_WC_REM_INV_RD_REQ_ERR (reliable datagram only)
            null,                        // 16 IBV_WC_REM_ABORT_ERR
            null,                        // 17 IBV_WC_INV_EECN_ERR (reliable datagram only)
            null,                        // 18 IBV_WC_INV_EEC_STATE_ERR (reliable datagram only)
            WcStatus.FATAL_ERR,          // 19 IBV_WC_FATAL_ERR
            null,                        // 20 IBV_WC_RESP_TIMEOUT_ERR
            WcStatus.GENERAL_ERR,        // 21 IBV_WC_GENERAL_ERR
    };

    /** Which queues of its queue pairs a completion queue serves; decides the opcode of a failed completion. */
    enum CqRole {
        /** Only as a send queue's CQ: a failed completion is a send-queue request. */
        SEND,
        /** Only as a receive queue's CQ: a failed completion is a receive. */
        RECV,
        /** Both, or none yet. */
        BOTH
    }

    private CompletionTranslation() {
    }

    /** The SPI status of a libibverbs status value, or null when the SPI has none of that meaning. */
    static WcStatus status(int raw) {
        return raw >= 0 && raw < STATUS.length ? STATUS[raw] : null;
    }

    /** The SPI opcode of a libibverbs completion opcode this provider posts, or null. */
    static WcOpcode opcode(int raw) {
        switch (raw) {
            case IBV_WC_SEND:
                return WcOpcode.SEND;
            case IBV_WC_RDMA_WRITE:
                return WcOpcode.RDMA_WRITE;
            case IBV_WC_RDMA_READ:
                return WcOpcode.RDMA_READ;
            case IBV_WC_RECV:
                return WcOpcode.RECV;
            default:
                return null;
        }
    }

    /**
     * Fills {@code out} from {@code wc}. Allocates nothing.
     *
     * @param qpNum the SPI number of the queue pair the completion belongs to (0 when unknown)
     */
    static void translate(IbvWC wc, WorkCompletion out, CqRole role, int qpNum) {
        int rawStatus = wc.getStatus();
        int rawOpcode = wc.getOpcode();
        out.wrId = wc.getWr_id();
        out.qpNum = qpNum;
        out.flags = 0;
        out.invalidatedStag = 0;
        WcStatus status = status(rawStatus);
        if (rawStatus == 0) {
            WcOpcode opcode = opcode(rawOpcode);
            if (opcode == null) {
                out.status = WcStatus.GENERAL_ERR;
                out.opcode = rawOpcode >= IBV_WC_RECV ? WcOpcode.RECV : WcOpcode.SEND;
                out.byteLen = 0;
                out.vendorError = rawOpcode;
                return;
            }
            out.status = WcStatus.SUCCESS;
            out.opcode = opcode;
            out.byteLen = wc.getByte_len();
            out.vendorError = 0;
            if ((wc.getWc_flags() & IBV_WC_WITH_INV) != 0) {
                out.flags = WorkCompletion.WITH_INVALIDATE;
                out.invalidatedStag = wc.getImm_data();
            }
            return;
        }
        // a failed completion: only wr_id, status and opcode were read by DiSNI
        out.byteLen = 0;
        if (status == null) {
            out.status = WcStatus.GENERAL_ERR;
            out.vendorError = rawStatus;
        } else {
            out.status = status;
            out.vendorError = 0;
        }
        out.opcode = failedOpcode(rawOpcode, role);
    }

    private static WcOpcode failedOpcode(int rawOpcode, CqRole role) {
        if (role == CqRole.RECV) {
            return WcOpcode.RECV;
        }
        WcOpcode opcode = opcode(rawOpcode);
        if (opcode == WcOpcode.RECV && role == CqRole.SEND) {
            return WcOpcode.SEND;
        }
        return opcode != null ? opcode : WcOpcode.SEND;
    }
}
