package org.rpcrdma4j.nfs.v4.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rpcrdma4j.nfs.v4.Nfs4Status.*;
import static org.rpcrdma4j.nfs.v4.state.StateFixture.assertStatus;
import static org.rpcrdma4j.nfs.v4.state.StateFixture.bytes;
import static org.rpcrdma4j.nfs.v4.state.StateFixture.file;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** DESTROY_CLIENTID, RECLAIM_COMPLETE, the grace period, and clients that keep to themselves. */
class ClientLifecycleTest {
    private final StateFixture f = new StateFixture();
    private final ClientTable table = f.table;

    @Test
    void destroyClientIdIsBusyWhileTheClientHasSessionsOrOpens() throws Exception {
        f.pastGrace();
        StateFixture.Client c = f.client("host-a");
        Stateid open = table.opens().open(c.id, bytes("o"), file("f"), 1, 0);

        assertStatus(NFS4ERR_CLIENTID_BUSY, () -> table.destroyClientId(c.id));
        table.destroySession(c.session);
        assertStatus(NFS4ERR_CLIENTID_BUSY, () -> table.destroyClientId(c.id));
        table.opens().close(c.id, open, file("f"));

        table.destroyClientId(c.id);

        assertThat(table.isConfirmed(c.id)).isFalse();
        assertStatus(NFS4ERR_STALE_CLIENTID, () -> table.destroyClientId(c.id));
    }

    @Test
    void destroyClientIdOfAnUnknownOrUnconfirmedClient() throws Exception {
        ExchangeIdResult x = f.exchange("host-a", 1);

        assertStatus(NFS4ERR_STALE_CLIENTID, () -> table.destroyClientId(x.clientId() + 1));
        table.destroyClientId(x.clientId());
        assertStatus(NFS4ERR_STALE_CLIENTID, () -> f.create(x));
    }

    @Test
    void reclaimCompleteTwiceIsCompleteAlready() throws Exception {
        StateFixture.Client c = f.client("host-a");

        table.reclaimComplete(c.id, true);
        table.reclaimComplete(c.id, false);
        table.reclaimComplete(c.id, true);

        assertStatus(NFS4ERR_COMPLETE_ALREADY, () -> table.reclaimComplete(c.id, false));
        assertStatus(NFS4ERR_STALE_CLIENTID, () -> table.reclaimComplete(c.id + 1, false));
        StateFixture.Client other = f.client("host-b");
        table.reclaimComplete(other.id, false);
    }

    @Test
    void inGraceOnlyReclaimsOpenAndAfterItOnlyNonReclaims() throws Exception {
        assertThat(table.inGrace()).isTrue();
        table.checkOpen(true);
        assertStatus(NFS4ERR_GRACE, () -> table.checkOpen(false));

        f.advance(StateFixture.GRACE_NANOS - 1);
        assertThat(table.inGrace()).isTrue();
        f.advance(1);

        assertThat(table.inGrace()).isFalse();
        table.checkOpen(false);
        assertStatus(NFS4ERR_NO_GRACE, () -> table.checkOpen(true));
    }

    @Test
    void aTableWithoutGraceIsNeverInGrace() throws Exception {
        StateFixture none = new StateFixture(StateConfig.defaults().foreLimits(), 4, Duration.ZERO);

        assertThat(none.table.inGrace()).isFalse();
        none.table.checkOpen(false);
        assertStatus(NFS4ERR_NO_GRACE, () -> none.table.checkOpen(true));
    }

    @Test
    void theClientsReclaimCompleteEndsItsReclaimsAndStartsItsNewOpens() throws Exception {
        StateFixture.Client c = f.client("host-a");
        table.checkOpen(c.id, true);
        table.reclaimComplete(c.id, false);

        assertStatus(NFS4ERR_NO_GRACE, () -> table.checkOpen(c.id, true));
        assertStatus(NFS4ERR_GRACE, () -> table.checkOpen(c.id, false));
        f.pastGrace();
        table.checkOpen(c.id, false);

        StateFixture.Client late = f.client("host-b");
        assertStatus(NFS4ERR_GRACE, () -> table.checkOpen(late.id, false));
        assertStatus(NFS4ERR_NO_GRACE, () -> table.checkOpen(late.id, true));
    }

    @Test
    void theLeaseTimeAttribute() {
        assertThat(table.leaseTimeSeconds()).isEqualTo(90);
    }

    @Test
    void twoClientsSeeNothingOfEachOthersState() throws Exception {
        f.pastGrace();
        StateFixture.Client a = f.client("host-a");
        StateFixture.Client b = f.client("host-b");
        Stateid openA = table.opens().open(a.id, bytes("owner"), file("fa"), 3, 0);
        Stateid openB = table.opens().open(b.id, bytes("owner"), file("fb"), 3, 0);

        assertThat(openA.other()).isNotEqualTo(openB.other());
        assertThat(openA.seqid()).isEqualTo(1);
        assertThat(openB.seqid()).isEqualTo(1);
        assertStatus(NFS4ERR_BAD_STATEID, () -> table.opens().checkIo(b.id, openA, file("fa"), false));
        assertStatus(NFS4ERR_BAD_STATEID, () -> table.opens().close(a.id, openB, file("fb")));
        assertThat(table.opens().testStateid(b.id, openA)).isEqualTo(NFS4ERR_BAD_STATEID);
        assertThat(table.opens().freeStateid(b.id, openA)).isEqualTo(NFS4ERR_BAD_STATEID);

        f.ping(a);
        f.ping(a);
        table.destroySession(a.session);
        table.opens().close(a.id, openA, file("fa"));
        table.destroyClientId(a.id);

        assertThat(table.opens().openCount(b.id)).isEqualTo(1);
        table.opens().checkIo(b.id, openB, file("fb"), true);
        f.ping(b);
        assertThat(b.slot0).isEqualTo(1);
    }
}
