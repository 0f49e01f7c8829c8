package org.rpcrdma4j.nfs.client.v4;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.Unpooled;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.StableHow;
import org.rpcrdma4j.nfs.client.NfsClientConfig;
import org.rpcrdma4j.nfs.client.RpcBadReplyException;
import org.rpcrdma4j.nfs.client.RpcConnectionException;
import org.rpcrdma4j.nfs.client.TcpDataTransport;
import org.rpcrdma4j.nfs.server.NfsServer;
import org.rpcrdma4j.nfs.v4.Nfs4;
import org.rpcrdma4j.nfs.v4.Nfs4Status;
import org.rpcrdma4j.nfs.v4.state.Stateid;
import org.rpcrdma4j.nfs.vfs.MemoryVfs;

/**
 * The session's answers to what goes wrong between client and server, each fault made on purpose by a
 * {@link FaultyTransport} in front of the real NFSv4.1 server over TCP. One slot, so that every COMPOUND uses slot 0
 * and its sequence ids can be followed.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class Nfs41SessionFaultTest {
    private final MemoryVfs memory = new MemoryVfs();
    private NfsServer server;
    private FaultyTransport faults;
    private Nfs41Client client;

    @BeforeEach
    void start() throws IOException {
        server = NfsServer.builder().export("/export", memory).bindAddress("127.0.0.1").port(0)
                .nfs4(AbstractNfs41ClientTest.state(Duration.ofSeconds(60), Duration.ZERO)).build().start();
        NfsClientConfig config = NfsClientConfig.defaults();
        faults = new FaultyTransport(TcpDataTransport.connect(server.address(), config));
        client = Nfs41Client.connect(faults, "/export", config, Nfs41Options.defaults().withSlots(1)
                .withDelayRetries(3, Duration.ofMillis(1), Duration.ofMillis(5)).withRecoveryAttempts(2));
    }

    @AfterEach
    void stop() throws IOException {
        client.close();
        faults.close();
        server.close();
        memory.close();
    }

    private int lastSequenceId() {
        List<FaultyTransport.Sent> all = faults.sent();
        return all.get(all.size() - 1).sequenceId();
    }

    private static List<Integer> sequenceIds(List<FaultyTransport.Sent> sent) {
        return sent.stream().map(FaultyTransport.Sent::sequenceId).toList();
    }

    private List<Integer> probes() {
        return sequenceIds(faults.sent(SequenceProbe.TAG));
    }

    /**
     * A CREATE_SESSION the server refuses (NOSPC: the client's one session still stands there) uses up its sequence,
     * as RFC 8881 section 18.36.4 has it and Linux's server and client count it: the next try goes on the next
     * sequence and makes the session once there is room. On the refused sequence the server would answer its cached
     * refusal again.
     */
    @Test
    void aRefusedCreateSessionUsesUpItsSequence() throws Exception {
        org.rpcrdma4j.nfs.v4.state.StateConfig d = org.rpcrdma4j.nfs.v4.state.StateConfig.defaults();
        MemoryVfs vfs = new MemoryVfs();
        NfsServer one = NfsServer.builder().export("/export", vfs).bindAddress("127.0.0.1").port(0)
                .nfs4(new org.rpcrdma4j.nfs.v4.state.StateConfig(Duration.ofSeconds(60), Duration.ZERO,
                        d.foreLimits(), d.backLimits(), 1)).build().start();
        NfsClientConfig config = NfsClientConfig.defaults();
        try (FaultyTransport f = new FaultyTransport(TcpDataTransport.connect(one.address(), config));
             Nfs41Client c = Nfs41Client.connect(f, "/export", config, Nfs41Options.defaults().withSlots(1)
                     .withDelayRetries(3, Duration.ofMillis(1), Duration.ofMillis(5)).withRecoveryAttempts(1))) {
            byte[] first = c.session().sessionId();
            f.plan("getattr", FaultyTransport.Fault.SEQUENCE_ERROR, Nfs4Status.NFS4ERR_BADSESSION, 1);
            assertThatThrownBy(() -> c.getattr(c.root())).as("a new session is refused: the old one stands")
                    .hasMessageContaining("NFS4ERR_NOSPC");

            one.nfs4().clients().destroySession(first);
            assertThat(c.getattr(c.root()).isDirectory()).isTrue();
            assertThat(c.session().sessionId()).isNotEqualTo(first);
        } finally {
            one.close();
            vfs.close();
        }
    }

    @Test
    void aRequestTheServerNeverSawHasItsSequenceIdTakenByAProbe() throws Exception {
        int seq = lastSequenceId();
        faults.plan("getattr", FaultyTransport.Fault.LOSE_REQUEST, 0, 1);
        assertThatThrownBy(() -> client.getattr(client.root())).isInstanceOf(RpcConnectionException.class);
        assertThat(client.getattr(client.root()).isDirectory()).isTrue();
        // lost at seq+1; the next tried seq+2, the server said SEQ_MISORDERED, a probe took seq+1, and seq+2 went
        // through
        assertThat(sequenceIds(faults.sent("getattr"))).containsExactly(seq + 1, seq + 2, seq + 2);
        assertThat(probes()).containsExactly(seq + 1);
        assertThat(client.getattr(client.root()).isDirectory()).isTrue();
        assertThat(lastSequenceId()).isEqualTo(seq + 3);
        assertThat(client.session().sessionsCreated()).isEqualTo(1);
    }

    /**
     * A REMOVE runs on the server and its reply is lost; the next REMOVE meets the server while the first still runs
     * (knfsd answers SEQ_MISORDERED then). The id below, the lost REMOVE's, is probed with SEQUENCE alone, which the
     * server answers SEQ_FALSE_RETRY (the probe is not the REMOVE it holds there), as knfsd does; had the second REMOVE
     * been sent there, the lost REMOVE's cached reply would have been taken as its own, and its file left in place.
     */
    @Test
    void aStepDownOntoARequestWhoseReplyWasLostIsAProbeAndTheCompoundStillRuns() throws Exception {
        client.writeAll("/a", new byte[] {1});
        client.writeAll("/b", new byte[] {2});
        int seq = lastSequenceId();
        faults.plan("remove", FaultyTransport.Fault.LOSE_REPLY, 0, 1);
        assertThatThrownBy(() -> client.remove(client.root(), "a")).isInstanceOf(RpcConnectionException.class);
        faults.plan("remove", FaultyTransport.Fault.SEQUENCE_ERROR, Nfs4Status.NFS4ERR_SEQ_MISORDERED, 1);
        client.remove(client.root(), "b");
        assertThat(client.list("/")).as("both REMOVEs ran").isEmpty();
        assertThat(sequenceIds(faults.sent("remove"))).as("the second REMOVE only on its own id")
                .containsExactly(seq + 1, seq + 2, seq + 2);
        assertThat(faults.sent(SequenceProbe.TAG)).as("the id below probed without asking for a cached reply")
                .containsExactly(new FaultyTransport.Sent(SequenceProbe.TAG, 0, seq + 1, false));
        assertThat(faults.calls()).filteredOn(c -> c.startsWith(SequenceProbe.TAG + " "))
                .containsExactly(SequenceProbe.TAG + " SEQUENCE NFS4ERR_SEQ_FALSE_RETRY");
    }

    /**
     * As knfsd answers while a request whose reply was lost still runs: SEQ_MISORDERED for the next id, DELAY for a
     * probe of the request's own, and, once it ran, SEQ_FALSE_RETRY for that probe (it differs from the request). The
     * probe goes again on the same id after each DELAY; the false retry shows that the server holds the id.
     */
    @Test
    void aProbeMeetingARequestStillRunningGoesAgainAndAFalseRetryLetsTheCompoundGoOn() throws Exception {
        client.writeAll("/c", new byte[] {1});
        int seq = lastSequenceId();
        faults.plan("remove", FaultyTransport.Fault.LOSE_REPLY, 0, 1);
        assertThatThrownBy(() -> client.remove(client.root(), "c")).isInstanceOf(RpcConnectionException.class);
        faults.plan("getattr", FaultyTransport.Fault.SEQUENCE_ERROR, Nfs4Status.NFS4ERR_SEQ_MISORDERED, 1);
        faults.plan(SequenceProbe.TAG, FaultyTransport.Fault.SEQUENCE_ERROR, Nfs4Status.NFS4ERR_DELAY, 2);
        faults.plan(SequenceProbe.TAG, FaultyTransport.Fault.SEQUENCE_ERROR, Nfs4Status.NFS4ERR_SEQ_FALSE_RETRY, 1);
        long delays = client.session().delayRetries();
        assertThat(client.getattr(client.root()).isDirectory()).isTrue();
        assertThat(sequenceIds(faults.sent("getattr"))).containsExactly(seq + 2, seq + 2);
        assertThat(probes()).containsExactly(seq + 1, seq + 1, seq + 1);
        assertThat(client.session().delayRetries() - delays).isEqualTo(2);
        assertThat(client.session().slotsInUse()).isZero();
    }

    @Test
    void twoRequestsTheServerNeverSawAreSteppedOverOneIdAtATime() throws Exception {
        int seq = lastSequenceId();
        faults.plan("getattr", FaultyTransport.Fault.LOSE_REQUEST, 0, 2);
        for (int i = 0; i < 2; i++) {
            assertThatThrownBy(() -> client.getattr(client.root())).isInstanceOf(RpcConnectionException.class);
        }
        assertThat(client.getattr(client.root()).isDirectory()).isTrue();
        // lost at seq+1 and seq+2; the next tried seq+3, probes stepped down over seq+2 (SEQ_MISORDERED) to seq+1,
        // and back up to seq+2; then seq+3 went through
        assertThat(sequenceIds(faults.sent("getattr"))).containsExactly(seq + 1, seq + 2, seq + 3, seq + 3);
        assertThat(probes()).containsExactly(seq + 2, seq + 1, seq + 2);
        assertThat(client.getattr(client.root()).isDirectory()).isTrue();
        assertThat(lastSequenceId()).isEqualTo(seq + 4);
        assertThat(client.session().sessionsCreated()).isEqualTo(1);
    }

    @Test
    void aRequestThatRanAndOneThatNeverArrivedLeaveTheSlotAtTheServersNext() throws Exception {
        client.writeAll("/ran", new byte[] {1});
        int seq = lastSequenceId();
        faults.plan("remove", FaultyTransport.Fault.LOSE_REPLY, 0, 1);
        assertThatThrownBy(() -> client.remove(client.root(), "ran")).isInstanceOf(RpcConnectionException.class);
        faults.plan("getattr", FaultyTransport.Fault.LOSE_REQUEST, 0, 1);
        assertThatThrownBy(() -> client.getattr(client.root())).isInstanceOf(RpcConnectionException.class);
        assertThat(client.list("/")).as("the REMOVE ran").isEmpty();
        // the server took seq+1 (the REMOVE), not seq+2: READDIR tried seq+3, a probe took seq+2, then seq+3 went
        // through
        assertThat(sequenceIds(faults.sent("readdir"))).containsExactly(seq + 3, seq + 3);
        assertThat(probes()).containsExactly(seq + 2);
        assertThat(client.getattr(client.root()).isDirectory()).isTrue();
        assertThat(lastSequenceId()).isEqualTo(seq + 4);
    }

    @Test
    void aRequestGivenUpOnDelayLeavesItsIdToTheServerAndTheNextRequestIsNotAnsweredWithItsReply()
            throws Exception {
        client.writeAll("/w", new byte[8]);
        FileHandle fh = client.lookup(client.root(), "w").handle();
        int seq = lastSequenceId();
        // the WRITE runs on the server, and the client is told DELAY more often than it waits for
        faults.plan("write", FaultyTransport.Fault.SEQUENCE_ERROR_AFTER, Nfs4Status.NFS4ERR_DELAY, 4);
        assertThatThrownBy(() -> client.write(fh, 0, Unpooled.wrappedBuffer(new byte[] {1, 1}), StableHow.FILE_SYNC))
                .isInstanceOfSatisfying(Nfs4StatusException.class,
                        e -> assertThat(e.nfs4Status()).isEqualTo(Nfs4Status.NFS4ERR_DELAY));
        faults.clearPlans();
        client.write(fh, 4, Unpooled.wrappedBuffer(new byte[] {2, 2}), StableHow.FILE_SYNC);
        assertThat(client.readAll("/w")).as("both WRITEs ran, neither took the other's reply")
                .containsExactly(1, 1, 0, 0, 2, 2, 0, 0);
        List<Integer> writes = sequenceIds(faults.sent("write"));
        assertThat(writes.subList(writes.size() - 5, writes.size())).as("four tries of the first, then the second")
                .containsExactly(seq + 1, seq + 1, seq + 1, seq + 1, seq + 2);
    }

    @Test
    void aFalseRetryLeavesTheIdToTheServersRequestAndTheCompoundGoesThroughOnTheNext() throws Exception {
        client.writeAll("/fr", new byte[] {1});
        int seq = lastSequenceId();
        // as knfsd answers a request on an id whose lost request it ran: this one was not taken
        faults.plan("remove", FaultyTransport.Fault.SEQUENCE_ERROR, Nfs4Status.NFS4ERR_SEQ_FALSE_RETRY, 1);
        client.remove(client.root(), "fr");
        assertThat(client.list("/")).isEmpty();
        // the server never saw seq+1 here: seq+2 is SEQ_MISORDERED, a probe takes seq+1, and seq+2 goes through
        assertThat(sequenceIds(faults.sent("remove"))).containsExactly(seq + 1, seq + 2, seq + 2);
        assertThat(probes()).containsExactly(seq + 1);
        assertThat(client.session().sessionsCreated()).isEqualTo(1);
    }

    @Test
    void misorderedOnTheNextIdProbesOneThenTheSameIdGoesAgainAndTheSlotGoesOn() throws Exception {
        int seq = lastSequenceId();
        faults.plan("getattr", FaultyTransport.Fault.SEQUENCE_ERROR, Nfs4Status.NFS4ERR_SEQ_MISORDERED, 1);
        assertThat(client.getattr(client.root()).isDirectory()).isTrue();
        // seq+1 was answered SEQ_MISORDERED in the server's place; a probe of 1 is misordered at the server, whose
        // slot is at seq; seq+1 again, after a back-off, goes through
        assertThat(sequenceIds(faults.sent("getattr"))).containsExactly(seq + 1, seq + 1);
        assertThat(probes()).containsExactly(1);
        assertThat(client.getattr(client.root()).isDirectory()).isTrue();
        assertThat(lastSequenceId()).isEqualTo(seq + 2);
        assertThat(client.session().sessionsCreated()).isEqualTo(1);
    }

    @Test
    void aSlotTheServerStartedAgainGoesOnFromSequenceIdOne() throws Exception {
        int seq = lastSequenceId();
        faults.restartSlot(0);
        client.writeAll("/r", new byte[] {5, 6});
        List<Integer> ids = sequenceIds(faults.sent());
        int first = ids.indexOf(seq + 1);
        assertThat(ids.subList(first, first + 3)).as("misordered at seq+1, then a probe of 1 and the COMPOUND on 2 go "
                + "through").containsExactly(seq + 1, 1, 2);
        assertThat(probes()).containsExactly(1);
        assertThat(client.readAll("/r")).containsExactly(5, 6);
        assertThat(client.session().sessionsCreated()).isEqualTo(1);
    }

    @Test
    void slotsAboveAHighestSlotIdTheServerLoweredStartAgainAtOne() throws Exception {
        NfsClientConfig config = NfsClientConfig.defaults();
        try (FaultyTransport two = new FaultyTransport(TcpDataTransport.connect(server.address(), config));
             Nfs41Client c = Nfs41Client.connect(two, "/export", config, Nfs41Options.defaults().withSlots(2))) {
            c.writeAll("/s", new byte[] {1});
            onSlotOne(two, c, 2);
            // the server says its highest slot is 0 (and drops slot 1), then 1 again
            two.shrinkOnce(0);
            assertThat(c.getattr(c.root()).isDirectory()).isTrue();
            assertThat(c.getattr(c.root()).isDirectory()).isTrue();
            onSlotOne(two, c, 1);
            assertThat(two.sent("getattr").stream().filter(g -> g.slot() == 1).map(FaultyTransport.Sent::sequenceId))
                    .as("slot 1 before the server dropped it, and after").containsExactly(1, 2, 1);
            assertThat(c.readAll("/s")).containsExactly(1);
            assertThat(c.session().sessionsCreated()).isEqualTo(1);
        }
    }

    /**
     * The server lowers its highest slot id and raises it again, keeping slot 1 at the id it had, below the client's:
     * a request on it was lost before. Slot 1 starts again at 1, which is misordered; it goes back to its old ids, and
     * one past them is misordered too: probes step down to the server's id, and the COMPOUND goes on one past the old.
     */
    @Test
    void aRestartedSlotTheServerKeptAtAnOlderIdFindsItAgain() throws Exception {
        NfsClientConfig config = NfsClientConfig.defaults();
        try (FaultyTransport two = new FaultyTransport(TcpDataTransport.connect(server.address(), config));
             Nfs41Client c = Nfs41Client.connect(two, "/export", config, Nfs41Options.defaults().withSlots(2)
                     .withDelayRetries(3, Duration.ofMillis(1), Duration.ofMillis(5)))) {
            c.writeAll("/s", new byte[] {1});
            onSlotOne(two, c, 3);
            two.plan("getattr", FaultyTransport.Fault.LOSE_REQUEST, 0, 1);
            assertThatThrownBy(() -> onSlotOne(two, c, 1)).isInstanceOf(RpcConnectionException.class);
            two.lowerHighestOnce(0);
            assertThat(c.getattr(c.root()).isDirectory()).isTrue();
            assertThat(c.getattr(c.root()).isDirectory()).isTrue();
            onSlotOne(two, c, 2);
            assertThat(sequenceIds(two.sent("getattr").stream().filter(g -> g.slot() == 1).toList()))
                    .as("1 to 3, 4 lost, 1 after the restart, 5 misordered until a probe took 4, 5, then 6")
                    .containsExactly(1, 2, 3, 4, 1, 5, 5, 6);
            assertThat(sequenceIds(two.sent(SequenceProbe.TAG))).containsExactly(4);
            assertThat(c.session().sessionsCreated()).isEqualTo(1);
        }
    }

    /** Sends {@code count} GETATTRs on slot 1 while a LOOKUP holds slot 0. */
    private static void onSlotOne(FaultyTransport t, Nfs41Client c, int count) throws Exception {
        t.plan("lookup", FaultyTransport.Fault.HOLD_REPLY, 0, 1);
        int lookups = t.sent("lookup").size();
        java.util.concurrent.CompletableFuture<?> held = c.async().lookup(c.root(), "s");
        AbstractNfs41ClientTest.await("the LOOKUP on slot 0", () -> t.sent("lookup").size() > lookups);
        try {
            for (int i = 0; i < count; i++) {
                assertThat(c.getattr(c.root()).isDirectory()).isTrue();
            }
        } finally {
            t.releaseHeld();
            held.get();
        }
    }

    @Test
    void aReplyLostAfterTheServerRanTheRequestMovesTheSlotOn() throws Exception {
        client.writeAll("/gone", new byte[] {1});
        int seq = lastSequenceId();
        faults.plan("remove", FaultyTransport.Fault.LOSE_REPLY, 0, 1);
        assertThatThrownBy(() -> client.remove(client.root(), "gone")).isInstanceOf(RpcConnectionException.class);
        assertThat(client.list("/")).isEmpty();
        assertThat(faults.sent().get(faults.sent().size() - 1).sequenceId()).isEqualTo(seq + 2);
        assertThat(faults.sent("readdir")).hasSize(1);
    }

    @Test
    void delayOnSequenceSendsTheSameRequestAgainOnTheSameSlotAndSequenceId() throws Exception {
        client.writeAll("/d", new byte[] {1});
        faults.plan("remove", FaultyTransport.Fault.SEQUENCE_ERROR, Nfs4Status.NFS4ERR_DELAY, 2);
        client.remove(client.root(), "d");
        List<FaultyTransport.Sent> removes = faults.sent("remove");
        assertThat(removes).hasSize(3);
        assertThat(removes).allMatch(s -> s.slot() == 0 && s.sequenceId() == removes.get(0).sequenceId()
                && s.cacheThis());
        assertThat(client.session().delayRetries()).isEqualTo(2);
        assertThat(client.list("/")).isEmpty();
    }

    @Test
    void moreDelaysThanAllowedFailAndTheSlotStaysUsable() throws Exception {
        faults.plan("getattr", FaultyTransport.Fault.SEQUENCE_ERROR, Nfs4Status.NFS4ERR_DELAY, 10);
        assertThatThrownBy(() -> client.getattr(client.root())).isInstanceOfSatisfying(Nfs4StatusException.class,
                e -> assertThat(e.nfs4Status()).isEqualTo(Nfs4Status.NFS4ERR_DELAY));
        faults.clearPlans();
        assertThat(client.getattr(client.root()).isDirectory()).isTrue();
    }

    /** The session closing on another thread, held (until {@link #finish}) once it stopped the timer, its first act. */
    private final class Closing {
        private final CompletableFuture<Void> stateGivenBack = new CompletableFuture<>();
        private final Thread thread = new Thread(client.session()::close, "closing");

        Closing() throws InterruptedException {
            CountDownLatch timerStopped = new CountDownLatch(1);
            client.session().stateRecovery(new Nfs41Session.StateRecovery() {
                @Override
                public CompletableFuture<Void> closeAll() {
                    timerStopped.countDown(); // called once the timer is stopped
                    return stateGivenBack;
                }
            });
            thread.start();
            timerStopped.await();
        }

        void finish() {
            faults.releaseHeld();
            stateGivenBack.complete(null);
            try {
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * A back-off after DELAY that the closing session refuses fails its COMPOUND. A GETATTR whose SEQUENCE went
     * through gave its slot to the ACCESS waiting for it, and then its operation said DELAY: the slot stays the
     * ACCESS's while the ACCESS's reply is out, and a COMPOUND sent meanwhile waits for it, instead of going out on
     * the same slot and sequence id.
     */
    @Test
    void aBackOffRefusedAsTheSessionClosesGivesBackNoSlotHandedOnAlready() throws Exception {
        Nfs41Session session = client.session();
        ClientSlotTable slots = session.currentState().slots;
        faults.plan("fsstat", FaultyTransport.Fault.HOLD_REPLY, 0, 1);
        CompletableFuture<?> fsstat = client.async().fsstat(client.root());
        AbstractNfs41ClientTest.await("the FSSTAT sent", () -> faults.sent("fsstat").size() == 1);
        faults.plan("getattr", FaultyTransport.Fault.LAST_OP_ERROR, Nfs4Status.NFS4ERR_DELAY, 1);
        CompletableFuture<?> getattr = client.async().getattr(client.root());
        AbstractNfs41ClientTest.await("the GETATTR waiting", () -> slots.waiting() == 1);
        faults.plan("access", FaultyTransport.Fault.HOLD_REPLY, 0, 1);
        CompletableFuture<?> access = client.async().access(client.root(), 1);
        AbstractNfs41ClientTest.await("the ACCESS waiting", () -> slots.waiting() == 2);
        Closing closing = new Closing();
        try {
            faults.releaseHeld(); // the FSSTAT's reply: the slot to the GETATTR, then to the ACCESS
            fsstat.get();
            assertThatThrownBy(getattr::get).cause().isInstanceOf(RpcConnectionException.class);
            AbstractNfs41ClientTest.await("the ACCESS sent", () -> faults.sent("access").size() == 1);
            assertThat(session.slotsInUse()).as("the ACCESS's slot").isOne();

            // a COMPOUND that still goes out while the session closes
            CompletableFuture<CompoundRes> other = session.call(new Compound("other").putrootfh().releasingState());
            AbstractNfs41ClientTest.await("the other COMPOUND waiting", () -> slots.waiting() == 1);
            faults.releaseHeld();
            access.get();
            assertThat(other.get().isOk()).isTrue();
            FaultyTransport.Sent sent = faults.sent("access").get(0);
            assertThat(faults.sent("other")).containsExactly(new FaultyTransport.Sent("other", sent.slot(),
                    sent.sequenceId() + 1, false));
            assertThat(session.slotsInUse()).isZero();
        } finally {
            closing.finish();
        }
    }

    /**
     * SEQUENCE said DELAY (the server holds the id, running the request) and the closing session refuses the back-off
     * of the retry on that id: the COMPOUND fails and the slot's next request goes on the id after.
     */
    @Test
    void aSameIdRetryRefusedAsTheSessionClosesLeavesItsIdToTheServer() throws Exception {
        Nfs41Session session = client.session();
        faults.plan("delayed", FaultyTransport.Fault.SEQUENCE_ERROR_AFTER, Nfs4Status.NFS4ERR_DELAY, 1);
        Closing closing = new Closing();
        try {
            CompletableFuture<CompoundRes> delayed = session.call(new Compound("delayed").putrootfh()
                    .releasingState());
            assertThatThrownBy(delayed::get).cause().isInstanceOf(RpcConnectionException.class);
            assertThat(session.slotsInUse()).isZero();
            CompletableFuture<CompoundRes> next = session.call(new Compound("next").putrootfh().releasingState());
            assertThat(next.get().isOk()).isTrue();
            assertThat(sequenceIds(faults.sent("next"))).as("past the id the server holds")
                    .containsExactly(faults.sent("delayed").get(0).sequenceId() + 1);
        } finally {
            closing.finish();
        }
    }

    /** A PUTROOTFH that asks for a cached reply and cannot be prepared again, as a LOCKU once the locks were lost. */
    private static final class PreparedOnce extends Op {
        private int prepared;

        PreparedOnce() {
            super(Nfs4.OP_PUTROOTFH);
        }

        @Override
        void encode(XdrEncodingStream xdr) {
        }

        @Override
        boolean mutating() {
            return true;
        }

        @Override
        void prepare(long clientId) {
            if (++prepared > 1) {
                throw new CompletionException(new LocksLostException(null));
            }
        }
    }

    /**
     * SEQUENCE said DELAY (the server ran the COMPOUND on its id and kept the reply), and the retry on that id cannot
     * be prepared: the COMPOUND fails, and the slot's next request goes on the id after, not on the one whose reply
     * the server keeps.
     */
    @Test
    void aRetryThatCannotBePreparedLeavesItsIdToTheServer() throws Exception {
        client.writeAll("/f", new byte[] {1});
        faults.plan("once", FaultyTransport.Fault.SEQUENCE_ERROR_AFTER, Nfs4Status.NFS4ERR_DELAY, 1);
        CompletableFuture<CompoundRes> once = client.session().call(new Compound("once").add(new PreparedOnce()));
        assertThatThrownBy(once::get).hasRootCauseInstanceOf(LocksLostException.class);
        assertThat(client.session().slotsInUse()).isZero();
        client.remove(client.root(), "f");
        assertThat(client.list("/")).isEmpty();
        assertThat(sequenceIds(faults.sent("remove"))).containsExactly(faults.sent("once").get(0).sequenceId() + 1);
    }

    @Test
    void aLongGraceLeavesTheDelayTriesWhole() throws Exception {
        // more tries of GRACE than the three the client allows for DELAY, then one DELAY
        faults.plan("getattr", FaultyTransport.Fault.LAST_OP_ERROR, Nfs4Status.NFS4ERR_GRACE, 40);
        faults.plan("getattr", FaultyTransport.Fault.LAST_OP_ERROR, Nfs4Status.NFS4ERR_DELAY, 1);
        assertThat(client.getattr(client.root()).isDirectory()).isTrue();
        assertThat(faults.sent("getattr")).hasSize(42);
        assertThat(client.session().delayRetries()).isEqualTo(41);
        assertThat(client.session().sessionsCreated()).isEqualTo(1);
    }

    @Test
    void theCallbackPathFlagsAskNothingOfAClientWithoutCallbacks() throws Exception {
        assertThat(client.session().servesCallbacks()).isFalse();
        long before = client.session().repliesActedOn();
        faults.statusFlags(Nfs4Ops.SEQ4_STATUS_CB_PATH_DOWN); // as knfsd over TCP sets it on every SEQUENCE
        for (int i = 0; i < 5; i++) {
            assertThat(client.getattr(client.root()).isDirectory()).isTrue();
        }
        client.writeAll("/cb", new byte[] {3});
        assertThat(client.readAll("/cb")).containsExactly(3);
        assertThat(client.session().repliesActedOn()).as("replies finished where they arrived").isEqualTo(before);
        assertThat(client.session().backChannelBinds()).isZero();
    }

    @Test
    void aSessionTheServerDoesNotKnowIsMadeAgainAndTheCompoundSentOnIt() throws Exception {
        byte[] before = client.session().sessionId();
        faults.plan("getattr", FaultyTransport.Fault.SEQUENCE_ERROR, Nfs4Status.NFS4ERR_BADSESSION, 1);
        assertThat(client.getattr(client.root()).isDirectory()).isTrue();
        assertThat(client.session().sessionsCreated()).isEqualTo(2);
        assertThat(client.session().sessionId()).isNotEqualTo(before);
        List<FaultyTransport.Sent> getattrs = faults.sent("getattr");
        assertThat(getattrs.get(getattrs.size() - 1).sequenceId()).as("a new session's slot starts at 1").isOne();
    }

    @Test
    void recoveriesAreBounded() {
        faults.plan("getattr", FaultyTransport.Fault.SEQUENCE_ERROR, Nfs4Status.NFS4ERR_DEADSESSION, 10);
        assertThatThrownBy(() -> client.getattr(client.root())).isInstanceOfSatisfying(Nfs4StatusException.class,
                e -> assertThat(e.nfs4Status()).isEqualTo(Nfs4Status.NFS4ERR_BADSESSION));
        assertThat(client.session().sessionsCreated()).isEqualTo(3);
    }

    @Test
    void aRetryWhoseReplyWasNotCachedIsSentAgainOnlyWhenItChangesNothing() throws Exception {
        int seq = lastSequenceId();
        faults.plan("getattr", FaultyTransport.Fault.SEQUENCE_ERROR_AFTER, Nfs4Status.NFS4ERR_RETRY_UNCACHED_REP, 1);
        assertThat(client.getattr(client.root()).isDirectory()).isTrue();
        assertThat(sequenceIds(faults.sent("getattr"))).containsExactly(seq + 1, seq + 2);

        client.writeAll("/u", new byte[] {1});
        faults.plan("remove", FaultyTransport.Fault.SEQUENCE_ERROR_AFTER, Nfs4Status.NFS4ERR_RETRY_UNCACHED_REP, 1);
        assertThatThrownBy(() -> client.remove(client.root(), "u")).isInstanceOfSatisfying(
                Nfs4StatusException.class,
                e -> assertThat(e.nfs4Status()).isEqualTo(Nfs4Status.NFS4ERR_RETRY_UNCACHED_REP));
        assertThat(faults.sent("remove")).hasSize(1);
        assertThat(client.list("/")).as("the REMOVE ran once").isEmpty();
    }

    @Test
    void aGarbledReplyIsABadReplyAndTheSessionGoesOn() throws Exception {
        faults.plan("getattr", FaultyTransport.Fault.GARBLE_REPLY, 0, 1);
        assertThatThrownBy(() -> client.getattr(client.root())).isInstanceOf(RpcBadReplyException.class);
        assertThat(client.getattr(client.root()).isDirectory()).isTrue();
        assertThat(client.session().sessionsCreated()).isEqualTo(1);
        assertThat(client.session().slotsInUse()).isZero();
    }

    @Test
    void anOpenTheServerForgotIsOpenedAgainForTheIo() throws Exception {
        FileHandle fh = client.createFile("/f");
        long clientId = client.session().clientId();
        Stateid4 before = client.async().files().stateidOf(fh);
        assertThat(before).isNotNull();
        // the server loses the open behind the client's back: the next WRITE meets NFS4ERR_BAD_STATEID
        server.nfs4().clients().opens().close(clientId, new Stateid(before.seqid(), before.other()), fh);
        assertThat(server.nfs4().clients().opens().openCount(clientId)).isZero();
        client.write(fh, 0, io.netty.buffer.Unpooled.wrappedBuffer(new byte[] {7}),
                org.rpcrdma4j.nfs.StableHow.FILE_SYNC);
        assertThat(faults.sent("write")).as("refused, opened again, sent again").hasSize(2);
        assertThat(faults.sent("open")).as("the OPEN that created the file, the one that opened it again")
                .hasSize(2);
        assertThat(client.async().files().stateidOf(fh)).isNotEqualTo(before);
        assertThat(server.nfs4().clients().opens().openCount(clientId)).isOne();
        assertThat(client.readAll("/f")).containsExactly(7);
    }

    @Test
    void anExpiredStateidIsOpenedAgainOnTheSameClientIdAndSession() throws Exception {
        FileHandle fh = client.createFile("/x");
        long clientId = client.session().clientId();
        faults.plan("write", FaultyTransport.Fault.LAST_OP_ERROR, Nfs4Status.NFS4ERR_EXPIRED, 1);
        client.write(fh, 0, Unpooled.wrappedBuffer(new byte[] {4, 2}), StableHow.FILE_SYNC);
        assertThat(faults.sent("write")).as("answered EXPIRED, opened again, sent again").hasSize(2);
        assertThat(faults.sent("open")).as("the OPEN that created the file, the one that opened it again")
                .hasSize(2);
        assertThat(client.session().sessionsCreated()).isOne();
        assertThat(client.session().clientIdsCreated()).isOne();
        assertThat(client.session().clientId()).isEqualTo(clientId);
        assertThat(server.nfs4().clients().opens().openCount(clientId)).isOne();
        assertThat(client.readAll("/x")).containsExactly(4, 2);
    }

    @Test
    void theLocksOfAnExpiredStateidAreLost() throws Exception {
        FileHandle fh = client.createFile("/xl");
        client.lock(fh, LockType.WRITE, 0, 10);
        faults.plan("write", FaultyTransport.Fault.LAST_OP_ERROR, Nfs4Status.NFS4ERR_EXPIRED, 1);
        assertThatThrownBy(() -> client.write(fh, 0, Unpooled.wrappedBuffer(new byte[] {1}), StableHow.FILE_SYNC))
                .isInstanceOf(LocksLostException.class);
        assertThat(client.session().sessionsCreated()).isOne();
        assertThat(client.session().clientIdsCreated()).isOne();
        client.close(fh);
        client.write(fh, 0, Unpooled.wrappedBuffer(new byte[] {9}), StableHow.FILE_SYNC);
        assertThat(client.readAll("/xl")).containsExactly(9);
    }

    @Test
    void anUnlockOfAnExpiredLockFailsAndTheFilesLocksAreLost() throws Exception {
        FileHandle fh = client.createFile("/xu");
        client.lock(fh, LockType.WRITE, 0, 10);
        faults.plan("locku", FaultyTransport.Fault.LAST_OP_ERROR, Nfs4Status.NFS4ERR_EXPIRED, 1);
        assertThatThrownBy(() -> client.unlock(fh, 0, 10)).isInstanceOfSatisfying(Nfs4StatusException.class,
                e -> assertThat(e.nfs4Status()).isEqualTo(Nfs4Status.NFS4ERR_EXPIRED));
        assertThatThrownBy(() -> client.write(fh, 0, Unpooled.wrappedBuffer(new byte[] {1}), StableHow.FILE_SYNC))
                .isInstanceOf(LocksLostException.class);
        assertThat(client.session().sessionsCreated()).isOne();
        assertThat(client.session().clientIdsCreated()).isOne();
    }

    @Test
    void revokedStateIsTestedAndFreedAndOnlyTheRevokedOpenIsMadeAgain() throws Exception {
        FileHandle a = client.createFile("/ra");
        FileHandle b = client.createFile("/rb");
        client.lock(b, LockType.WRITE, 0, 10);
        long clientId = client.session().clientId();
        OpenFiles files = client.async().files();
        Stateid4 aBefore = files.stateidOf(a);
        Stateid4 bBefore = files.stateidOf(b);
        // the server takes A's open back, and says so in every SEQUENCE until the client frees it
        server.nfs4().clients().opens().close(clientId, new Stateid(aBefore.seqid(), aBefore.other()), a);
        faults.revoke(aBefore);
        assertThat(client.getattr(client.root()).isDirectory()).isTrue();
        files.revokedState().lastRound().get();
        assertThat(files.revokedState().freed()).isOne();
        assertThat(files.stateidOf(a).other()).as("A opened again").isNotEqualTo(aBefore.other());

        client.write(b, 0, Unpooled.wrappedBuffer(new byte[] {5}), StableHow.FILE_SYNC); // its lock is still held
        client.write(a, 0, Unpooled.wrappedBuffer(new byte[] {6}), StableHow.FILE_SYNC);
        assertThat(files.stateidOf(b)).as("B's open kept").isEqualTo(bBefore);
        assertThat(client.readAll("/ra")).containsExactly(6);
        assertThat(client.readAll("/rb")).containsExactly(5);
        List<String> calls = faults.calls();
        assertThat(calls.stream().filter(c -> c.startsWith("test_stateid")))
                .containsExactly("test_stateid SEQUENCE,TEST_STATEID NFS4_OK");
        assertThat(calls.stream().filter(c -> c.startsWith("free_stateid")))
                .containsExactly("free_stateid SEQUENCE,FREE_STATEID NFS4_OK");
        assertThat(files.revokedState().rounds()).isOne();
        assertThat(server.nfs4().clients().opens().openCount(clientId)).isEqualTo(2);
        assertThat(client.session().sessionsCreated()).isOne();
    }

    @Test
    void minorVersionOneIsSpokenWhenAsked() throws Exception {
        try (Nfs41Client one = Nfs41Client.mount("tcp://127.0.0.1:" + server.port() + "/export",
                NfsClientConfig.defaults(), Nfs41Options.defaults().withMinorVersion(1))) {
            assertThat(one.session().minorVersion()).isOne();
            assertThat(client.session().minorVersion()).isEqualTo(2);
            one.writeAll("/v1", new byte[] {4, 1});
            assertThat(client.readAll("/v1")).containsExactly(4, 1);
        }
    }

    @Test
    void closingAClientThatHoldsALockUnlocksThenClosesThenEndsItsSessionAndClientId() throws Exception {
        FileHandle fh = client.createFile("/locked");
        client.lock(fh, LockType.WRITE, 0, 10);
        long id = client.session().clientId();
        int before = faults.calls().size();
        client.close();
        List<String> calls = faults.calls();
        assertThat(calls.subList(before, calls.size())).as("what closing the client sent, in order").containsExactly(
                "locku SEQUENCE,PUTFH,LOCKU NFS4_OK",
                "close SEQUENCE,PUTFH,CLOSE NFS4_OK",
                "close DESTROY_SESSION NFS4_OK",
                "close DESTROY_CLIENTID NFS4_OK");
        assertThat(server.nfs4().clients().isConfirmed(id)).isFalse();
    }

    @Test
    void afterCloseTheServerForgetsTheClientAndCallsFail() throws Exception {
        long id = client.session().clientId();
        client.writeAll("/c", new byte[] {1});
        client.close();
        assertThat(server.nfs4().clients().isConfirmed(id)).isFalse();
        assertThatThrownBy(() -> client.getattr(client.root())).isInstanceOf(RpcConnectionException.class);
    }
}
