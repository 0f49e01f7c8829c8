package org.rpcrdma4j.verbs.disni;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.List;

import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.IbvSge;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.rpcrdma4j.verbs.Opcode;
import org.rpcrdma4j.verbs.PostException;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.TransportType;
import org.rpcrdma4j.verbs.WcOpcode;

class SendTranslationTest {
    private static final QpLimits IB = new QpLimits(8, 8, 4, 4, 64, TransportType.IB);
    private static final QpLimits IWARP = new QpLimits(8, 8, 4, 4, 64, TransportType.IWARP);

    static SendWorkRequest wr(long wrId, Opcode opcode, int flags, int... sgeLengths) {
        SendWorkRequest wr = new SendWorkRequest(4);
        wr.wrId = wrId;
        wr.opcode = opcode;
        wr.flags = flags;
        for (int i = 0; i < sgeLengths.length; i++) {
            wr.addSge().set(0x1000L * (i + 1) + wrId, sgeLengths[i], 0x100 + i);
        }
        return wr;
    }

    @Test
    void opcodesAreLibibverbsValuesAsDisniDefinesThem() {
        assertThat(SendTranslation.ibvOpcode(Opcode.SEND)).isEqualTo(IbvSendWR.IBV_WR_SEND).isEqualTo(2);
        assertThat(SendTranslation.ibvOpcode(Opcode.RDMA_WRITE)).isEqualTo(IbvSendWR.IBV_WR_RDMA_WRITE).isEqualTo(0);
        assertThat(SendTranslation.ibvOpcode(Opcode.RDMA_READ)).isEqualTo(IbvSendWR.IBV_WR_RDMA_READ).isEqualTo(4);
        for (Opcode op : List.of(Opcode.SEND_WITH_INV, Opcode.RDMA_READ_WITH_INV, Opcode.REG_MR, Opcode.LOCAL_INV)) {
            assertThat(SendTranslation.ibvOpcode(op)).as(op.name()).isEqualTo(-1);
        }
    }

    @Test
    void flagConstantsAreDisnisAndEveryFlagMapsToItsBit() {
        assertThat(SendTranslation.IBV_SEND_FENCE).isEqualTo(IbvSendWR.IBV_SEND_FENCE);
        assertThat(SendTranslation.IBV_SEND_SIGNALED).isEqualTo(IbvSendWR.IBV_SEND_SIGNALED);
        assertThat(SendTranslation.IBV_SEND_SOLICITED).isEqualTo(IbvSendWR.IBV_SEND_SOLICITED);
        assertThat(SendTranslation.IBV_SEND_INLINE).isEqualTo(IbvSendWR.IBV_SEND_INLINE);

        assertThat(SendTranslation.ibvSendFlags(0)).isZero();
        assertThat(SendTranslation.ibvSendFlags(SendWorkRequest.SIGNALED)).isEqualTo(IbvSendWR.IBV_SEND_SIGNALED);
        assertThat(SendTranslation.ibvSendFlags(SendWorkRequest.INLINE)).isEqualTo(IbvSendWR.IBV_SEND_INLINE);
        assertThat(SendTranslation.ibvSendFlags(SendWorkRequest.FENCE)).isEqualTo(IbvSendWR.IBV_SEND_FENCE);
        assertThat(SendTranslation.ibvSendFlags(SendWorkRequest.SOLICITED)).isEqualTo(IbvSendWR.IBV_SEND_SOLICITED);
        assertThat(SendTranslation.ibvSendFlags(SendWorkRequest.SIGNALED | SendWorkRequest.INLINE
                | SendWorkRequest.FENCE | SendWorkRequest.SOLICITED)).isEqualTo(0b1111);
    }

