package org.rpcrdma4j.nfs.v4.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rpcrdma4j.nfs.v4.Nfs4Status.*;
import static org.rpcrdma4j.nfs.v4.state.OpenStates.*;
import static org.rpcrdma4j.nfs.v4.state.StateFixture.assertStatus;
import static org.rpcrdma4j.nfs.v4.state.StateFixture.bytes;
import static org.rpcrdma4j.nfs.v4.state.StateFixture.file;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.nfs.FileHandle;

/** Open stateids: OPEN, upgrades, share reservations, the seqid rules, I/O checks, CLOSE, TEST and FREE_STATEID. */
class OpenStatesTest {
    private static final FileHandle F = file("f");
    private static final FileHandle G = file("g");

    private final StateFixture f = new StateFixture();
    private final OpenStates opens = f.table.opens();
    private StateFixture.Client a;
    private StateFixture.Client b;

    @BeforeEach
    void clients() throws Exception {
        a = f.client("host-a");
        b = f.client("host-b");
        f.pastGrace();
    }

    @Test
    void aNewOpenHasSeqidOneAndAnOtherOfThisBootAndClient() throws Exception {
        Stateid s = opens.open(a.id, bytes("o1"), F, SHARE_ACCESS_READ, SHARE_DENY_NONE);

        assertThat(s.seqid()).isEqualTo(1);
        assertThat(s.otherWord(0)).isEqualTo(StateFixture.BOOT);
        assertThat(s.otherWord(1)).isEqualTo((int) a.id);
        assertThat(s.isSpecial()).isFalse();
        assertThat(opens.openCount(a.id)).isEqualTo(1);
        opens.checkIo(a.id, s, F, false);
    }

    @Test
    void theSameOwnerAndFileUpgradesTheOpen() throws Exception {
        Stateid first = opens.open(a.id, bytes("o1"), F, SHARE_ACCESS_READ, SHARE_DENY_NONE);

        Stateid upgraded = opens.open(a.id, bytes("o1"), F, SHARE_ACCESS_WRITE, SHARE_DENY_WRITE);

        assertThat(upgraded.seqid()).isEqualTo(2);
        assertThat(upgraded.other()).isEqualTo(first.other());
        assertThat(opens.openCount(a.id)).isEqualTo(1);
        opens.checkIo(a.id, upgraded, F, true);
        opens.checkIo(a.id, upgraded, F, false);
        assertStatus(NFS4ERR_SHARE_DENIED, () -> opens.open(b.id, bytes("o1"), F, SHARE_ACCESS_WRITE, 0));
    }

    @Test
    void anOpenTakenBackIsGoneAndAnUpgradeTakenBackIsAsBefore() throws Exception {
        assertThat(opens.held(a.id, bytes("o1"), F)).isNull();
        Stateid made = opens.open(a.id, bytes("o1"), F, SHARE_ACCESS_BOTH, SHARE_DENY_WRITE);
        opens.withdraw(a.id, bytes("o1"), F, made, null);
        assertThat(opens.openCount(a.id)).isZero();
        opens.open(b.id, bytes("o"), F, SHARE_ACCESS_WRITE, 0); // its deny is gone with it

        Stateid first = opens.open(a.id, bytes("o2"), G, SHARE_ACCESS_READ, SHARE_DENY_NONE);
        OpenStates.Held before = opens.held(a.id, bytes("o2"), G);
        assertThat(before).isEqualTo(new OpenStates.Held(SHARE_ACCESS_READ, SHARE_DENY_NONE, 1));
        Stateid upgraded = opens.open(a.id, bytes("o2"), G, SHARE_ACCESS_WRITE, SHARE_DENY_WRITE);
        opens.withdraw(a.id, bytes("o2"), G, upgraded, before);
        assertThat(opens.held(a.id, bytes("o2"), G)).isEqualTo(before);
        opens.checkIo(a.id, first, G, false); // the stateid the client knows is current again
        assertStatus(NFS4ERR_OPENMODE, () -> opens.checkIo(a.id, first, G, true));
        opens.open(b.id, bytes("o"), G, SHARE_ACCESS_WRITE, 0);
    }

    @Test
    void otherOwnersAndOtherFilesGetOpensOfTheirOwn() throws Exception {
        Stateid s1 = opens.open(a.id, bytes("o1"), F, SHARE_ACCESS_READ, SHARE_DENY_NONE);
        Stateid s2 = opens.open(a.id, bytes("o2"), F, SHARE_ACCESS_READ, SHARE_DENY_NONE);
        Stateid s3 = opens.open(a.id, bytes("o1"), G, SHARE_ACCESS_READ, SHARE_DENY_NONE);

        assertThat(s1.other()).isNotEqualTo(s2.other()).isNotEqualTo(s3.other());
        assertThat(s2.seqid()).isEqualTo(1);
        assertThat(s3.seqid()).isEqualTo(1);
        assertThat(opens.openCount(a.id)).isEqualTo(3);
    }

