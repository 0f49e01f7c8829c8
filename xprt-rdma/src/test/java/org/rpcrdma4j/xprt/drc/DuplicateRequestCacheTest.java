package org.rpcrdma4j.xprt.drc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.rpcrdma4j.xprt.drc.Calls.intAt;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import javax.management.ObjectName;

import org.dcache.oncrpc4j.rpc.RpcAuth;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.dcache.oncrpc4j.xdr.XdrVoid;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The cache in front of {@link LedgerProgram}, driven with calls accepted from encoded messages over recording
 * transports, as a server would hand them over: what is executed, what is replayed (byte for byte), who may hit
 * whose entry, calls still executing, failures, ages and the cache's bounds.
 */
@Timeout(60)
class DuplicateRequestCacheTest {
    private static final int XID = 0x1234_5678;

    private final LedgerProgram ledger = new LedgerProgram();
    private long now = 1_000_000_000L;
    private ExecutorService threads;

    @AfterEach
    void stopThreads() {
        ledger.openGate();
        if (threads != null) {
            threads.shutdownNow();
        }
    }

    private DrcConfig.Builder config() {
        return DrcConfig.builder().nanoClock(() -> now);
    }

    private DuplicateRequestCache cache(DrcConfig.Builder b) {
        return DuplicateRequestCache.create(CachedProcedures.of(LedgerProgram.PROGRAM, LedgerProgram.VERSION,
                LedgerProgram.APPEND, LedgerProgram.SLOW_APPEND, LedgerProgram.BLOB, LedgerProgram.FAIL,
                LedgerProgram.LATER, LedgerProgram.FAIL_HARD), b.build());
    }

    private static byte[] call(int xid, int procedure, String name, RpcAuth credential) {
        return Calls.call(xid, LedgerProgram.PROGRAM, LedgerProgram.VERSION, procedure, credential,
                LedgerProgram.name(name));
    }

    private static byte[] append(int xid, String name) {
        return call(xid, LedgerProgram.APPEND, name, Calls.unix(1000));
    }

    private static void dispatch(RpcDispatchable program, byte[] message, RpcTransport transport) throws IOException {
        program.dispatchOncRpcCall(Calls.accepted(message, transport));
    }

    private ExecutorService threads() {
        if (threads == null) {
            threads = Executors.newCachedThreadPool();
        }
        return threads;
    }

    @Test
    void aRetransmissionOnANewConnectionGetsTheOriginalReplyAndIsNotExecutedAgain() throws Exception {
        DuplicateRequestCache drc = cache(config());
        RpcDispatchable served = drc.wrap(ledger);
        RecordingTransport first = new RecordingTransport("10.0.0.1", 801);
        RecordingTransport second = new RecordingTransport("10.0.0.1", 802); // reconnected: new source port
        dispatch(served, append(XID, "a"), first);
        dispatch(served, append(XID, "a"), second);

        byte[] original = first.single();
        assertThat(intAt(original, 0)).isEqualTo(XID);
        assertThat(intAt(original, 24)).as("count after the first APPEND").isEqualTo(1);
        assertThat(second.single()).isEqualTo(original);
        assertThat(ledger.executions()).isEqualTo(1);
        assertThat(ledger.count("a")).isEqualTo(1);
        assertThat(drc.counter(DrcCounter.MISSES)).isEqualTo(1);
        assertThat(drc.counter(DrcCounter.HITS)).isEqualTo(1);
        assertThat(drc.entries()).isEqualTo(1);
        assertThat(drc.counter(DrcCounter.ENTRIES_HELD)).isEqualTo(1);
        assertThat(drc.bytes()).isEqualTo(drc.counter(DrcCounter.BYTES_HELD))
                .isEqualTo(original.length + credentialLength(Calls.unix(1000)));
    }

    private static int credentialLength(RpcAuth credential) {
        // flavor + length + body, as encoded (the verifier's 8 bytes follow it)
        byte[] encoded = Calls.call(0, 1, 1, 1, credential, XdrVoid.XDR_VOID);
        return encoded.length - 24 - 8;
    }

