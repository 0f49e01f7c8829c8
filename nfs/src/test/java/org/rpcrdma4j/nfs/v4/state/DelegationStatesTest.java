package org.rpcrdma4j.nfs.v4.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rpcrdma4j.nfs.v4.Nfs4Status.*;
import static org.rpcrdma4j.nfs.v4.state.OpenStates.*;
import static org.rpcrdma4j.nfs.v4.state.StateFixture.assertStatus;
import static org.rpcrdma4j.nfs.v4.state.StateFixture.bytes;
import static org.rpcrdma4j.nfs.v4.state.StateFixture.file;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.nfs.FileHandle;

/**
 * Read delegations in the state layer: who may get one, what a change by someone else does to it (one recall, DELAY
 * until it is returned), the holder kept only as a courtesy, revocation after the lease, and their stateids beside
 * those of opens and locks.
 */
class DelegationStatesTest {
    private static final FileHandle F = file("f");
    private static final FileHandle G = file("g");

    private final StateFixture f = new StateFixture();
    private final DelegationStates delegations = f.table.delegations();
    private final List<Recall> recalls = new ArrayList<>();
    private StateFixture.Client a;
    private StateFixture.Client b;

    @BeforeEach
    void clients() throws Exception {
        a = f.client("host-a");
        b = f.client("host-b");
        f.table.backChannelDown(a.session, false); // a's back channel answered
        delegations.recaller(recalls::add);
        f.pastGrace();
    }

    @Test
    void onlyAClientWithAWorkingBackChannelGetsOneAndOnlyWhileNobodyMayWrite() throws Exception {
        assertThat(delegations.grantRead(b.id, F, null)).as("no back channel").isNull();
        f.table.opens().open(b.id, bytes("writer"), G, SHARE_ACCESS_WRITE, SHARE_DENY_NONE);
        assertThat(delegations.grantRead(a.id, G, null)).as("another client may write").isNull();

        Stateid d = delegations.grantRead(a.id, F, null);
        assertThat(d).isNotNull();
        assertThat(d.seqid()).isEqualTo(1);
        assertThat(delegations.grantRead(a.id, F, null)).as("one per client and file").isNull();
        f.table.backChannelDown(a.session, true);
        assertThat(delegations.grantRead(a.id, G, null)).as("back channel down").isNull();
        assertThat(delegations.count(a.id)).isEqualTo(1);
    }

    @Test
    void noneInTheGracePeriod() throws Exception {
        StateFixture fresh = new StateFixture();
        StateFixture.Client c = fresh.client("host-c");
        fresh.table.backChannelDown(c.session, false);
        assertThat(fresh.table.delegations().grantRead(c.id, F, null)).isNull();
        fresh.pastGrace();
        assertThat(fresh.table.delegations().grantRead(c.id, F, null)).isNotNull();
    }

    @Test
    void aChangeBySomeoneElseRecallsOnceAndWaitsForTheReturn() throws Exception {
        ReferringCall by = new ReferringCall(SessionId.of(a.session), 3, 17);
        Stateid d = delegations.grantRead(a.id, F, by);

        delegations.checkChange(F, a.id); // the holder's own change recalls nothing
        delegations.checkChange(G, b.id); // another file
        assertThat(recalls).isEmpty();
        assertStatus(NFS4ERR_DELAY, () -> delegations.checkChange(F, b.id));
        assertStatus(NFS4ERR_DELAY, () -> delegations.checkChange(F, NFSV3));
        assertStatus(NFS4ERR_DELAY, () -> f.table.opens().open(b.id, bytes("w"), F, SHARE_ACCESS_WRITE, 0));
        assertThat(recalls).as("one recall, whatever asks again").containsExactly(new Recall(a.id, d, F, by));
        assertThat(delegations.grantRead(b.id, F, null)).as("none while one is recalled").isNull();
        // reads, and opens for reading, do not conflict
        f.table.opens().open(b.id, bytes("r"), F, SHARE_ACCESS_READ, SHARE_DENY_NONE);

        assertThat(delegations.awaitReturn(F, b.id, 1_000_000)).isFalse();
        delegations.delegReturn(a.id, d, F);
        assertThat(delegations.awaitReturn(F, b.id, 1_000_000)).isTrue();
        delegations.checkChange(F, b.id);
        assertStatus(NFS4ERR_BAD_STATEID, () -> delegations.delegReturn(a.id, d, F));
        assertThat(delegations.counts()).containsExactly(1L, 1L, 1L, 0L);
    }

    @Test
    void aFileAnotherClientChangedJustNowOrThatWasRecalledLatelyGetsNone() throws Exception {
        delegations.granting(true);
        delegations.checkChange(F, b.id); // b writes F
        assertThat(delegations.grantRead(a.id, F, null)).as("b's change may be under way").isNull();
        delegations.checkChange(G, a.id); // a writes G
        assertThat(delegations.grantRead(a.id, G, null)).as("a's own change").isNotNull();
        f.advance(DelegationStates.CHANGE_QUIET_NANOS + 1);
        f.ping(a);
        Stateid d = delegations.grantRead(a.id, F, null);
        assertThat(d).as("quiet again").isNotNull();

        assertStatus(NFS4ERR_DELAY, () -> delegations.checkChange(F, NFSV3));
        delegations.delegReturn(a.id, d, F);
        f.advance(DelegationStates.CHANGE_QUIET_NANOS + 1);
        f.ping(a);
        assertThat(delegations.grantRead(a.id, F, null)).as("recalled lately").isNull();
        f.advance(DelegationStates.RECALL_QUIET_NANOS);
        f.ping(a);
        assertThat(delegations.grantRead(a.id, F, null)).isNotNull();
    }

