package org.rpcrdma4j.nfs.v4.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rpcrdma4j.nfs.v4.Nfs4Status.*;
import static org.rpcrdma4j.nfs.v4.state.StateFixture.ASK;
import static org.rpcrdma4j.nfs.v4.state.StateFixture.LEASE_NANOS;
import static org.rpcrdma4j.nfs.v4.state.StateFixture.assertStatus;
import static org.rpcrdma4j.nfs.v4.state.StateFixture.bytes;
import static org.rpcrdma4j.nfs.v4.state.StateFixture.file;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** SEQUENCE through the client table: slots, leases, expiry, destroyed sessions, status flags. */
class SequenceTest {
    private final StateFixture f = new StateFixture();
    private final ClientTable table = f.table;

    @Test
    void aNewRequestExecutesAndItsRetryReplaysTheCompletedReply() throws Exception {
        StateFixture.Client c = f.client("host-a");

        SequenceResult r = table.sequence(c.session, 1, 3, 7, true);

        assertThat(r.verdict().kind()).isEqualTo(SlotVerdict.Kind.EXECUTE);
        assertThat(r.session().clientId()).isEqualTo(c.id);
        assertThat(r.highestSlotId()).isEqualTo(7);
        assertThat(r.targetHighestSlotId()).isEqualTo(7);
        assertThat(r.statusFlags()).isZero();
        assertStatus(NFS4ERR_DELAY, () -> table.sequence(c.session, 1, 3, 7, true));
        table.completeSequence(r.session(), 3, new byte[] {4, 2});
        assertThat(table.sequence(c.session, 1, 3, 7, true).verdict().cachedReply()).containsExactly(4, 2);
        assertStatus(NFS4ERR_SEQ_MISORDERED, () -> table.sequence(c.session, 3, 3, 7, true));
    }

    @Test
    void badSlotsAndHighestSlotIds() throws Exception {
        StateFixture.Client c = f.client("host-a");

        assertStatus(NFS4ERR_BADSLOT, () -> table.sequence(c.session, 1, 8, 8, true));
        assertStatus(NFS4ERR_BAD_HIGH_SLOT, () -> table.sequence(c.session, 1, 0, 8, true));
        assertStatus(NFS4ERR_BAD_HIGH_SLOT, () -> table.sequence(c.session, 1, 0, -1, true));
    }

    @Test
    void anUnknownSessionIsBadSession() throws Exception {
        StateFixture.Client c = f.client("host-a");
        byte[] other = c.session.clone();
        other[15] ^= 1;

        assertStatus(NFS4ERR_BADSESSION, () -> table.sequence(other, 1, 0, 0, true));
        assertStatus(NFS4ERR_BADSESSION, () -> table.sequence(new byte[15], 1, 0, 0, true));
        assertStatus(NFS4ERR_BADSESSION, () -> table.session(other));
    }

    @Test
    void sequenceRenewsTheLease() throws Exception {
        StateFixture.Client c = f.client("host-a");
        for (int i = 0; i < 5; i++) {
            f.advance(LEASE_NANOS * 3 / 4);
            f.ping(c);
        }

        assertThat(table.expire()).isZero();
        assertThat(table.isConfirmed(c.id)).isTrue();
    }

    @Test
    void aReplayedSequenceRenewsTheLeaseToo() throws Exception {
        StateFixture.Client c = f.client("host-a");
        SequenceResult r = table.sequence(c.session, 1, 0, 0, true);
        table.completeSequence(r.session(), 0, new byte[] {5});

        f.advance(LEASE_NANOS * 3 / 4);
        assertThat(table.sequence(c.session, 1, 0, 0, true).verdict().isReplay()).isTrue();
        f.advance(LEASE_NANOS * 3 / 4);

        assertThat(table.expire()).isZero();
        assertThat(table.sequence(c.session, 1, 0, 0, true).verdict().cachedReply()).containsExactly(5);
    }