    @Test
    void withoutTheCacheTheSameRetransmissionRunsTwice() throws Exception {
        RecordingTransport first = new RecordingTransport("10.0.0.1", 801);
        RecordingTransport second = new RecordingTransport("10.0.0.1", 802);
        dispatch(ledger, append(XID, "a"), first);
        dispatch(ledger, append(XID, "a"), second);
        assertThat(second.single()).isNotEqualTo(first.single());
        assertThat(intAt(second.single(), 24)).isEqualTo(2);
    }

    @Test
    void idempotentProceduresAreNotCached() throws Exception {
        DuplicateRequestCache drc = cache(config());
        RpcDispatchable served = drc.wrap(ledger);
        dispatch(served, append(1, "a"), new RecordingTransport("10.0.0.1", 801));
        RecordingTransport t1 = new RecordingTransport("10.0.0.1", 801);
        RecordingTransport t2 = new RecordingTransport("10.0.0.1", 802);
        dispatch(served, call(XID, LedgerProgram.COUNT, "a", Calls.unix(1000)), t1);
        dispatch(served, append(2, "a"), new RecordingTransport("10.0.0.1", 801));
        dispatch(served, call(XID, LedgerProgram.COUNT, "a", Calls.unix(1000)), t2);
        // both COUNTs ran: the second saw the second APPEND
        assertThat(intAt(t1.single(), 24)).isEqualTo(1);
        assertThat(intAt(t2.single(), 24)).isEqualTo(2);
        assertThat(drc.counter(DrcCounter.NOT_CACHED)).isEqualTo(2);
        assertThat(drc.counter(DrcCounter.HITS)).isZero();
        assertThat(drc.entries()).isEqualTo(2); // the two APPENDs only
    }

    @Test
    void anotherClientAddressWithTheSameXidIsNotServedTheFirstOnesReply() throws Exception {
        DuplicateRequestCache drc = cache(config());
        RpcDispatchable served = drc.wrap(ledger);
        RecordingTransport one = new RecordingTransport("10.0.0.1", 801);
        RecordingTransport other = new RecordingTransport("10.0.0.2", 801); // same port, other host
        dispatch(served, append(XID, "a"), one);
        dispatch(served, append(XID, "a"), other);
        assertThat(intAt(one.single(), 24)).isEqualTo(1);
        assertThat(intAt(other.single(), 24)).isEqualTo(2);
        assertThat(ledger.executions()).isEqualTo(2);
        assertThat(drc.counter(DrcCounter.HITS)).isZero();
    }

    @Test
    void anotherCredentialWithTheSameXidIsNotServedTheFirstOnesReply() throws Exception {
        DuplicateRequestCache drc = cache(config());
        RpcDispatchable served = drc.wrap(ledger);
        RecordingTransport uid1000 = new RecordingTransport("10.0.0.1", 801);
        RecordingTransport uid1001 = new RecordingTransport("10.0.0.1", 802);
        RecordingTransport none = new RecordingTransport("10.0.0.1", 803);
        dispatch(served, call(XID, LedgerProgram.APPEND, "a", Calls.unix(1000)), uid1000);
        dispatch(served, call(XID, LedgerProgram.APPEND, "a", Calls.unix(1001)), uid1001);
        dispatch(served, call(XID, LedgerProgram.APPEND, "a", Calls.none()), none);
        assertThat(intAt(uid1000.single(), 24)).isEqualTo(1);
        assertThat(intAt(uid1001.single(), 24)).isEqualTo(2);
        assertThat(intAt(none.single(), 24)).isEqualTo(3);
        assertThat(drc.counter(DrcCounter.HITS)).isZero();
        assertThat(drc.counter(DrcCounter.MISSES)).isEqualTo(3);
    }

    @Test
    void theAuthSysStampIsNotPartOfTheIdentity() throws Exception {
        DuplicateRequestCache drc = cache(config());
        RpcDispatchable served = drc.wrap(ledger);
        RecordingTransport first = new RecordingTransport("10.0.0.1", 801);
        RecordingTransport second = new RecordingTransport("10.0.0.1", 802);
        RpcAuth stamp7 = new org.dcache.oncrpc4j.rpc.RpcAuthTypeUnix(1000, 100, new int[] {100}, 7, "c");
        RpcAuth stamp8 = new org.dcache.oncrpc4j.rpc.RpcAuthTypeUnix(1000, 100, new int[] {100}, 8, "c");
        dispatch(served, call(XID, LedgerProgram.APPEND, "a", stamp7), first);
        dispatch(served, call(XID, LedgerProgram.APPEND, "a", stamp8), second);
        assertThat(second.single()).isEqualTo(first.single());
        assertThat(ledger.executions()).isEqualTo(1);
    }