    @Test
    void aServerThatGrantsNoneNotesNoChanges() throws Exception {
        delegations.checkChange(F, b.id); // granting is off: nothing noted
        assertThat(delegations.grantRead(a.id, F, null)).isNotNull();
    }

    /** What NFSv3 calls pass as their client. */
    private static final long NFSV3 = 0;

    @Test
    void aHolderKeptOnlyAsACourtesyIsDroppedInsteadOfRecalled() throws Exception {
        delegations.grantRead(a.id, F, null);
        f.advance(StateFixture.LEASE_NANOS + 1);

        delegations.checkChange(F, NFSV3);
        assertThat(recalls).isEmpty();
        assertThat(f.table.courtesyYielded()).isEqualTo(1);
        assertThat(delegations.count()).isZero();
    }

    @Test
    void aDelegationNotReturnedWithinTheLeaseIsRevokedAndFreedByItsClient() throws Exception {
        Stateid d = delegations.grantRead(a.id, F, null);
        assertStatus(NFS4ERR_DELAY, () -> delegations.checkChange(F, b.id));
        f.advance(StateFixture.LEASE_NANOS / 2);
        f.ping(a);
        f.ping(b);
        f.table.expire();
        assertThat(delegations.count()).as("not yet").isEqualTo(1);
        f.advance(StateFixture.LEASE_NANOS / 2 + 1);
        f.ping(a);
        f.ping(b);
        f.table.expire();

        assertThat(delegations.count()).isZero();
        delegations.checkChange(F, b.id);
        SequenceResult s = f.table.sequence(a.session, ++a.slot0, 0, 0, false);
        f.table.completeSequence(s.session(), 0, new byte[] {1});
        assertThat(s.statusFlags() & SequenceResult.STATUS_RECALLABLE_STATE_REVOKED).isNotZero();
        assertStatus(NFS4ERR_DELEG_REVOKED, () -> delegations.delegReturn(a.id, d, F));
        assertStatus(NFS4ERR_DELEG_REVOKED, () -> f.table.opens().checkIo(a.id, d, F, false));
        assertThat(f.table.opens().testStateid(a.id, d)).isEqualTo(NFS4ERR_DELEG_REVOKED);
        assertThat(f.table.opens().freeStateid(b.id, d)).as("not b's to free").isNotEqualTo(NFS4_OK);
        assertThat(f.table.opens().freeStateid(a.id, d)).isEqualTo(NFS4_OK);
        SequenceResult after = f.table.sequence(a.session, ++a.slot0, 0, 0, false);
        assertThat(after.statusFlags() & SequenceResult.STATUS_RECALLABLE_STATE_REVOKED).isZero();
        assertThat(f.table.opens().testStateid(a.id, d)).isEqualTo(NFS4ERR_BAD_STATEID);
    }

    @Test
    void delegationStateidsReadOnlyNeverCloseAndAreNotOpensOrLocks() throws Exception {
        Stateid open = f.table.opens().open(a.id, bytes("o"), G, SHARE_ACCESS_BOTH, SHARE_DENY_NONE);
        Stateid d = delegations.grantRead(a.id, F, null);
        f.table.opens().checkIo(a.id, d, F, false);
        assertStatus(NFS4ERR_OPENMODE, () -> f.table.opens().checkIo(a.id, d, F, true));
        assertStatus(NFS4ERR_BAD_STATEID, () -> f.table.opens().checkIo(a.id, d, G, false));
        assertStatus(NFS4ERR_BAD_STATEID, () -> f.table.opens().checkIo(b.id, d, F, false));
        assertStatus(NFS4ERR_BAD_STATEID, () -> f.table.opens().close(a.id, d, F));
        assertThat(f.table.opens().freeStateid(a.id, d)).as("held").isEqualTo(NFS4ERR_LOCKS_HELD);
        assertThat(f.table.opens().testStateid(a.id, d)).isEqualTo(NFS4_OK);
        assertThat(DelegationStates.isDelegationNumber(d.otherWord(2))).isTrue();
        assertThat(DelegationStates.isDelegationNumber(open.otherWord(2))).isFalse();
        assertThat(LockStates.isLockNumber(d.otherWord(2))).isFalse();
        assertThat(DelegationStates.isDelegationNumber(0x80000000 | 0x40000001)).as("a lock's").isFalse();
    }

    @Test
    void numbersOfTheThreeKindsNeverMeetEvenWhenTheyWrap() {
        StateIndex<OpenState> opens = new StateIndex<>(0, DelegationStates.NUMBER_BIT - 1);
        StateIndex<DelegationState> delegs = new StateIndex<>(DelegationStates.NUMBER_BIT,
                DelegationStates.NUMBER_BIT - 1);
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < 1000; i++) {
            int o = opens.newNumber();
            int d = delegs.newNumber();
            assertThat(o).isPositive().isLessThan(DelegationStates.NUMBER_BIT);
            assertThat(DelegationStates.isDelegationNumber(d)).isTrue();
            assertThat(LockStates.isLockNumber(d) || LockStates.isLockNumber(o)).isFalse();
            assertThat(seen.add(o) && seen.add(d)).isTrue();
        }
    }

    @Test
    void aClientThatGoesTakesItsDelegationsAndDestroyClientIdWaitsForThem() throws Exception {
        delegations.grantRead(a.id, F, null);
        f.table.destroySession(a.session);
        assertStatus(NFS4ERR_CLIENTID_BUSY, () -> f.table.destroyClientId(a.id));
        f.advance(StateFixture.LEASE_NANOS + StateConfig.DEFAULT_COURTESY_TIME.toNanos() + 2);
        f.table.expire();
        assertThat(delegations.count()).isZero();
    }
}