    @Test
    void withoutCourtesyAClientWhoseLeaseRanOutLosesItsSessionsClientIdAndOpens() throws Exception {
        StateFixture f = new StateFixture(new StateFixture().table.config().withCourtesyTime(Duration.ZERO));
        ClientTable table = f.table;
        f.pastGrace();
        StateFixture.Client c = f.client("host-a");
        Stateid open = table.opens().open(c.id, bytes("o"), file("f"), 3, 0);
        StateFixture.Client other = f.client("host-b");
        f.advance(LEASE_NANOS / 2);
        f.ping(other);
        f.advance(LEASE_NANOS / 2 + 1);

        assertStatus(NFS4ERR_BADSESSION, () -> f.ping(c));
        assertStatus(NFS4ERR_STALE_CLIENTID, () -> table.createSession(c.id, 2, 0, ASK, ASK, 0));
        assertStatus(NFS4ERR_EXPIRED, () -> table.opens().checkIo(c.id, open, file("f"), false));
        assertThat(table.opens().testStateid(c.id, open)).isEqualTo(NFS4ERR_EXPIRED);
        assertThat(table.opens().openCount(c.id)).isZero();
        f.ping(other);
    }

    /**
     * A courteous server: a client whose lease ran out keeps its session, client ID and opens while nobody needs
     * them, and carries on when it comes back; another client's conflicting OPEN or LOCK takes them from it.
     */
    @Test
    void aClientWhoseLeaseRanOutKeepsItsStateAsACourtesyUntilAnotherClientNeedsIt() throws Exception {
        f.pastGrace();
        StateFixture.Client away = f.client("host-a");
        Stateid open = table.opens().open(away.id, bytes("o"), file("f"), 3, OpenStates.SHARE_DENY_WRITE);
        StateFixture.Client idle = f.client("host-idle"); // holds nothing: nothing to keep
        StateFixture.Client other = f.client("host-b");
        table.opens().open(other.id, bytes("o"), file("x"), 3, 0); // kept too, then back
        f.advance(LEASE_NANOS * 10);
        f.ping(other);

        assertThat(table.expire()).as("only the client holding nothing goes").isEqualTo(1);
        assertThat(table.isConfirmed(idle.id)).isFalse();
        assertThat(table.courtesyClients()).as("the client away").isEqualTo(1);
        f.ping(away); // back: as if it had never been away
        table.opens().checkIo(away.id, open, file("f"), true);
        assertThat(table.courtesyClients()).isZero();

        // away again: an OPEN that its reservation denies takes its state, and it finds itself expired
        f.advance(LEASE_NANOS + 1);
        f.ping(other);
        assertThat(table.expire()).isZero();
        table.opens().open(other.id, bytes("o"), file("f"), OpenStates.SHARE_ACCESS_WRITE, 0);
        assertThat(table.courtesyYielded()).isEqualTo(1);
        assertStatus(NFS4ERR_BADSESSION, () -> f.ping(away));
        assertStatus(NFS4ERR_EXPIRED, () -> table.opens().checkIo(away.id, open, file("f"), false));
    }

    @Test
    void aLeaseStillRunningKeepsItsConflictsAndTheCourtesyEndsAfterItsTime() throws Exception {
        f.pastGrace();
        StateFixture.Client a = f.client("host-a");
        table.opens().open(a.id, bytes("o"), file("f"), 3, OpenStates.SHARE_DENY_READ);
        StateFixture.Client b = f.client("host-b");
        table.opens().open(b.id, bytes("o"), file("h"), 3, 0);
        f.advance(LEASE_NANOS / 2);
        f.ping(b);
        assertStatus(NFS4ERR_SHARE_DENIED, () -> table.opens().open(b.id, bytes("o"), file("f"), 1, 0));
        assertStatus(NFS4ERR_LOCKED, () -> table.opens().checkIo(b.id, Stateid.ANONYMOUS, file("f"), false));
        assertThat(table.courtesyYielded()).isZero();

        f.advance(LEASE_NANOS);
        f.ping(b);
        // an anonymous READ, which a's reservation denies, takes a's state too
        table.opens().checkIo(b.id, Stateid.ANONYMOUS, file("f"), false);
        assertThat(table.courtesyYielded()).isEqualTo(1);

        StateFixture.Client c = f.client("host-c");
        table.opens().open(c.id, bytes("o"), file("g"), 3, 0);
        f.advance(LEASE_NANOS + StateConfig.DEFAULT_COURTESY_TIME.toNanos());
        f.ping(b);
        assertThat(table.courtesyClients()).isOne();
        f.advance(1);
        assertThat(table.expire()).as("a day past its lease: expired").isEqualTo(1);
        assertThat(table.isConfirmed(c.id)).isFalse();
    }