    @Test
    void theSameXidWithOtherArgumentsIsANewCall() throws Exception {
        DuplicateRequestCache drc = cache(config());
        RpcDispatchable served = drc.wrap(ledger);
        RecordingTransport t1 = new RecordingTransport("10.0.0.1", 801);
        RecordingTransport t2 = new RecordingTransport("10.0.0.1", 802);
        RecordingTransport t3 = new RecordingTransport("10.0.0.1", 803);
        dispatch(served, append(XID, "name-a"), t1);
        dispatch(served, append(XID, "name-b"), t2); // same length, one byte differs: the checksum tells
        dispatch(served, append(XID, "name-bb"), t3); // another length
        assertThat(ledger.executions()).isEqualTo(3);
        assertThat(ledger.count("name-a")).isEqualTo(1);
        assertThat(ledger.count("name-b")).isEqualTo(1);
        assertThat(ledger.count("name-bb")).isEqualTo(1);
        assertThat(drc.counter(DrcCounter.HITS)).isZero();
        assertThat(drc.entries()).isEqualTo(3);
    }

    @Test
    void otherProcedureOrVersionWithTheSameXidIsANewCall() throws Exception {
        DuplicateRequestCache drc = DuplicateRequestCache.create(CachedProcedures.of(LedgerProgram.PROGRAM, 1,
                LedgerProgram.APPEND, LedgerProgram.SLOW_APPEND).with(CachedProcedures.of(LedgerProgram.PROGRAM, 2,
                LedgerProgram.APPEND)), config().build());
        RpcDispatchable served = drc.wrap(ledger);
        RecordingTransport t1 = new RecordingTransport("10.0.0.1", 801);
        RecordingTransport t2 = new RecordingTransport("10.0.0.1", 802);
        RecordingTransport t3 = new RecordingTransport("10.0.0.1", 803);
        dispatch(served, append(XID, "a"), t1);
        ledger.openGate();
        dispatch(served, call(XID, LedgerProgram.SLOW_APPEND, "a", Calls.unix(1000)), t2);
        dispatch(served, Calls.call(XID, LedgerProgram.PROGRAM, 2, LedgerProgram.APPEND, Calls.unix(1000),
                LedgerProgram.name("a")), t3);
        assertThat(ledger.executions()).isEqualTo(3);
        assertThat(drc.counter(DrcCounter.HITS)).isZero();
    }

    @Test
    void aRetransmissionWhileTheFirstIsExecutingWaitsForItsReplyAndIsNotExecuted() throws Exception {
        DuplicateRequestCache drc = cache(config());
        RpcDispatchable served = drc.wrap(ledger);
        CountDownLatch entered = ledger.closeGate();
        RecordingTransport first = new RecordingTransport("10.0.0.1", 801);
        RecordingTransport second = new RecordingTransport("10.0.0.1", 802);
        byte[] slow = call(XID, LedgerProgram.SLOW_APPEND, "a", Calls.unix(1000));
        Future<?> running = threads().submit(() -> {
            dispatch(served, slow, first);
            return null;
        });
        assertThat(entered.await(30, TimeUnit.SECONDS)).isTrue();
        dispatch(served, slow, second); // returns at once: parked, not blocked and not executed
        assertThat(drc.counter(DrcCounter.IN_PROGRESS_WAITS)).isEqualTo(1);
        assertThat(second.sent()).isEmpty();
        assertThat(drc.executing()).isEqualTo(1);

        ledger.openGate();
        running.get(30, TimeUnit.SECONDS);
        assertThat(ledger.executions()).isEqualTo(1);
        assertThat(second.single()).isEqualTo(first.single());
        assertThat(drc.executing()).isZero();

        RecordingTransport third = new RecordingTransport("10.0.0.1", 803);
        dispatch(served, slow, third); // now a plain hit
        assertThat(third.single()).isEqualTo(first.single());
        assertThat(drc.counter(DrcCounter.HITS)).isEqualTo(1);
        assertThat(ledger.executions()).isEqualTo(1);
    }

