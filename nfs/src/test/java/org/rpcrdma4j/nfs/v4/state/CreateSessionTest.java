package org.rpcrdma4j.nfs.v4.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rpcrdma4j.nfs.v4.Nfs4Status.*;
import static org.rpcrdma4j.nfs.v4.state.StateFixture.ASK;
import static org.rpcrdma4j.nfs.v4.state.StateFixture.assertStatus;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** CREATE_SESSION: sessions, the csa_sequence replay rules of RFC 8881 section 18.36.4, flags and channels. */
class CreateSessionTest {
    private final StateFixture f = new StateFixture();
    private final ClientTable table = f.table;

    @Test
    void theFirstCreateSessionMakesASessionAndConfirmsTheClient() throws Exception {
        ExchangeIdResult x = f.exchange("host-a", 1);

        CreateSessionResult cs = f.create(x);

        assertThat(cs.sequence()).isEqualTo(x.sequenceId());
        assertThat(cs.sessionId().toByteArray()).hasSize(16);
        assertThat(table.isConfirmed(x.clientId())).isTrue();
        Session s = table.session(cs.sessionId().toByteArray());
        assertThat(s.clientId()).isEqualTo(x.clientId());
        assertThat(s.callbackProgram()).isEqualTo(0x40000000);
        assertThat(s.destroyed()).isFalse();
    }

    @Test
    void theSameSequenceAgainReturnsTheSameSessionAndMakesNoOther() throws Exception {
        StateFixture one = new StateFixture(StateConfig.defaults().foreLimits(), 1, Duration.ZERO);
        ExchangeIdResult x = one.exchange("host-a", 1);
        CreateSessionResult first = one.create(x);

        CreateSessionResult replay = one.create(x);

        assertThat(replay).isEqualTo(first);
        assertThat(replay.sessionId()).isEqualTo(first.sessionId());
        assertStatus(NFS4ERR_NOSPC, () -> one.table.createSession(x.clientId(), x.sequenceId() + 1, 0, ASK, ASK, 0));
    }

    @Test
    void theNextSequenceMakesAnotherSession() throws Exception {
        ExchangeIdResult x = f.exchange("host-a", 1);
        CreateSessionResult first = f.create(x);

        CreateSessionResult second = table.createSession(x.clientId(), 2, 0, ASK, ASK, 0);

        assertThat(second.sessionId()).isNotEqualTo(first.sessionId());
        assertThat(f.exchange("host-a", 1).sequenceId()).isEqualTo(3);
        assertThat(table.createSession(x.clientId(), 2, 0, ASK, ASK, 0)).isEqualTo(second);
    }

    @Test
    void aForeChannelThatCannotCarryASequenceIsTooSmallAndMakesNoSession() throws Exception {
        ExchangeIdResult x = f.exchange("host-a", 1);
        ChannelAttributes shortRequests = new ChannelAttributes(0, ChannelAttributes.SMALLEST_REQUEST - 1, 1 << 20,
                4096, 16, 8);
        ChannelAttributes shortReplies = new ChannelAttributes(0, 1 << 20, ChannelAttributes.SMALLEST_REPLY - 1,
                4096, 16, 8);
        assertStatus(NFS4ERR_TOOSMALL, () -> table.createSession(x.clientId(), 1, 0, shortRequests, ASK, 0));
        assertStatus(NFS4ERR_TOOSMALL, () -> table.createSession(x.clientId(), 1, 0, shortReplies, ASK, 0));
        ChannelAttributes smallest = new ChannelAttributes(0, ChannelAttributes.SMALLEST_REQUEST,
                ChannelAttributes.SMALLEST_REPLY, 0, 1, 1);
        CreateSessionResult made = table.createSession(x.clientId(), 1, 0, smallest, ASK, 0);
        assertThat(made.fore().maxRequestSize()).isEqualTo(ChannelAttributes.SMALLEST_REQUEST);
        assertThat(made.fore().maxResponseSize()).isEqualTo(ChannelAttributes.SMALLEST_REPLY);
    }