    @Test
    void expireDropsIdleClientsButNotOnesWithARequestExecuting() throws Exception {
        StateFixture.Client idle = f.client("host-a");
        StateFixture.Client busy = f.client("host-b");
        SequenceResult running = table.sequence(busy.session, 1, 0, 0, false);
        f.advance(LEASE_NANOS + 1);

        assertThat(table.expire()).isEqualTo(1);

        assertThat(table.isConfirmed(idle.id)).isFalse();
        assertThat(table.isConfirmed(busy.id)).isTrue();
        table.completeSequence(running.session(), 0, new byte[0]);
        f.advance(LEASE_NANOS);
        assertThat(table.expire()).isZero();
        busy.slot0 = 1;
        f.ping(busy);
        f.advance(LEASE_NANOS + 1);
        assertThat(table.expire()).isEqualTo(1);
        assertStatus(NFS4ERR_BADSESSION, () -> table.session(busy.session));
    }

    @Test
    void aDestroyedSessionIsBadSessionAndItsRunningRequestStillCompletes() throws Exception {
        StateFixture.Client c = f.client("host-a");
        SequenceResult running = table.sequence(c.session, 1, 0, 0, true);

        table.destroySession(c.session);

        assertThat(running.session().destroyed()).isTrue();
        assertStatus(NFS4ERR_BADSESSION, () -> table.sequence(c.session, 2, 1, 1, true));
        assertStatus(NFS4ERR_BADSESSION, () -> table.destroySession(c.session));
        table.completeSequence(running.session(), 0, new byte[] {1});
        assertThat(table.isConfirmed(c.id)).isTrue();
    }

    @Test
    void theBackChannelStatusFlags() throws Exception {
        ExchangeIdResult x = f.exchange("host-a", 1);
        byte[] withBack = table.createSession(x.clientId(), 1, CreateSessionResult.FLAG_CONN_BACK_CHAN, ASK, ASK, 0)
                .sessionId().toByteArray();
        byte[] without = table.createSession(x.clientId(), 2, 0, ASK, ASK, 0).sessionId().toByteArray();
        assertThat(table.sequence(withBack, 1, 0, 0, false).statusFlags()).isZero();

        table.backChannelDown(withBack, true);

        assertThat(table.sequence(withBack, 1, 1, 1, false).statusFlags())
                .isEqualTo(SequenceResult.STATUS_CB_PATH_DOWN | SequenceResult.STATUS_CB_PATH_DOWN_SESSION);
        assertThat(table.sequence(without, 1, 0, 0, false).statusFlags())
                .isEqualTo(SequenceResult.STATUS_CB_PATH_DOWN);

        table.backChannelDown(without, false);

        assertThat(table.sequence(withBack, 1, 2, 2, false).statusFlags())
                .isEqualTo(SequenceResult.STATUS_CB_PATH_DOWN_SESSION);
        assertThat(table.sequence(without, 1, 1, 1, false).statusFlags()).isZero();
        table.backChannelDown(withBack, false);
        assertThat(table.sequence(withBack, 1, 3, 3, false).statusFlags()).isZero();
        assertStatus(NFS4ERR_BADSESSION, () -> table.backChannelDown(new byte[16], true));
    }

    @Test
    void aSessionWithoutABackChannelReportsNoPathDown() throws Exception {
        StateFixture.Client c = f.client("host-a");

        table.backChannelDown(c.session, true);

        assertThat(table.sequence(c.session, 1, 0, 0, false).statusFlags()).isZero();
    }
}