    @Test
    void retransmissionsBeyondTheWaitingRoomAreDroppedUnanswered() throws Exception {
        DuplicateRequestCache drc = cache(config().maxWaiters(1));
        RpcDispatchable served = drc.wrap(ledger);
        CountDownLatch entered = ledger.closeGate();
        RecordingTransport first = new RecordingTransport("10.0.0.1", 801);
        RecordingTransport second = new RecordingTransport("10.0.0.1", 802);
        RecordingTransport third = new RecordingTransport("10.0.0.1", 803);
        byte[] slow = call(XID, LedgerProgram.SLOW_APPEND, "a", Calls.unix(1000));
        Future<?> running = threads().submit(() -> {
            dispatch(served, slow, first);
            return null;
        });
        assertThat(entered.await(30, TimeUnit.SECONDS)).isTrue();
        dispatch(served, slow, second);
        dispatch(served, slow, third);
        assertThat(drc.counter(DrcCounter.IN_PROGRESS_WAITS)).isEqualTo(1);
        assertThat(drc.counter(DrcCounter.IN_PROGRESS_DROPS)).isEqualTo(1);
        ledger.openGate();
        running.get(30, TimeUnit.SECONDS);
        assertThat(second.single()).isEqualTo(first.single());
        assertThat(third.sent()).isEmpty();
        assertThat(third.drops).as("the transport is told: over RDMA the call holds a slot until then").isEqualTo(1);
        assertThat(first.drops + second.drops).isZero();
        assertThat(ledger.executions()).isEqualTo(1);
    }

    @Test
    void aReplySentLaterFromAnotherThreadIsCachedAndAnswersTheParkedRetransmission() throws Exception {
        DuplicateRequestCache drc = cache(config());
        RpcDispatchable served = drc.wrap(ledger);
        ledger.closeGate();
        RecordingTransport first = new RecordingTransport("10.0.0.1", 801);
        RecordingTransport second = new RecordingTransport("10.0.0.1", 802);
        byte[] later = call(XID, LedgerProgram.LATER, "a", Calls.unix(1000));
        dispatch(served, later, first); // returns before the reply
        dispatch(served, later, second);
        assertThat(drc.counter(DrcCounter.IN_PROGRESS_WAITS)).isEqualTo(1);
        ledger.openGate();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (second.sent().isEmpty() || first.sent().isEmpty()) {
            assertThat(System.nanoTime() - deadline).as("the later reply arrived").isNegative();
            Thread.sleep(2);
        }
        assertThat(second.single()).isEqualTo(first.single());
        RecordingTransport third = new RecordingTransport("10.0.0.1", 803);
        dispatch(served, later, third);
        assertThat(third.single()).isEqualTo(first.single());
        assertThat(ledger.executions()).isEqualTo(1);
    }

    @Test
    void aProgramThatThrowsIsAnsweredSystemErrOnceAndTheAnswerIsReplayed() throws Exception {
        DuplicateRequestCache drc = cache(config());
        RpcDispatchable served = drc.wrap(ledger);
        RecordingTransport first = new RecordingTransport("10.0.0.1", 801);
        RecordingTransport second = new RecordingTransport("10.0.0.1", 802);
        byte[] fail = Calls.call(XID, LedgerProgram.PROGRAM, LedgerProgram.VERSION, LedgerProgram.FAIL,
                Calls.unix(1000), XdrVoid.XDR_VOID);
        dispatch(served, fail, first);
        dispatch(served, fail, second);
        assertThat(intAt(first.single(), 8)).as("MSG_ACCEPTED").isZero();
        assertThat(intAt(first.single(), 20)).as("SYSTEM_ERR").isEqualTo(5);
        assertThat(second.single()).isEqualTo(first.single());
        assertThat(ledger.executions()).isEqualTo(1);
    }