    @Test
    void shareReservationsConflictBetweenOwners() throws Exception {
        opens.open(a.id, bytes("o1"), F, SHARE_ACCESS_READ, SHARE_DENY_WRITE);

        assertStatus(NFS4ERR_SHARE_DENIED, () -> opens.open(b.id, bytes("o"), F, SHARE_ACCESS_WRITE, 0));
        assertStatus(NFS4ERR_SHARE_DENIED, () -> opens.open(a.id, bytes("o2"), F, SHARE_ACCESS_BOTH, 0));
        assertStatus(NFS4ERR_SHARE_DENIED, () -> opens.open(b.id, bytes("o"), F, SHARE_ACCESS_READ,
                SHARE_DENY_READ));
        Stateid reader = opens.open(b.id, bytes("o"), F, SHARE_ACCESS_READ, SHARE_DENY_NONE);
        assertThat(reader.seqid()).isEqualTo(1);
        assertStatus(NFS4ERR_SHARE_DENIED, () -> opens.open(a.id, bytes("o3"), F, SHARE_ACCESS_READ,
                SHARE_DENY_BOTH));
        opens.open(a.id, bytes("o3"), G, SHARE_ACCESS_BOTH, SHARE_DENY_BOTH);
        assertThat(opens.openCount(b.id)).isEqualTo(1);
    }

    @Test
    void anOpenDoesNotConflictWithItself() throws Exception {
        opens.open(a.id, bytes("o1"), F, SHARE_ACCESS_READ, SHARE_DENY_BOTH);

        Stateid s = opens.open(a.id, bytes("o1"), F, SHARE_ACCESS_WRITE, SHARE_DENY_BOTH);

        assertThat(s.seqid()).isEqualTo(2);
    }

    @Test
    void badOpenArguments() throws Exception {
        assertStatus(NFS4ERR_INVAL, () -> opens.open(a.id, bytes("o"), F, 0, 0));
        assertStatus(NFS4ERR_INVAL, () -> opens.open(a.id, bytes("o"), F, 0x0400, 0));
        assertStatus(NFS4ERR_INVAL, () -> opens.open(a.id, bytes("o"), F, SHARE_ACCESS_READ, 4));
        assertStatus(NFS4ERR_INVAL, () -> opens.open(a.id, new byte[1025], F, SHARE_ACCESS_READ, 0));
        assertStatus(NFS4ERR_STALE_CLIENTID, () -> opens.open(a.id + 100, bytes("o"), F, SHARE_ACCESS_READ, 0));
        long unconfirmed = f.exchange("host-c", 1).clientId();
        assertStatus(NFS4ERR_STALE_CLIENTID, () -> opens.open(unconfirmed, bytes("o"), F, SHARE_ACCESS_READ, 0));
        assertThat(opens.open(a.id, bytes("o"), F, SHARE_ACCESS_READ | 0x0400, 0).seqid()).isEqualTo(1);
    }

    @Test
    void theSeqidRules() throws Exception {
        Stateid v1 = opens.open(a.id, bytes("o1"), F, SHARE_ACCESS_READ, SHARE_DENY_NONE);
        Stateid v2 = opens.open(a.id, bytes("o1"), F, SHARE_ACCESS_READ, SHARE_DENY_NONE);

        opens.checkIo(a.id, v2, F, false);
        opens.checkIo(a.id, new Stateid(0, v1.other()), F, false);
        assertStatus(NFS4ERR_OLD_STATEID, () -> opens.checkIo(a.id, v1, F, false));
        assertStatus(NFS4ERR_BAD_STATEID, () -> opens.checkIo(a.id, new Stateid(3, v1.other()), F, false));
        assertStatus(NFS4ERR_OLD_STATEID, () -> opens.checkIo(a.id, new Stateid(-1, v1.other()), F, false));
    }

    @Test
    void stateidsOfAnotherBootFileOrOpenAreRefused() throws Exception {
        Stateid s = opens.open(a.id, bytes("o1"), F, SHARE_ACCESS_READ, SHARE_DENY_NONE);

        assertStatus(NFS4ERR_STALE_STATEID, () -> opens.checkIo(a.id, Stateid.of(1, StateFixture.BOOT + 1,
                s.otherWord(1), s.otherWord(2)), F, false));
        assertStatus(NFS4ERR_BAD_STATEID, () -> opens.checkIo(a.id, s, G, false));
        assertStatus(NFS4ERR_BAD_STATEID, () -> opens.checkIo(a.id, Stateid.of(1, StateFixture.BOOT,
                s.otherWord(1), s.otherWord(2) + 1000), F, false));
    }

