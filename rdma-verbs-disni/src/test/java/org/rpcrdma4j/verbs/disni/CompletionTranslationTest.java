package org.rpcrdma4j.verbs.disni;

import static org.assertj.core.api.Assertions.assertThat;

import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.IbvWC.IbvWcOpcode;
import com.ibm.disni.verbs.IbvWC.IbvWcStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.rpcrdma4j.verbs.WcOpcode;
import org.rpcrdma4j.verbs.WcStatus;
import org.rpcrdma4j.verbs.WorkCompletion;
import org.rpcrdma4j.verbs.disni.CompletionTranslation.CqRole;

class CompletionTranslationTest {

    static IbvWC wc(long wrId, int status, int opcode) {
        IbvWC wc = new IbvWC();
        wc.setWr_id(wrId);
        wc.setStatus(status);
        wc.setOpcode(opcode);
        return wc;
    }

    @ParameterizedTest
    @EnumSource(IbvWcStatus.class)
    void everyDisniStatusBecomesTheSpiStatusOfTheSameNameOrGeneralErrorWithTheRawValue(IbvWcStatus disni) {
        int raw = disni.ordinal(); // DiSNI's IbvWcStatus.valueOf(int) is by ordinal: the libibverbs value
        IbvWC in = wc(42, raw, CompletionTranslation.IBV_WC_SEND);
        WorkCompletion out = new WorkCompletion();
        CompletionTranslation.translate(in, out, CqRole.BOTH, 3);

        WcStatus sameName = null;
        for (WcStatus s : WcStatus.values()) {
            if (("IBV_WC_" + s.name()).equals(disni.name())) {
                sameName = s;
            }
        }
        assertThat(out.wrId).isEqualTo(42);
        assertThat(out.qpNum).isEqualTo(3);
        if (sameName != null) {
            assertThat(out.status).isEqualTo(sameName);
            assertThat(out.vendorError).isZero();
        } else {
            assertThat(out.status).isEqualTo(WcStatus.GENERAL_ERR);
            assertThat(out.vendorError).isEqualTo(raw);
        }
    }

    @Test
    void theStatusesOnlyReliableDatagramHasAreTheOnesWithoutSpiName() {
        assertThat(CompletionTranslation.status(3)).isNull();  // LOC_EEC_OP_ERR
        assertThat(CompletionTranslation.status(14)).isNull(); // LOC_RDD_VIOL_ERR
        assertThat(CompletionTranslation.status(5)).isEqualTo(WcStatus.WR_FLUSH_ERR);
        assertThat(CompletionTranslation.status(10)).isEqualTo(WcStatus.REM_ACCESS_ERR);
        assertThat(CompletionTranslation.status(22)).isNull();
        assertThat(CompletionTranslation.status(-1)).isNull();
    }

    @Test
    void statusesBeyondDisnisEnumAreGeneralErrorsWithTheRawValue() {
        WorkCompletion out = new WorkCompletion();
        CompletionTranslation.translate(wc(1, 23, 0), out, CqRole.BOTH, 0);
        assertThat(out.status).isEqualTo(WcStatus.GENERAL_ERR);
        assertThat(out.vendorError).isEqualTo(23);
    }

    @Test
    void opcodeConstantsAreDisnisCompletionOpcodes() {
        assertThat(CompletionTranslation.IBV_WC_SEND).isEqualTo(IbvWcOpcode.IBV_WC_SEND.getOpcode());
        assertThat(CompletionTranslation.IBV_WC_RDMA_WRITE).isEqualTo(IbvWcOpcode.IBV_WC_RDMA_WRITE.getOpcode());
        assertThat(CompletionTranslation.IBV_WC_RDMA_READ).isEqualTo(IbvWcOpcode.IBV_WC_RDMA_READ.getOpcode());
        assertThat(CompletionTranslation.IBV_WC_RECV).isEqualTo(IbvWcOpcode.IBV_WC_RECV.getOpcode());
        assertThat(CompletionTranslation.IBV_WC_RECV_RDMA_WITH_IMM)
                .isEqualTo(IbvWcOpcode.IBV_WC_RECV_RDMA_WITH_IMM.getOpcode());
    }