    @Test
    void aProgramThatThrowsAnErrorIsAnsweredSystemErrAndItsRetransmissionIsNotParked() throws Exception {
        DuplicateRequestCache drc = cache(config());
        RpcDispatchable served = drc.wrap(ledger);
        RecordingTransport first = new RecordingTransport("10.0.0.1", 801);
        RecordingTransport second = new RecordingTransport("10.0.0.1", 802);
        byte[] fail = Calls.call(XID, LedgerProgram.PROGRAM, LedgerProgram.VERSION, LedgerProgram.FAIL_HARD,
                Calls.unix(1000), XdrVoid.XDR_VOID);
        dispatch(served, fail, first);
        assertThat(drc.executing()).as("calls left executing").isZero();
        dispatch(served, fail, second);
        assertThat(intAt(first.single(), 20)).as("SYSTEM_ERR").isEqualTo(5);
        assertThat(second.single()).as("the retransmission, answered from the cache").isEqualTo(first.single());
        assertThat(ledger.executions()).isEqualTo(1);
    }

    @Test
    void argumentsThatDoNotDecodeAreAnsweredGarbageArgsAndTheAnswerIsCached() throws Exception {
        DuplicateRequestCache drc = cache(config());
        RpcDispatchable served = drc.wrap(ledger);
        RecordingTransport first = new RecordingTransport("10.0.0.1", 801);
        RecordingTransport second = new RecordingTransport("10.0.0.1", 802);
        // APPEND whose name claims 1000 bytes and has 4
        byte[] bad = Calls.call(XID, LedgerProgram.PROGRAM, LedgerProgram.VERSION, LedgerProgram.APPEND,
                Calls.unix(1000), new LedgerProgram.Ints(1000, 0x61626364));
        dispatch(served, bad, first);
        dispatch(served, bad, second);
        assertThat(intAt(first.single(), 20)).as("GARBAGE_ARGS").isEqualTo(4);
        assertThat(second.single()).isEqualTo(first.single());
        assertThat(ledger.executions()).isZero();
    }

    @Test
    void aReplyAboveTheSizeLimitIsSentButNotCached() throws Exception {
        DuplicateRequestCache drc = cache(config().maxReplyBytes(1024));
        RpcDispatchable served = drc.wrap(ledger);
        RecordingTransport first = new RecordingTransport("10.0.0.1", 801);
        RecordingTransport second = new RecordingTransport("10.0.0.1", 802);
        byte[] big = Calls.call(XID, LedgerProgram.PROGRAM, LedgerProgram.VERSION, LedgerProgram.BLOB,
                Calls.unix(1000), new LedgerProgram.Ints(2000, 3));
        dispatch(served, big, first);
        assertThat(first.single()).hasSize(24 + 4 + 2000);
        assertThat(drc.counter(DrcCounter.UNCACHEABLE)).isEqualTo(1);
        assertThat(drc.entries()).isZero();
        assertThat(drc.bytes()).isZero();
        dispatch(served, big, second);
        assertThat(ledger.executions()).isEqualTo(2);
        assertThat(drc.counter(DrcCounter.HITS)).isZero();
    }

    @Test
    void aReplyThatDoesNotFitBesideTheExecutingCallsKeysIsNotCached() throws Exception {
        // room for one largest reply and one largest credential; two calls with large credentials execute meanwhile
        DuplicateRequestCache drc = cache(config().maxReplyBytes(1500).maxBytes(1500 + DrcConfig.MAX_CREDENTIAL_BYTES));
        RpcDispatchable served = drc.wrap(ledger);
        ledger.closeGate();
        RpcAuth large = new org.dcache.oncrpc4j.rpc.RpcAuthTypeUnix(1000, 100, new int[16], 7, "m".repeat(255));
        for (int xid = 1; xid <= 2; xid++) {
            dispatch(served, call(xid, LedgerProgram.LATER, "a", large), new RecordingTransport("10.0.0.1", 801));
        }
        long executingKeys = drc.bytes();
        assertThat(executingKeys).isEqualTo(2 * credentialLength(large));
        byte[] big = Calls.call(3, LedgerProgram.PROGRAM, LedgerProgram.VERSION, LedgerProgram.BLOB,
                Calls.unix(1000), new LedgerProgram.Ints(1472, 3));
        RecordingTransport t = new RecordingTransport("10.0.0.1", 801);
        dispatch(served, big, t);
        assertThat(t.single()).hasSize(1500); // sent; within maxReplyBytes, but not beside the executing keys
        assertThat(drc.counter(DrcCounter.UNCACHEABLE)).isEqualTo(1);
        assertThat(drc.bytes()).isEqualTo(executingKeys).isLessThanOrEqualTo(drc.config().maxBytes());
        assertThat(drc.entries()).isEqualTo(2);
    }