    @Test
    void writingThroughAReadOnlyOpenIsOpenmodeAndReadingThroughAWriteOnlyOneIsAllowed() throws Exception {
        Stateid reader = opens.open(a.id, bytes("r"), F, SHARE_ACCESS_READ, SHARE_DENY_NONE);
        Stateid writer = opens.open(a.id, bytes("w"), G, SHARE_ACCESS_WRITE, SHARE_DENY_NONE);

        assertStatus(NFS4ERR_OPENMODE, () -> opens.checkIo(a.id, reader, F, true));
        opens.checkIo(a.id, writer, G, true);
        opens.checkIo(a.id, writer, G, false);
    }

    @Test
    void theSpecialStateids() throws Exception {
        opens.checkIo(a.id, Stateid.ANONYMOUS, F, false);
        opens.checkIo(a.id, Stateid.ANONYMOUS, F, true);
        opens.open(b.id, bytes("o"), F, SHARE_ACCESS_READ, SHARE_DENY_WRITE);

        opens.checkIo(a.id, Stateid.ANONYMOUS, F, false);
        assertStatus(NFS4ERR_LOCKED, () -> opens.checkIo(a.id, Stateid.ANONYMOUS, F, true));
        assertStatus(NFS4ERR_LOCKED, () -> opens.checkIo(a.id, Stateid.READ_BYPASS, F, true));
        opens.open(b.id, bytes("o2"), G, SHARE_ACCESS_READ, SHARE_DENY_READ);
        assertStatus(NFS4ERR_LOCKED, () -> opens.checkIo(a.id, Stateid.ANONYMOUS, G, false));
        opens.checkIo(a.id, Stateid.READ_BYPASS, G, false);
        assertStatus(NFS4ERR_BAD_STATEID, () -> opens.checkIo(a.id, Stateid.CURRENT, F, false));
        assertStatus(NFS4ERR_BAD_STATEID, () -> opens.checkIo(a.id, Stateid.INVALID, F, false));
        assertStatus(NFS4ERR_BAD_STATEID, () -> opens.checkIo(a.id, new Stateid(7, new byte[12]), F, false));
    }

    @Test
    void theAnonymousStateidIsRefusedInGrace() throws Exception {
        StateFixture inGrace = new StateFixture();
        StateFixture.Client c = inGrace.client("host-a");

        assertStatus(NFS4ERR_GRACE, () -> inGrace.table.opens().checkIo(c.id, Stateid.ANONYMOUS, F, false));
        assertStatus(NFS4ERR_GRACE, () -> inGrace.table.opens().checkIo(c.id, Stateid.READ_BYPASS, F, true));
        inGrace.table.opens().checkIo(c.id, Stateid.READ_BYPASS, F, false);
    }

    @Test
    void closeReturnsTheInvalidStateidAndTheClosedStateidIsBad() throws Exception {
        Stateid v1 = opens.open(a.id, bytes("o1"), F, SHARE_ACCESS_BOTH, SHARE_DENY_BOTH);
        Stateid v2 = opens.open(a.id, bytes("o1"), F, SHARE_ACCESS_READ, SHARE_DENY_NONE);
        assertStatus(NFS4ERR_OLD_STATEID, () -> opens.close(a.id, v1, F));
        assertStatus(NFS4ERR_BAD_STATEID, () -> opens.close(a.id, v2, G));

        assertThat(opens.close(a.id, v2, F)).isEqualTo(Stateid.INVALID);

        assertStatus(NFS4ERR_BAD_STATEID, () -> opens.checkIo(a.id, v2, F, false));
        assertStatus(NFS4ERR_BAD_STATEID, () -> opens.close(a.id, v2, F));
        assertStatus(NFS4ERR_BAD_STATEID, () -> opens.close(a.id, Stateid.ANONYMOUS, F));
        assertThat(opens.openCount(a.id)).isZero();
        assertThat(opens.open(b.id, bytes("o"), F, SHARE_ACCESS_BOTH, SHARE_DENY_BOTH).seqid()).isEqualTo(1);
    }

    @Test
    void closeTakesTheCurrentSeqidAsZero() throws Exception {
        Stateid v1 = opens.open(a.id, bytes("o1"), F, SHARE_ACCESS_READ, SHARE_DENY_NONE);
        opens.open(a.id, bytes("o1"), F, SHARE_ACCESS_READ, SHARE_DENY_NONE);

        assertThat(opens.close(a.id, new Stateid(0, v1.other()), F)).isEqualTo(Stateid.INVALID);
    }

