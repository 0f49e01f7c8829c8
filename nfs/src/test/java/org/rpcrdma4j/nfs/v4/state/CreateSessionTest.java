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
        assertStatus(NFS4ERR_TOOSMALL, () -> table.createSession(x.clientId(), 2, 0, shortReplies, ASK, 0));
        ChannelAttributes smallest = new ChannelAttributes(0, ChannelAttributes.SMALLEST_REQUEST,
                ChannelAttributes.SMALLEST_REPLY, 0, 1, 1);
        CreateSessionResult made = table.createSession(x.clientId(), 3, 0, smallest, ASK, 0);
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

    /**
     * A CREATE_SESSION that fails for its arguments uses up its sequence, and its replay gets the same failure, as from
     * Linux's server: a Linux client goes on with the next sequence after such an answer, which used to be
     * SEQ_MISORDERED here (it then started over with a new client ID).
     */
    @Test
    void unknownFlagsAreInvalAndUseUpTheSequence() throws Exception {
        ExchangeIdResult x = f.exchange("host-a", 1);

        assertStatus(NFS4ERR_INVAL, () -> table.createSession(x.clientId(), 1, 0x8, ASK, ASK, 0));

        assertThat(table.isConfirmed(x.clientId())).isFalse();
        assertStatus(NFS4ERR_INVAL, () -> table.createSession(x.clientId(), 1, 0, ASK, ASK, 0));
        assertThat(table.createSession(x.clientId(), 2, 0, ASK, ASK, 0).sequence()).isEqualTo(2);
        assertThat(table.isConfirmed(x.clientId())).isTrue();
    }

    @Test
    void theChannelsAreNegotiatedAndTheForeChannelHasOneSlotPerRequest() throws Exception {
        ChannelAttributes limits = new ChannelAttributes(0, 8192, 8192, 1024, 8, 4);
        StateFixture small = new StateFixture(limits, 4, Duration.ZERO);
        ExchangeIdResult x = small.exchange("host-a", 1);

        CreateSessionResult cs = small.create(x);

        assertThat(cs.fore()).isEqualTo(new ChannelAttributes(0, 8192, 8192, 1024, 8, 4));
        assertThat(cs.back()).as("callbacks of at most 4 KiB; the client's reply size, operations and slots")
                .isEqualTo(new ChannelAttributes(0, 4096, 1 << 20, 0, 16, 8));
        Session s = small.table.session(cs.sessionId().toByteArray());
        assertThat(s.fore()).isEqualTo(cs.fore());
        assertThat(s.slots().highestSlotId()).isEqualTo(3);
    }

    /**
     * The back channel a Linux client with 64 KiB pages asks over TCP: replies of a page, two operations, one slot.
     * Granted as asked but for the server's own requests (Linux's server does the same): such a client refuses a
     * session whose back channel takes shorter replies, or other counts, than it asked.
     */
    @Test
    void theBackChannelKeepsTheClientsReplySizeOperationsAndSlots() throws Exception {
        ExchangeIdResult x = f.exchange("host-a", 1);
        ChannelAttributes asked = new ChannelAttributes(0, 65536, 65536, 0, 2, 1);

        CreateSessionResult cs = table.createSession(x.clientId(), x.sequenceId(), 0, ASK, asked, 0x40000000);

        assertThat(cs.back()).isEqualTo(new ChannelAttributes(0, 4096, 65536, 0, 2, 1));
        ChannelAttributes none = new ChannelAttributes(0, 1024, 0, 4096, 0, 0);
        assertThat(table.createSession(x.clientId(), x.sequenceId() + 1, 0, ASK, none, 0x40000000).back())
                .as("smaller requests kept, nothing cached, at least one operation and one slot")
                .isEqualTo(new ChannelAttributes(0, 1024, 0, 0, 1, 1));
    }

    @Test
    void tooManySessionsIsNospcAndUsesUpTheSequence() throws Exception {
        StateFixture two = new StateFixture(StateConfig.defaults().foreLimits(), 2, Duration.ZERO);
        ExchangeIdResult x = two.exchange("host-a", 1);
        CreateSessionResult first = two.create(x);
        two.table.createSession(x.clientId(), 2, 0, ASK, ASK, 0);

        assertStatus(NFS4ERR_NOSPC, () -> two.table.createSession(x.clientId(), 3, 0, ASK, ASK, 0));

        two.table.destroySession(first.sessionId().toByteArray());
        assertStatus(NFS4ERR_NOSPC, () -> two.table.createSession(x.clientId(), 3, 0, ASK, ASK, 0));
        assertThat(two.table.createSession(x.clientId(), 4, 0, ASK, ASK, 0).sequence()).isEqualTo(4);
    }

    /** What one slot of a session made with {@link StateFixture#ASK} reserves: a 4 KiB cached reply and its record. */
    private static final long ASK_SLOT_BYTES = 4096 + ClientTable.SLOT_RECORD_BYTES;

    /** A table whose reply caches may take {@code slots} slots of {@link StateFixture#ASK}'s size in all. */
    private static StateFixture withReplyCacheOf(long slots) {
        StateConfig d = StateConfig.defaults();
        return new StateFixture(new StateConfig(Duration.ofNanos(StateFixture.LEASE_NANOS), Duration.ZERO,
                d.foreLimits(), d.backLimits(), 64).withReplyCacheBytes(slots * ASK_SLOT_BYTES));
    }

    @Test
    void sessionsGetFewerSlotsAsTheReplyCacheMemoryRunsLowAndAlwaysOne() throws Exception {
        StateFixture f = withReplyCacheOf(64);
        ExchangeIdResult x = f.exchange("host-a", 1);
        int[] granted = new int[40];
        long reserved = 0;

        for (int i = 0; i < granted.length; i++) {
            CreateSessionResult cs = f.table.createSession(x.clientId(), i + 1, 0, ASK, ASK, 0);
            granted[i] = cs.fore().maxRequests();
            Session s = f.table.session(cs.sessionId().toByteArray());
            assertThat(s.slots().highestSlotId()).isEqualTo(granted[i] - 1);
            reserved += granted[i] * ASK_SLOT_BYTES;
            assertThat(f.table.replyCacheReserved()).isEqualTo(reserved);
        }

        // an eighth of what is left: 64 slots' worth left gives the 8 asked, then 56 left gives 7, 49 left 6, ..., 15 left 1
        assertThat(granted).startsWith(8, 7, 6, 5, 4, 4, 3, 3, 3, 2, 2, 2, 1);
        assertThat(granted).containsOnly(8, 7, 6, 5, 4, 3, 2, 1);
        assertThat(granted[granted.length - 1]).isEqualTo(1);
        assertThat(reserved).isGreaterThan(64 * ASK_SLOT_BYTES); // the one slot each gets past the bound
    }

    @Test
    void aDestroyedSessionOrAnExpiredClientGivesItsReplyCacheMemoryBack() throws Exception {
        StateFixture f = withReplyCacheOf(64);
        ExchangeIdResult a = f.exchange("host-a", 1);
        CreateSessionResult first = f.table.createSession(a.clientId(), 1, 0, ASK, ASK, 0);
        CreateSessionResult second = f.table.createSession(a.clientId(), 2, 0, ASK, ASK, 0);
        assertThat(second.fore().maxRequests()).isEqualTo(7);

        f.table.destroySession(second.sessionId().toByteArray());
        assertThat(f.table.replyCacheReserved()).isEqualTo(8 * ASK_SLOT_BYTES);
        assertThat(f.table.createSession(a.clientId(), 3, 0, ASK, ASK, 0).fore().maxRequests()).isEqualTo(7);

        StateFixture.Client b = f.client("host-b");
        assertThat(f.table.session(b.session).fore().maxRequests()).isEqualTo(6);
        f.advance(StateFixture.LEASE_NANOS / 2);
        f.ping(b);
        f.advance(StateFixture.LEASE_NANOS / 2 + 1);
        assertThat(f.table.expire()).isEqualTo(1); // host-a, which holds no opens
        assertThat(f.table.replyCacheReserved()).isEqualTo(6 * ASK_SLOT_BYTES);
        assertThat(first.fore().maxRequests()).isEqualTo(8);
        assertThat(f.client("host-c").session).satisfies(
                c -> assertThat(f.table.session(c).fore().maxRequests()).isEqualTo(7));
    }
}