    @Test
    void repliesExpireAfterTheMaximumAge() throws Exception {
        DuplicateRequestCache drc = cache(config().maxAge(Duration.ofSeconds(120)));
        RpcDispatchable served = drc.wrap(ledger);
        dispatch(served, append(XID, "a"), new RecordingTransport("10.0.0.1", 801));
        now += Duration.ofSeconds(119).toNanos();
        RecordingTransport hit = new RecordingTransport("10.0.0.1", 802);
        dispatch(served, append(XID, "a"), hit);
        assertThat(drc.counter(DrcCounter.HITS)).isEqualTo(1);
        now += Duration.ofSeconds(1).toNanos();
        RecordingTransport late = new RecordingTransport("10.0.0.1", 803);
        dispatch(served, append(XID, "a"), late);
        assertThat(drc.counter(DrcCounter.EXPIRATIONS)).isEqualTo(1);
        assertThat(intAt(late.single(), 24)).isEqualTo(2);
        assertThat(ledger.executions()).isEqualTo(2);
    }

    @Test
    void theOldestReplyIsEvictedFirst() throws Exception {
        DuplicateRequestCache drc = cache(config().maxEntries(3));
        RpcDispatchable served = drc.wrap(ledger);
        for (int xid = 1; xid <= 4; xid++) {
            dispatch(served, append(xid, "a"), new RecordingTransport("10.0.0.1", 801));
        }
        assertThat(drc.counter(DrcCounter.EVICTIONS)).isEqualTo(1);
        assertThat(drc.entries()).isEqualTo(3);
        dispatch(served, append(2, "a"), new RecordingTransport("10.0.0.1", 802)); // kept: a hit
        assertThat(drc.counter(DrcCounter.HITS)).isEqualTo(1);
        assertThat(ledger.executions()).isEqualTo(4);
        dispatch(served, append(1, "a"), new RecordingTransport("10.0.0.1", 802)); // evicted: runs again
        assertThat(ledger.executions()).isEqualTo(5);
        assertThat(drc.counter(DrcCounter.EVICTIONS)).isEqualTo(2);
    }

    @Test
    void aCallStillExecutingIsNeverEvictedForRoom() throws Exception {
        DuplicateRequestCache drc = cache(config().maxEntries(1));
        RpcDispatchable served = drc.wrap(ledger);
        CountDownLatch entered = ledger.closeGate();
        RecordingTransport first = new RecordingTransport("10.0.0.1", 801);
        byte[] slow = call(XID, LedgerProgram.SLOW_APPEND, "a", Calls.unix(1000));
        Future<?> running = threads().submit(() -> {
            dispatch(served, slow, first);
            return null;
        });
        assertThat(entered.await(30, TimeUnit.SECONDS)).isTrue();
        RecordingTransport other = new RecordingTransport("10.0.0.1", 801);
        dispatch(served, append(7, "b"), other); // no room: runs uncached
        assertThat(drc.counter(DrcCounter.NO_ROOM)).isEqualTo(1);
        assertThat(intAt(other.single(), 24)).isEqualTo(1);
        RecordingTransport retransmission = new RecordingTransport("10.0.0.1", 802);
        dispatch(served, slow, retransmission); // the executing call kept its entry
        assertThat(drc.counter(DrcCounter.IN_PROGRESS_WAITS)).isEqualTo(1);
        ledger.openGate();
        running.get(30, TimeUnit.SECONDS);
        assertThat(retransmission.single()).isEqualTo(first.single());
        assertThat(ledger.count("a")).isEqualTo(1);
    }