    @Test
    void successfulCompletionsOfEveryPostedOpcodeKeepTheirFields() {
        int[][] cases = {
                {CompletionTranslation.IBV_WC_SEND, WcOpcode.SEND.ordinal()},
                {CompletionTranslation.IBV_WC_RDMA_WRITE, WcOpcode.RDMA_WRITE.ordinal()},
                {CompletionTranslation.IBV_WC_RDMA_READ, WcOpcode.RDMA_READ.ordinal()},
                {CompletionTranslation.IBV_WC_RECV, WcOpcode.RECV.ordinal()}};
        WorkCompletion out = new WorkCompletion();
        for (int[] c : cases) {
            IbvWC in = wc(0x1_0000_0001L, 0, c[0]);
            in.setByte_len(8192);
            in.setQp_num(0x99);
            out.vendorError = 5; // left over from an earlier use
            out.flags = WorkCompletion.WITH_INVALIDATE;
            CompletionTranslation.translate(in, out, CqRole.BOTH, 12);
            assertThat(out.status).isEqualTo(WcStatus.SUCCESS);
            assertThat(out.opcode).isEqualTo(WcOpcode.values()[c[1]]);
            assertThat(out.wrId).isEqualTo(0x1_0000_0001L);
            assertThat(out.byteLen).isEqualTo(8192);
            assertThat(out.qpNum).isEqualTo(12);
            assertThat(out.flags).isZero();
            assertThat(out.vendorError).isZero();
        }
    }

    @Test
    void aReceiveThatReportsAnInvalidationCarriesTheStag() {
        IbvWC in = wc(9, 0, CompletionTranslation.IBV_WC_RECV);
        in.setWc_flags(CompletionTranslation.IBV_WC_WITH_INV);
        in.setImm_data(0x00123401);
        WorkCompletion out = new WorkCompletion();
        CompletionTranslation.translate(in, out, CqRole.RECV, 1);
        assertThat(out.withInvalidate()).isTrue();
        assertThat(out.invalidatedStag).isEqualTo(0x00123401);

        in.setWc_flags(CompletionTranslation.IBV_WC_WITH_IMM); // an immediate is not an invalidation
        CompletionTranslation.translate(in, out, CqRole.RECV, 1);
        assertThat(out.withInvalidate()).isFalse();
        assertThat(out.invalidatedStag).isZero();
    }

    @Test
    void aSuccessfulCompletionOfAnOpcodeNeverPostedIsAnErrorNotARecv() {
        WorkCompletion out = new WorkCompletion();
        IbvWC writeWithImm = wc(4, 0, CompletionTranslation.IBV_WC_RECV_RDMA_WITH_IMM);
        writeWithImm.setByte_len(0);
        CompletionTranslation.translate(writeWithImm, out, CqRole.BOTH, 1);
        assertThat(out.status).isEqualTo(WcStatus.GENERAL_ERR);
        assertThat(out.opcode).isEqualTo(WcOpcode.RECV);
        assertThat(out.vendorError).isEqualTo(129);

        CompletionTranslation.translate(wc(4, 0, IbvWcOpcode.IBV_WC_FETCH_ADD.getOpcode()), out, CqRole.BOTH, 1);
        assertThat(out.status).isEqualTo(WcStatus.GENERAL_ERR);
        assertThat(out.opcode).isEqualTo(WcOpcode.SEND);
        assertThat(out.vendorError).isEqualTo(4);
    }

    @Test
    void aFailedCompletionIgnoresTheFieldsDisniDidNotRead() {
        IbvWC stale = wc(77, 5, CompletionTranslation.IBV_WC_RDMA_READ);
        stale.setByte_len(4096);         // left from the completion this IbvWC carried before
        stale.setVendor_err(0x1f);
        stale.setWc_flags(CompletionTranslation.IBV_WC_WITH_INV);
        stale.setImm_data(0xabc);
        stale.setQp_num(0x55);
        WorkCompletion out = new WorkCompletion();
        CompletionTranslation.translate(stale, out, CqRole.SEND, 6);
        assertThat(out.status).isEqualTo(WcStatus.WR_FLUSH_ERR);
        assertThat(out.opcode).isEqualTo(WcOpcode.RDMA_READ);
        assertThat(out.byteLen).isZero();
        assertThat(out.vendorError).isZero();
        assertThat(out.flags).isZero();
        assertThat(out.invalidatedStag).isZero();
        assertThat(out.qpNum).isEqualTo(6);
    }

    @Test
    void theOpcodeOfAFailedCompletionFollowsTheQueuesRoleWhenTheDeviceLeftItUndefined() {
        WorkCompletion out = new WorkCompletion();
        CompletionTranslation.translate(wc(1, 5, 0), out, CqRole.RECV, 0);
        assertThat(out.opcode).isEqualTo(WcOpcode.RECV);
        CompletionTranslation.translate(wc(1, 5, CompletionTranslation.IBV_WC_RECV), out, CqRole.SEND, 0);
        assertThat(out.opcode).isEqualTo(WcOpcode.SEND);
        CompletionTranslation.translate(wc(1, 5, 0x7777), out, CqRole.BOTH, 0);
        assertThat(out.opcode).isEqualTo(WcOpcode.SEND);
        CompletionTranslation.translate(wc(1, 5, CompletionTranslation.IBV_WC_RECV), out, CqRole.BOTH, 0);
        assertThat(out.opcode).isEqualTo(WcOpcode.RECV);
    }
}