    @Test
    void sendWithTwoSgesBecomesAnIbvSendWr() {
        SendWorkRequest send = wr(7, Opcode.SEND, SendWorkRequest.SIGNALED | SendWorkRequest.SOLICITED, 28, 1000);
        send.remoteAddress = 0xdead; // not an RDMA request: must not reach DiSNI
        send.rkey = 0xbeef;
        IbvSendWR ibv = SendTranslation.toIbv(send, new IbvSendWR());

        assertThat(ibv.getWr_id()).isEqualTo(7);
        assertThat(ibv.getOpcode()).isEqualTo(IbvSendWR.IBV_WR_SEND);
        assertThat(ibv.getSend_flags()).isEqualTo(IbvSendWR.IBV_SEND_SIGNALED | IbvSendWR.IBV_SEND_SOLICITED);
        assertThat(ibv.getImm_data()).isZero();
        assertThat(ibv.getRdma().getRemote_addr()).isZero();
        assertThat(ibv.getRdma().getRkey()).isZero();
        assertThat(ibv.getNum_sge()).isEqualTo(2);
        assertThat(ibv.getSg_list()).extracting(IbvSge::getAddr, IbvSge::getLength, IbvSge::getLkey)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(0x1007L, 28, 0x100),
                        org.assertj.core.groups.Tuple.tuple(0x2007L, 1000, 0x101));
    }

    @Test
    void rdmaWriteAndReadCarryRemoteAddressAndRkey() {
        SendWorkRequest write = wr(1, Opcode.RDMA_WRITE, SendWorkRequest.INLINE | SendWorkRequest.FENCE, 48);
        write.remoteAddress = 0x7f00_1234_5678L;
        write.rkey = 0x00abcd01;
        IbvSendWR w = SendTranslation.toIbv(write, new IbvSendWR());
        assertThat(w.getOpcode()).isEqualTo(IbvSendWR.IBV_WR_RDMA_WRITE);
        assertThat(w.getSend_flags()).isEqualTo(IbvSendWR.IBV_SEND_INLINE | IbvSendWR.IBV_SEND_FENCE);
        assertThat(w.getRdma().getRemote_addr()).isEqualTo(0x7f00_1234_5678L);
        assertThat(w.getRdma().getRkey()).isEqualTo(0x00abcd01);

        SendWorkRequest read = wr(2, Opcode.RDMA_READ, 0, 8192);
        read.remoteAddress = 0x10000;
        read.rkey = -2; // all 32 bits are kept
        IbvSendWR r = SendTranslation.toIbv(read, new IbvSendWR());
        assertThat(r.getOpcode()).isEqualTo(IbvSendWR.IBV_WR_RDMA_READ);
        assertThat(r.getSend_flags()).isZero();
        assertThat(r.getRdma().getRkey()).isEqualTo(-2);
        assertThat(r.getSge(0).getLength()).isEqualTo(8192);
    }

    @Test
    void zeroByteSendHasNoSge() {
        IbvSendWR ibv = SendTranslation.toIbv(wr(3, Opcode.SEND, SendWorkRequest.SIGNALED), new IbvSendWR());
        assertThat(ibv.getNum_sge()).isZero();
        assertThat(ibv.getSg_list()).isEmpty();
    }

    /** A zero-length SGE before a non-empty one crashed siw's transmit path (kernel oops): it is not posted. */
    @Test
    void emptySgesBesideDataAreNotPosted() throws IOException {
        SendWorkRequest send = wr(5, Opcode.SEND, SendWorkRequest.SIGNALED, 0, 100, 0);
        assertThat(SendTranslation.postedSges(send)).isEqualTo(1);
        IbvSendWR ibv = SendTranslation.toIbv(send, new IbvSendWR());
        assertThat(ibv.getNum_sge()).isEqualTo(1);
        assertThat(ibv.getSg_list()).extracting(IbvSge::getAddr, IbvSge::getLength, IbvSge::getLkey)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(0x2005L, 100, 0x101));

        SendWorkRequest again = wr(6, Opcode.SEND, 0, 0, 300);
        SendTranslation.apply(again, new Fakes.Mod(ibv));
        assertThat(ibv.getSg_list()).extracting(IbvSge::getAddr, IbvSge::getLength, IbvSge::getLkey)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(0x2006L, 300, 0x101));
    }

    @Test
    void aRequestWhoseSgesAreAllEmptyIsPostedAsItIs() {
        SendWorkRequest send = wr(5, Opcode.SEND, SendWorkRequest.SIGNALED, 0, 0);
        assertThat(SendTranslation.postedSges(send)).isEqualTo(2);
        assertThat(SendTranslation.toIbv(send, new IbvSendWR()).getNum_sge()).isEqualTo(2);
        assertThat(SendTranslation.postedSges(wr(6, Opcode.RDMA_WRITE, 0, 8, 9))).isEqualTo(2);
    }

    @Test
    void rewritingASerialisedRequestGivesWhatAFreshTranslationGives() throws IOException {
        SendWorkRequest first = wr(1, Opcode.RDMA_WRITE, SendWorkRequest.SIGNALED, 100, 200);
        first.remoteAddress = 0x5000;
        first.rkey = 0x11;
        IbvSendWR serialised = SendTranslation.toIbv(first, new IbvSendWR());

        SendWorkRequest second = wr(99, Opcode.RDMA_WRITE, SendWorkRequest.FENCE, 300, 400);
        second.remoteAddress = 0x9000;
        second.rkey = 0x22;
        SendTranslation.apply(second, new Fakes.Mod(serialised));

        assertSame(serialised, SendTranslation.toIbv(second, new IbvSendWR()));
    }

    static void assertSame(IbvSendWR actual, IbvSendWR expected) {
        assertThat(actual.getWr_id()).isEqualTo(expected.getWr_id());
        assertThat(actual.getOpcode()).isEqualTo(expected.getOpcode());
        assertThat(actual.getSend_flags()).isEqualTo(expected.getSend_flags());
        assertThat(actual.getNum_sge()).isEqualTo(expected.getNum_sge());
        assertThat(actual.getRdma().getRemote_addr()).isEqualTo(expected.getRdma().getRemote_addr());
        assertThat(actual.getRdma().getRkey()).isEqualTo(expected.getRdma().getRkey());
        for (int i = 0; i < expected.getNum_sge(); i++) {
            assertThat(actual.getSge(i).getAddr()).isEqualTo(expected.getSge(i).getAddr());
            assertThat(actual.getSge(i).getLength()).isEqualTo(expected.getSge(i).getLength());
            assertThat(actual.getSge(i).getLkey()).isEqualTo(expected.getSge(i).getLkey());
        }
    }

    @ParameterizedTest
    @EnumSource(value = Opcode.class, names = {"SEND_WITH_INV", "RDMA_READ_WITH_INV", "REG_MR", "LOCAL_INV"})
    void opcodesDisniLacksAreRefusedNamingTheMissingCapability(Opcode opcode) {
        SendWorkRequest head = wr(10, Opcode.SEND, 0, 16);
        head.next = wr(11, Opcode.RDMA_WRITE, 0, 16);
        head.next.next = wr(12, opcode, SendWorkRequest.SIGNALED);
        String capability = opcode == Opcode.REG_MR ? "FAST_REG"
                : opcode == Opcode.RDMA_READ_WITH_INV ? "READ_WITH_INV" : opcode.name();

        assertThatThrownBy(() -> SendTranslation.validate(head, IB))
                .isInstanceOfSatisfying(PostException.class, e -> {
                    assertThat(e.failedIndex()).isEqualTo(2);
                    assertThat(e.failedWrId()).isEqualTo(12);
                })
                .hasMessageContaining(opcode.name() + " is not supported by the DiSNI provider")
                .hasMessageContaining(capability);
    }

    @Test
    void aChainWithinTheLimitsIsCounted() throws PostException {
        SendWorkRequest head = wr(1, Opcode.RDMA_WRITE, 0, 10, 10, 10, 10);
        head.next = wr(2, Opcode.RDMA_WRITE, 0, 10);
        head.next.next = wr(3, Opcode.SEND, SendWorkRequest.SIGNALED | SendWorkRequest.INLINE, 64);
        assertThat(SendTranslation.validate(head, IB)).isEqualTo(3);
    }

    @Test
    void tooManySgesAreRefused() {
        QpLimits two = new QpLimits(8, 8, 2, 2, 64, TransportType.ROCE);
        assertThatThrownBy(() -> SendTranslation.validate(wr(5, Opcode.SEND, 0, 1, 2, 3), two))
                .isInstanceOf(PostException.class)
                .hasMessageContaining("3 SGEs, the queue pair takes at most 2");
    }

    @Test
    void inlineBeyondTheQueuePairsLimitIsRefused() {
        assertThatThrownBy(() -> SendTranslation.validate(wr(5, Opcode.SEND, SendWorkRequest.INLINE, 40, 25), IB))
                .isInstanceOf(PostException.class)
                .hasMessageContaining("65 bytes inline, the queue pair carries at most 64");
    }

    @Test
    void inlineReadIsRefused() {
        assertThatThrownBy(() -> SendTranslation.validate(wr(5, Opcode.RDMA_READ, SendWorkRequest.INLINE, 8), IB))
                .isInstanceOf(PostException.class)
                .hasMessageContaining("INLINE is meaningless for RDMA_READ");
    }

    @Test
    void anIwarpReadHasOneSinkSgeButAnIbReadMayHaveMore() throws PostException {
        assertThat(SendTranslation.validate(wr(5, Opcode.RDMA_READ, 0, 8, 8), IB)).isEqualTo(1);
        assertThatThrownBy(() -> SendTranslation.validate(wr(5, Opcode.RDMA_READ, 0, 8, 8), IWARP))
                .isInstanceOf(PostException.class)
                .hasMessageContaining("an iWARP RDMA_READ has one sink SGE, got 2");
    }

    @Test
    void unknownFlagsNegativeLengthsAndMissingOpcodesAreRefused() {
        assertThatThrownBy(() -> SendTranslation.validate(wr(5, Opcode.SEND, 1 << 7, 8), IB))
                .isInstanceOf(PostException.class).hasMessageContaining("unknown send flags 0x80");
        assertThatThrownBy(() -> SendTranslation.validate(wr(5, Opcode.SEND, 0, -1), IB))
                .isInstanceOf(PostException.class).hasMessageContaining("negative length");
        SendWorkRequest none = wr(5, Opcode.SEND, 0);
        none.opcode = null;
        assertThatThrownBy(() -> SendTranslation.validate(none, IB))
                .isInstanceOf(PostException.class).hasMessageContaining("no opcode");
        assertThatThrownBy(() -> SendTranslation.validate(null, IB))
                .isInstanceOf(PostException.class).hasMessageContaining("empty chain");
    }

    @Test
    void aChainLongerThanTheSendQueueOrACycleIsRefused() {
        SendWorkRequest a = wr(1, Opcode.SEND, 0, 1);
        SendWorkRequest b = wr(2, Opcode.SEND, 0, 1);
        a.next = b;
        b.next = a;
        assertThatThrownBy(() -> SendTranslation.validate(a, IB))
                .isInstanceOfSatisfying(PostException.class, e -> assertThat(e.failedIndex()).isEqualTo(8))
                .hasMessageContaining("longer than the send queue (8 work requests), or a cycle");
    }

    @Test
    void flushedRequestsCompleteWithTheirOwnOpcode() {
        assertThat(SendTranslation.completionOpcode(Opcode.SEND)).isEqualTo(WcOpcode.SEND);
        assertThat(SendTranslation.completionOpcode(Opcode.RDMA_WRITE)).isEqualTo(WcOpcode.RDMA_WRITE);
        assertThat(SendTranslation.completionOpcode(Opcode.RDMA_READ)).isEqualTo(WcOpcode.RDMA_READ);
    }
}