    @Test
    void aCallExecutingLongerThanTheMaximumAgeIsAbandonedButStillAnswersItsParkedRetransmissions()
            throws Exception {
        DuplicateRequestCache drc = cache(config().maxAge(Duration.ofSeconds(10)));
        RpcDispatchable served = drc.wrap(ledger);
        ledger.closeGate();
        RecordingTransport first = new RecordingTransport("10.0.0.1", 801);
        RecordingTransport parked = new RecordingTransport("10.0.0.1", 802);
        byte[] later = call(XID, LedgerProgram.LATER, "a", Calls.unix(1000));
        dispatch(served, later, first);
        dispatch(served, later, parked);
        now += Duration.ofSeconds(10).toNanos();
        dispatch(served, append(99, "b"), new RecordingTransport("10.0.0.1", 801)); // purges
        assertThat(drc.counter(DrcCounter.ABANDONED)).isEqualTo(1);
        assertThat(drc.entries()).isEqualTo(1);
        ledger.openGate();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (parked.sent().isEmpty()) {
            assertThat(System.nanoTime() - deadline).as("the parked retransmission was answered").isNegative();
            Thread.sleep(2);
        }
        assertThat(parked.single()).isEqualTo(first.single());
        assertThat(drc.entries()).isEqualTo(1); // the abandoned call's reply was not cached
    }

    @Test
    void callsOfRpcCallSubclassesAreNotCached() throws Exception {
        DuplicateRequestCache drc = cache(config());
        RpcDispatchable served = drc.wrap(ledger);
        for (int port : new int[] {801, 802}) {
            RecordingTransport t = new RecordingTransport("10.0.0.1", port);
            Xdr xdr = new Xdr(append(XID, "a"));
            xdr.beginDecoding();
            int xid = xdr.xdrDecodeInt();
            xdr.xdrDecodeInt();
            RpcCall call = new RpcCall(xid, xdr, t) {
                // a subclass, as oncrpc4j's RPCSEC_GSS call is
            };
            call.accept();
            served.dispatchOncRpcCall(call);
            assertThat(t.sent()).hasSize(1);
        }
        assertThat(ledger.executions()).isEqualTo(2);
        assertThat(drc.counter(DrcCounter.UNCACHEABLE)).isEqualTo(2);
    }

    @Test
    void aFailedReplayIsCounted() throws Exception {
        DuplicateRequestCache drc = cache(config());
        RpcDispatchable served = drc.wrap(ledger);
        dispatch(served, append(XID, "a"), new RecordingTransport("10.0.0.1", 801));
        RecordingTransport broken = new RecordingTransport("10.0.0.1", 802);
        broken.failSends = true;
        dispatch(served, append(XID, "a"), broken);
        assertThat(drc.counter(DrcCounter.HITS)).isEqualTo(1);
        assertThat(drc.counter(DrcCounter.REPLAY_FAILURES)).isEqualTo(1);
    }

    @Test
    void wrappingTwiceWithTheSameCacheReturnsTheSameFront() {
        DuplicateRequestCache drc = cache(config());
        CachingDispatchable front = drc.wrap(ledger);
        assertThat(drc.wrap(front)).isSameAs(front);
        assertThat(front.program()).isSameAs(ledger);
        assertThat(front.cache()).isSameAs(drc);
        DuplicateRequestCache other = cache(config());
        assertThat(other.wrap(front).program()).isSameAs(front);
    }

    @Test
    void theMBeanShowsTheCountersUntilClosed() throws Exception {
        DuplicateRequestCache drc = cache(config().jmxName("drc-test"));
        ObjectName name = new ObjectName("org.rpcrdma4j:type=DuplicateRequestCache,name=\"drc-test\"");
        try {
            dispatch(drc.wrap(ledger), append(XID, "a"), new RecordingTransport("10.0.0.1", 801));
            var server = ManagementFactory.getPlatformMBeanServer();
            assertThat(server.getAttribute(name, "Entries")).isEqualTo(1);
            javax.management.openmbean.TabularData counters =
                    (javax.management.openmbean.TabularData) server.getAttribute(name, "Counters");
            assertThat(counters.get(new Object[] {"MISSES"}).get("value")).isEqualTo(1L);
        } finally {
            drc.close();
        }
        assertThat(ManagementFactory.getPlatformMBeanServer().isRegistered(name)).isFalse();
    }

    @Test
    void configurationsThatCannotHoldOneEntryAreRefused() {
        assertThatThrownBy(() -> DrcConfig.builder().maxBytes(4096).maxReplyBytes(4096).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxBytes");
        assertThatThrownBy(() -> DrcConfig.builder().maxEntries(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> DrcConfig.builder().maxAge(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
