package org.rpcrdma4j.nfs.v4.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rpcrdma4j.nfs.v4.Nfs4Status.NFS4ERR_DELAY;
import static org.rpcrdma4j.nfs.v4.Nfs4Status.NFS4ERR_SERVERFAULT;
import static org.rpcrdma4j.nfs.v4.Nfs4Status.NFS4ERR_STALE_CLIENTID;
import static org.rpcrdma4j.nfs.v4.state.OpenStates.SHARE_ACCESS_BOTH;
import static org.rpcrdma4j.nfs.v4.state.OpenStates.SHARE_ACCESS_READ;
import static org.rpcrdma4j.nfs.v4.state.OpenStates.SHARE_DENY_NONE;
import static org.rpcrdma4j.nfs.v4.state.StateFixture.assertStatus;
import static org.rpcrdma4j.nfs.v4.state.StateFixture.bytes;
import static org.rpcrdma4j.nfs.v4.state.StateFixture.file;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The bounds that keep one peer from filling the server's memory with state: client IDs in all (StateConfig's
 * {@code maxClients}: the oldest unconfirmed one makes room, else NFS4ERR_DELAY until a lease runs out) and opens per
 * client ({@code maxOpensPerClient}: NFS4ERR_SERVERFAULT, nothing taken).
 */
class StateBoundsTest {
    private static StateFixture fixture(int clients, int opensPerClient) {
        StateConfig d = StateConfig.defaults();
        return new StateFixture(new StateConfig(Duration.ofNanos(StateFixture.LEASE_NANOS), Duration.ZERO,
                d.foreLimits(), d.backLimits(), 4).withStateBounds(clients, opensPerClient));
    }

    @Test
    void aFullTableDropsItsOldestUnconfirmedClientIdAndWhenAllAreConfirmedSaysDelay() throws Exception {
        StateFixture f = fixture(3, 8);
        StateFixture.Client a = f.client("host-a");
        ExchangeIdResult b = f.exchange("host-b", 1);
        f.advance(1);
        ExchangeIdResult c = f.exchange("host-c", 1);

        // full: unconfirmed client IDs younger than a second stay (their CREATE_SESSION may be on its way) ...
        assertStatus(NFS4ERR_DELAY, () -> f.exchange("host-d", 1));
        // ... and then the one renewed longest ago makes room; its owner would have to ask again
        f.advance(ClientTable.UNCONFIRMED_MIN_AGE_NANOS);
        ExchangeIdResult d = f.exchange("host-d", 1);
        assertStatus(NFS4ERR_STALE_CLIENTID, () -> f.create(b));
        // what makes no new record goes on: the same confirmed owner, an unconfirmed one made again
        assertThat(f.exchange("host-a", 1).clientId()).isEqualTo(a.id);
        c = f.exchange("host-c", 1);
        f.create(c);
        f.create(d);

        // all confirmed: wait, also a restarted client whose old record is still alive
        assertStatus(NFS4ERR_DELAY, () -> f.exchange("host-e", 1));
        assertStatus(NFS4ERR_DELAY, () -> f.exchange("host-a", 2));
        f.advance(StateFixture.LEASE_NANOS / 2);
        f.ping(a); // a renews its lease; c and d never will
        f.advance(StateFixture.LEASE_NANOS / 2 + 1);
        assertThat(f.exchange("host-e", 1).confirmed()).as("made once the others' leases ran out").isFalse();
        assertThat(f.table.isConfirmed(a.id)).as("a live client stays").isTrue();
    }

    /** Clients kept past their lease as a courtesy do not turn a new client away: the oldest of them makes room. */
    @Test
    void aTableFullOfClientsKeptAsACourtesyDropsTheOldestOfThemForANewClient() throws Exception {
        StateFixture f = fixture(2, 8);
        StateFixture.Client a = f.client("host-a");
        f.table.opens().open(a.id, bytes("o"), file("fa"), SHARE_ACCESS_READ, SHARE_DENY_NONE);
        f.advance(1);
        StateFixture.Client b = f.client("host-b");
        f.table.opens().open(b.id, bytes("o"), file("fb"), SHARE_ACCESS_READ, SHARE_DENY_NONE);
        assertStatus(NFS4ERR_DELAY, () -> f.exchange("host-c", 1));
        f.advance(StateFixture.LEASE_NANOS + 1);
        assertThat(f.table.expire()).isZero();
        assertThat(f.table.courtesyClients()).isEqualTo(2);

        ExchangeIdResult c = f.exchange("host-c", 1);
        f.create(c);
        assertThat(f.table.isConfirmed(a.id)).as("renewed longest ago: dropped").isFalse();
        assertThat(f.table.isConfirmed(b.id)).isTrue();
        assertThat(f.table.courtesyYielded()).isEqualTo(1);
    }

    @Test
    void anOpenBeyondTheMostOpensOfAClientIsRefusedAndTakesNothing() throws Exception {
        StateFixture f = fixture(16, 3);
        StateFixture.Client a = f.client("host-a");
        StateFixture.Client b = f.client("host-b");
        OpenStates opens = f.table.opens();
        Stateid first = opens.open(a.id, bytes("o1"), file("f1"), SHARE_ACCESS_READ, SHARE_DENY_NONE);
        opens.open(a.id, bytes("o1"), file("f2"), SHARE_ACCESS_READ, SHARE_DENY_NONE);
        opens.open(a.id, bytes("o2"), file("f1"), SHARE_ACCESS_READ, SHARE_DENY_NONE);

        assertStatus(NFS4ERR_SERVERFAULT, () -> opens.open(a.id, bytes("o1"), file("f3"), SHARE_ACCESS_READ,
                SHARE_DENY_NONE));
        assertThat(opens.openCount(a.id)).isEqualTo(3);
        // OPEN asks before it creates a file: room for an upgrade only
        opens.checkRoom(a.id, bytes("o1"), file("f1"));
        assertStatus(NFS4ERR_SERVERFAULT, () -> opens.checkRoom(a.id, bytes("o1"), null));
        assertStatus(NFS4ERR_SERVERFAULT, () -> opens.checkRoom(a.id, bytes("o3"), file("f1")));
        // an upgrade of an open held is no new open; another client has its own count
        assertThat(opens.open(a.id, bytes("o1"), file("f1"), SHARE_ACCESS_BOTH, SHARE_DENY_NONE).seqid())
                .isEqualTo(2);
        opens.open(b.id, bytes("o1"), file("f3"), SHARE_ACCESS_READ, SHARE_DENY_NONE);

        opens.close(a.id, new Stateid(2, first.other()), file("f1"));
        opens.open(a.id, bytes("o1"), file("f3"), SHARE_ACCESS_READ, SHARE_DENY_NONE);
        assertThat(opens.openCount(a.id)).isEqualTo(3);
    }
}
