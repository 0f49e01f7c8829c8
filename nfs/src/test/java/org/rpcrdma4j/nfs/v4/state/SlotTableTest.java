package org.rpcrdma4j.nfs.v4.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.rpcrdma4j.nfs.v4.Nfs4Status.*;
import static org.rpcrdma4j.nfs.v4.state.StateFixture.assertStatus;

import org.junit.jupiter.api.Test;

/** {@link SlotTable}: the slot rules of RFC 8881 section 2.10.6.1. */
class SlotTableTest {
    private final SlotTable slots = new SlotTable(4);

    @Test
    void theFirstRequestOnASlotUsesSequenceIdOneAndExecutes() throws Exception {
        SlotVerdict v = slots.acquire(0, 1, true);

        assertThat(v.kind()).isEqualTo(SlotVerdict.Kind.EXECUTE);
        assertThat(v.cachedReply()).isNull();
        assertThat(slots.inProgress()).isEqualTo(1);
    }

    @Test
    void sequenceIdZeroOnANeverUsedSlotIsMisordered() {
        assertStatus(NFS4ERR_SEQ_MISORDERED, () -> slots.acquire(0, 0, true));
        assertStatus(NFS4ERR_SEQ_MISORDERED, () -> slots.acquire(0, 2, true));
    }

    @Test
    void aRetryOfACompletedCachedRequestReplaysItsReply() throws Exception {
        slots.acquire(1, 1, true);
        byte[] reply = {9, 8, 7};
        slots.complete(1, reply);

        SlotVerdict v = slots.acquire(1, 1, true);

        assertThat(v.isReplay()).isTrue();
        assertThat(v.cachedReply()).containsExactly(9, 8, 7);
        assertThat(slots.inProgress()).isZero();
        assertThat(slots.acquire(1, 1, true).cachedReply()).containsExactly(9, 8, 7);
    }

    /**
     * A retry that is not the request it claims to repeat (another sa_cachethis, another operation count or caller) is
     * NFS4ERR_SEQ_FALSE_RETRY, cached reply or not, and leaves the slot as it was.
     */
    @Test
    void aRetryOfAnotherRequestIsAFalseRetry() throws Exception {
        slots.acquire(1, 1, true, "3 operations of uid 1000");
        slots.complete(1, new byte[] {9});
        slots.acquire(2, 1, false, "1 operation of uid 1000");
        slots.complete(2, new byte[] {8});

        assertStatus(NFS4ERR_SEQ_FALSE_RETRY, () -> slots.acquire(1, 1, false, "3 operations of uid 1000"));
        assertStatus(NFS4ERR_SEQ_FALSE_RETRY, () -> slots.acquire(1, 1, true, "2 operations of uid 1000"));
        assertStatus(NFS4ERR_SEQ_FALSE_RETRY, () -> slots.acquire(1, 1, true, "3 operations of uid 1001"));
        assertStatus(NFS4ERR_SEQ_FALSE_RETRY, () -> slots.acquire(2, 1, false, "1 operation of uid 0"));
        assertThat(slots.acquire(1, 1, true, "3 operations of uid 1000").cachedReply()).containsExactly(9);
        assertStatus(NFS4ERR_RETRY_UNCACHED_REP, () -> slots.acquire(2, 1, false, "1 operation of uid 1000"));
        assertThat(slots.acquire(1, 2, false, "another request").kind()).isEqualTo(SlotVerdict.Kind.EXECUTE);
    }

    @Test
    void aRetryWhileTheOriginalExecutesIsDelayed() throws Exception {
        slots.acquire(2, 1, true);

        assertStatus(NFS4ERR_DELAY, () -> slots.acquire(2, 1, true));
        slots.complete(2, new byte[] {1});
        assertThat(slots.acquire(2, 1, true).isReplay()).isTrue();
    }

    @Test
    void aRetryOfARequestThatDidNotAskForCachingIsRetryUncachedRep() throws Exception {
        slots.acquire(0, 1, false);
        slots.complete(0, new byte[] {1, 2});

        assertStatus(NFS4ERR_RETRY_UNCACHED_REP, () -> slots.acquire(0, 1, false));
    }