    @Test
    void openDowngrade() throws Exception {
        Stateid s = opens.open(a.id, bytes("o1"), F, SHARE_ACCESS_BOTH, SHARE_DENY_WRITE);

        Stateid down = opens.openDowngrade(a.id, s, F, SHARE_ACCESS_READ, SHARE_DENY_NONE);

        assertThat(down.seqid()).isEqualTo(2);
        assertStatus(NFS4ERR_OPENMODE, () -> opens.checkIo(a.id, down, F, true));
        assertStatus(NFS4ERR_OLD_STATEID, () -> opens.checkIo(a.id, s, F, false));
        assertStatus(NFS4ERR_INVAL, () -> opens.openDowngrade(a.id, down, F, SHARE_ACCESS_BOTH, 0));
        assertStatus(NFS4ERR_INVAL, () -> opens.openDowngrade(a.id, down, F, SHARE_ACCESS_READ, SHARE_DENY_READ));
        opens.open(b.id, bytes("o"), F, SHARE_ACCESS_WRITE, SHARE_DENY_NONE);
    }

    @Test
    void theSeqidWrapsPastZero() {
        OpenState o = new OpenState(1, a.id, new Bytes(bytes("o")), F, 1, 0);
        o.seqid = -1;

        o.bump();

        assertThat(o.seqid).isEqualTo(1);
        assertThat(o.stateid().seqid()).isEqualTo(1);
    }

    @Test
    void testStateid() throws Exception {
        Stateid v1 = opens.open(a.id, bytes("o1"), F, SHARE_ACCESS_READ, SHARE_DENY_NONE);
        Stateid v2 = opens.open(a.id, bytes("o1"), F, SHARE_ACCESS_READ, SHARE_DENY_NONE);

        assertThat(opens.testStateid(a.id, v2)).isEqualTo(NFS4_OK);
        assertThat(opens.testStateid(a.id, new Stateid(0, v2.other()))).isEqualTo(NFS4_OK);
        assertThat(opens.testStateid(a.id, v1)).isEqualTo(NFS4ERR_OLD_STATEID);
        assertThat(opens.testStateid(a.id, Stateid.ANONYMOUS)).isEqualTo(NFS4ERR_BAD_STATEID);
        assertThat(opens.testStateid(a.id, Stateid.of(1, StateFixture.BOOT + 1, v2.otherWord(1),
                v2.otherWord(2)))).isEqualTo(NFS4ERR_BAD_STATEID);
        assertThat(opens.testStateid(b.id, v2)).isEqualTo(NFS4ERR_BAD_STATEID);
        opens.close(a.id, v2, F);
        assertThat(opens.testStateid(a.id, v2)).isEqualTo(NFS4ERR_BAD_STATEID);
    }

    @Test
    void freeStateidOfAnOpenThatIsStillOpenIsLocksHeld() throws Exception {
        Stateid s = opens.open(a.id, bytes("o1"), F, SHARE_ACCESS_READ, SHARE_DENY_NONE);

        assertThat(opens.freeStateid(a.id, s)).isEqualTo(NFS4ERR_LOCKS_HELD);
        assertThat(opens.openCount(a.id)).isEqualTo(1);
        opens.close(a.id, s, F);
        assertThat(opens.freeStateid(a.id, s)).isEqualTo(NFS4ERR_BAD_STATEID);
        assertThat(opens.freeStateid(a.id, Stateid.READ_BYPASS)).isEqualTo(NFS4ERR_BAD_STATEID);
    }

    @Test
    void aDestroyedClientsOpensGoAndTheirStateidsAreBad() throws Exception {
        Stateid s = opens.open(a.id, bytes("o1"), F, SHARE_ACCESS_READ, SHARE_DENY_BOTH);
        f.table.destroySession(a.session);
        assertStatus(NFS4ERR_CLIENTID_BUSY, () -> f.table.destroyClientId(a.id));
        opens.close(a.id, s, F);
        f.table.destroyClientId(a.id);

        assertStatus(NFS4ERR_BAD_STATEID, () -> opens.checkIo(a.id, s, F, false));
        assertThat(opens.open(b.id, bytes("o"), F, SHARE_ACCESS_BOTH, SHARE_DENY_BOTH).seqid()).isEqualTo(1);
    }

    @Test
    void anExpiredClientsOpensNoLongerHoldTheirReservations() throws Exception {
        Stateid s = opens.open(a.id, bytes("o1"), F, SHARE_ACCESS_READ, SHARE_DENY_BOTH);
        assertStatus(NFS4ERR_SHARE_DENIED, () -> opens.open(b.id, bytes("o"), F, SHARE_ACCESS_READ, 0));
        f.advance(StateFixture.LEASE_NANOS / 2);
        f.ping(b);
        f.advance(StateFixture.LEASE_NANOS / 2 + 1);
        f.table.expire();

        assertThat(opens.open(b.id, bytes("o"), F, SHARE_ACCESS_BOTH, SHARE_DENY_BOTH).seqid()).isEqualTo(1);
        assertStatus(NFS4ERR_EXPIRED, () -> opens.checkIo(a.id, s, F, false));
        assertStatus(NFS4ERR_EXPIRED, () -> opens.checkIo(b.id, s, F, false));
    }
}
