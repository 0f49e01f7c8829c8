package org.rpcrdma4j.nfs.v4.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rpcrdma4j.nfs.v4.Nfs4Status.*;
import static org.rpcrdma4j.nfs.v4.state.StateFixture.assertStatus;
import static org.rpcrdma4j.nfs.v4.state.StateFixture.bytes;
import static org.rpcrdma4j.nfs.v4.state.StateFixture.file;
import static org.rpcrdma4j.nfs.v4.state.StateFixture.verifier;

import org.junit.jupiter.api.Test;

/** EXCHANGE_ID: the cases of RFC 8881 section 18.35.5 for AUTH_SYS clients. */
class ExchangeIdTest {
    private final StateFixture f = new StateFixture();
    private final ClientTable table = f.table;

    @Test
    void aNewOwnerGetsAnUnconfirmedClientIdOfThisBoot() throws Exception {
        ExchangeIdResult x = f.exchange("host-a", 1);

        assertThat((int) (x.clientId() >>> 32)).isEqualTo(StateFixture.BOOT);
        assertThat(x.sequenceId()).isEqualTo(1);
        assertThat(x.flags()).isEqualTo(ExchangeIdResult.FLAG_USE_NON_PNFS);
        assertThat(x.confirmed()).isFalse();
        assertThat(table.isConfirmed(x.clientId())).isFalse();
        assertThat(f.exchange("host-b", 1).clientId()).isNotEqualTo(x.clientId());
    }

    @Test
    void aConfirmedOwnerWithTheSameVerifierGetsItsClientIdAgain() throws Exception {
        ExchangeIdResult first = f.exchange("host-a", 1);
        f.create(first);

        ExchangeIdResult again = f.exchange("host-a", 1);

        assertThat(again.clientId()).isEqualTo(first.clientId());
        assertThat(again.confirmed()).isTrue();
        assertThat(again.flags()).isEqualTo(ExchangeIdResult.FLAG_CONFIRMED_R | ExchangeIdResult.FLAG_USE_NON_PNFS);
        assertThat(again.sequenceId()).isEqualTo(2);
    }

    @Test
    void anUnconfirmedRecordIsReplacedByANewClientId() throws Exception {
        ExchangeIdResult first = f.exchange("host-a", 1);
        ExchangeIdResult second = f.exchange("host-a", 1);

        assertThat(second.clientId()).isNotEqualTo(first.clientId());
        assertThat(second.confirmed()).isFalse();
        assertStatus(NFS4ERR_STALE_CLIENTID, () -> f.create(first));
        assertThat(f.create(second).sequence()).isEqualTo(1);
    }

    @Test
    void aRestartedClientReplacesItsOldRecordOnlyOnceTheNewOneIsConfirmed() throws Exception {
        f.pastGrace();
        StateFixture.Client old = f.client("host-a");
        Stateid open = table.opens().open(old.id, bytes("o"), file("f"), 1, 0);

        ExchangeIdResult restarted = f.exchange("host-a", 2);

        assertThat(restarted.clientId()).isNotEqualTo(old.id);
        assertThat(restarted.confirmed()).isFalse();
        assertThat(restarted.sequenceId()).isEqualTo(1);
        f.ping(old);
        table.opens().checkIo(old.id, open, file("f"), false);
        assertThat(table.isConfirmed(old.id)).isTrue();

        f.create(restarted);

        assertThat(table.isConfirmed(restarted.clientId())).isTrue();
        assertThat(table.isConfirmed(old.id)).isFalse();
        assertStatus(NFS4ERR_BADSESSION, () -> f.ping(old));
        assertStatus(NFS4ERR_STALE_CLIENTID, () -> table.destroyClientId(old.id));
        assertStatus(NFS4ERR_BAD_STATEID, () -> table.opens().checkIo(old.id, open, file("f"), false));
        assertThat(table.opens().openCount(old.id)).isZero();
        assertThat(f.exchange("host-a", 2).clientId()).isEqualTo(restarted.clientId());
    }

    @Test
    void theUpdateCases() throws Exception {
        int update = ExchangeIdResult.FLAG_UPD_CONFIRMED_REC_A;
        assertStatus(NFS4ERR_NOENT, () -> table.exchangeId(bytes("host-a"), verifier(1), update));
        ExchangeIdResult x = f.exchange("host-a", 1);
        assertStatus(NFS4ERR_NOENT, () -> table.exchangeId(bytes("host-a"), verifier(1), update));
        f.create(x);

        ExchangeIdResult updated = table.exchangeId(bytes("host-a"), verifier(1), update);

        assertThat(updated.clientId()).isEqualTo(x.clientId());
        assertThat(updated.confirmed()).isTrue();
        assertStatus(NFS4ERR_NOT_SAME, () -> table.exchangeId(bytes("host-a"), verifier(2), update));
    }

    @Test
    void badArgumentsAreInval() throws Exception {
        assertStatus(NFS4ERR_INVAL, () -> table.exchangeId(new byte[1025], verifier(1), 0));
        assertStatus(NFS4ERR_INVAL, () -> table.exchangeId(bytes("h"), new byte[7], 0));
        assertStatus(NFS4ERR_INVAL, () -> table.exchangeId(bytes("h"), new byte[9], 0));
        assertStatus(NFS4ERR_INVAL, () -> table.exchangeId(bytes("h"), verifier(1),
                ExchangeIdResult.FLAG_CONFIRMED_R));
        assertStatus(NFS4ERR_INVAL, () -> table.exchangeId(bytes("h"), verifier(1), 0x8));
        assertThat(table.exchangeId(new byte[1024], verifier(1), ExchangeIdResult.FLAG_USE_NON_PNFS
                | ExchangeIdResult.FLAG_SUPP_MOVED_REFER).confirmed()).isFalse();
    }

    @Test
    void anUnconfirmedRecordExpiresAfterALease() throws Exception {
        ExchangeIdResult x = f.exchange("host-a", 1);
        f.advance(StateFixture.LEASE_NANOS + 1);

        assertStatus(NFS4ERR_STALE_CLIENTID, () -> f.create(x));
        assertThat(f.exchange("host-a", 1).clientId()).isNotEqualTo(x.clientId());
    }

    @Test
    void aClientIdOfAnotherBootIsStale() throws Exception {
        ExchangeIdResult x = f.exchange("host-a", 1);
        ClientTable restartedServer = new ClientTable(StateConfig.defaults(), StateFixture.BOOT + 1, f.clock::get);

        assertStatus(NFS4ERR_STALE_CLIENTID, () -> restartedServer.createSession(x.clientId(), 1, 0,
                StateFixture.ASK, StateFixture.ASK, 0));
        assertThat(restartedServer.exchangeId(bytes("host-a"), verifier(1), 0).clientId())
                .isNotEqualTo(x.clientId());
    }
}