    @Test
    void aReleasedRequestKeepsItsSequenceIdAndItsRetryIsUncached() throws Exception {
        slots.acquire(0, 1, true);
        slots.release(0);

        assertThat(slots.inProgress()).isZero();
        assertStatus(NFS4ERR_RETRY_UNCACHED_REP, () -> slots.acquire(0, 1, true));
        assertThat(slots.acquire(0, 2, true).kind()).isEqualTo(SlotVerdict.Kind.EXECUTE);
    }

    @Test
    void aNewRequestDropsThePreviousReply() throws Exception {
        slots.acquire(0, 1, true);
        slots.complete(0, new byte[] {1});
        slots.acquire(0, 2, false);
        slots.complete(0, new byte[] {2});

        assertStatus(NFS4ERR_RETRY_UNCACHED_REP, () -> slots.acquire(0, 2, false));
        assertStatus(NFS4ERR_SEQ_MISORDERED, () -> slots.acquire(0, 1, true));
    }

    @Test
    void sequenceIdsOtherThanTheSlotsOrTheNextAreMisordered() throws Exception {
        slots.acquire(3, 1, true);
        slots.complete(3, new byte[0]);
        slots.acquire(3, 2, true);
        slots.complete(3, new byte[0]);

        assertStatus(NFS4ERR_SEQ_MISORDERED, () -> slots.acquire(3, 4, true));
        assertStatus(NFS4ERR_SEQ_MISORDERED, () -> slots.acquire(3, 1, true));
        assertStatus(NFS4ERR_SEQ_MISORDERED, () -> slots.acquire(3, 0, true));
        assertStatus(NFS4ERR_SEQ_MISORDERED, () -> slots.acquire(3, -1, true));
        assertThat(slots.inProgress()).isZero();
    }

    @Test
    void slotIdsOutsideTheTableAreBadSlot() {
        assertStatus(NFS4ERR_BADSLOT, () -> slots.acquire(-1, 1, true));
        assertStatus(NFS4ERR_BADSLOT, () -> slots.acquire(4, 1, true));
        assertStatus(NFS4ERR_BADSLOT, () -> slots.acquire(Integer.MAX_VALUE, 1, true));
    }

    @Test
    void theSequenceIdWrapsFromTwoToThe32MinusOneToZero() throws Exception {
        SlotTable nearWrap = new SlotTable(1, -2); // 0xfffffffe
        assertThat(nearWrap.acquire(0, -1, true).kind()).isEqualTo(SlotVerdict.Kind.EXECUTE);
        nearWrap.complete(0, new byte[] {1});

        assertStatus(NFS4ERR_SEQ_MISORDERED, () -> nearWrap.acquire(0, 1, true));
        assertThat(nearWrap.acquire(0, 0, true).kind()).isEqualTo(SlotVerdict.Kind.EXECUTE);
        nearWrap.complete(0, new byte[] {2});
        assertThat(nearWrap.acquire(0, 0, true).cachedReply()).containsExactly(2);
        assertThat(nearWrap.acquire(0, 1, true).kind()).isEqualTo(SlotVerdict.Kind.EXECUTE);
    }

    @Test
    void slotsAreIndependent() throws Exception {
        slots.acquire(0, 1, true);
        slots.acquire(1, 1, true);
        slots.complete(1, new byte[] {1});
        slots.acquire(1, 2, true);

        assertThat(slots.inProgress()).isEqualTo(2);
        assertStatus(NFS4ERR_DELAY, () -> slots.acquire(0, 1, true));
        assertStatus(NFS4ERR_DELAY, () -> slots.acquire(1, 2, true));
    }

    @Test
    void completingOrReleasingASlotThatDoesNotExecuteIsAProgrammingError() throws Exception {
        assertThatThrownBy(() -> slots.complete(0, new byte[0])).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> slots.release(7)).isInstanceOf(IllegalStateException.class);
        slots.acquire(0, 1, true);
        slots.complete(0, new byte[0]);
        assertThatThrownBy(() -> slots.complete(0, new byte[0])).isInstanceOf(IllegalStateException.class);
        assertThat(slots.inProgress()).isZero();
    }

    @Test
    void theHighestAndTargetSlotIdsAreTheLastSlot() {
        assertThat(slots.highestSlotId()).isEqualTo(3);
        assertThat(slots.targetHighestSlotId()).isEqualTo(3);
        assertThatThrownBy(() -> new SlotTable(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SlotTable(SlotTable.MAX_SLOTS + 1)).isInstanceOf(IllegalArgumentException.class);
    }
}
