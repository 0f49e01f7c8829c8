package org.rpcrdma4j.nfs.v4.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rpcrdma4j.nfs.v4.Nfs4Status.*;
import static org.rpcrdma4j.nfs.v4.state.StateFixture.ASK;
import static org.rpcrdma4j.nfs.v4.state.StateFixture.LEASE_NANOS;
import static org.rpcrdma4j.nfs.v4.state.StateFixture.assertStatus;
import static org.rpcrdma4j.nfs.v4.state.StateFixture.bytes;
import static org.rpcrdma4j.nfs.v4.state.StateFixture.file;

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
    void aClientWhoseLeaseRanOutLosesItsSessionsClientIdAndOpens() throws Exception {
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