    @Test
    void anyOtherSequenceIsMisordered() throws Exception {
        ExchangeIdResult x = f.exchange("host-a", 1);
        assertStatus(NFS4ERR_SEQ_MISORDERED, () -> table.createSession(x.clientId(), 0, 0, ASK, ASK, 0));
        assertStatus(NFS4ERR_SEQ_MISORDERED, () -> table.createSession(x.clientId(), 2, 0, ASK, ASK, 0));
        f.create(x);

        assertStatus(NFS4ERR_SEQ_MISORDERED, () -> table.createSession(x.clientId(), 0, 0, ASK, ASK, 0));
        assertStatus(NFS4ERR_SEQ_MISORDERED, () -> table.createSession(x.clientId(), 3, 0, ASK, ASK, 0));
    }

    @Test
    void anUnknownOrStaleClientIdIsStaleClientId() throws Exception {
        ExchangeIdResult x = f.exchange("host-a", 1);
        long otherBoot = (long) (StateFixture.BOOT + 1) << 32 | (x.clientId() & 0xffffffffL);

        assertStatus(NFS4ERR_STALE_CLIENTID, () -> table.createSession(x.clientId() + 1, 1, 0, ASK, ASK, 0));
        assertStatus(NFS4ERR_STALE_CLIENTID, () -> table.createSession(otherBoot, 1, 0, ASK, ASK, 0));
    }

    @Test
    void onlyTheBackChannelFlagIsKept() throws Exception {
        ExchangeIdResult x = f.exchange("host-a", 1);

        CreateSessionResult cs = table.createSession(x.clientId(), 1, CreateSessionResult.FLAG_PERSIST
                | CreateSessionResult.FLAG_CONN_BACK_CHAN | CreateSessionResult.FLAG_CONN_RDMA, ASK, ASK, 0);

        assertThat(cs.flags()).isEqualTo(CreateSessionResult.FLAG_CONN_BACK_CHAN);
        assertThat(table.session(cs.sessionId().toByteArray()).flags())
                .isEqualTo(CreateSessionResult.FLAG_CONN_BACK_CHAN);
        assertThat(table.createSession(x.clientId(), 2, CreateSessionResult.FLAG_PERSIST, ASK, ASK, 0).flags())
                .isZero();
    }

    @Test
    void unknownFlagsAreInvalAndLeaveTheSequenceWhereItWas() throws Exception {
        ExchangeIdResult x = f.exchange("host-a", 1);

        assertStatus(NFS4ERR_INVAL, () -> table.createSession(x.clientId(), 1, 0x8, ASK, ASK, 0));

        assertThat(table.isConfirmed(x.clientId())).isFalse();
        assertThat(f.create(x).sequence()).isEqualTo(1);
    }

    @Test
    void theChannelsAreNegotiatedAndTheForeChannelHasOneSlotPerRequest() throws Exception {
        ChannelAttributes limits = new ChannelAttributes(0, 8192, 8192, 1024, 8, 4);
        StateFixture small = new StateFixture(limits, 4, Duration.ZERO);
        ExchangeIdResult x = small.exchange("host-a", 1);

        CreateSessionResult cs = small.create(x);

        assertThat(cs.fore()).isEqualTo(new ChannelAttributes(0, 8192, 8192, 1024, 8, 4));
        assertThat(cs.back()).isEqualTo(ChannelAttributes.negotiate(ASK, StateConfig.defaults().backLimits()));
        Session s = small.table.session(cs.sessionId().toByteArray());
        assertThat(s.fore()).isEqualTo(cs.fore());
        assertThat(s.slots().highestSlotId()).isEqualTo(3);
    }

    @Test
    void tooManySessionsIsNospcAndTheSequenceStays() throws Exception {
        StateFixture two = new StateFixture(StateConfig.defaults().foreLimits(), 2, Duration.ZERO);
        ExchangeIdResult x = two.exchange("host-a", 1);
        CreateSessionResult first = two.create(x);
        two.table.createSession(x.clientId(), 2, 0, ASK, ASK, 0);

        assertStatus(NFS4ERR_NOSPC, () -> two.table.createSession(x.clientId(), 3, 0, ASK, ASK, 0));

        two.table.destroySession(first.sessionId().toByteArray());
        assertThat(two.table.createSession(x.clientId(), 3, 0, ASK, ASK, 0).sequence()).isEqualTo(3);
    }
}
