package org.rpcrdma4j.nfs.v4.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rpcrdma4j.nfs.v4.Nfs4Status.NFS4ERR_DELAY;
import static org.rpcrdma4j.nfs.v4.state.StateFixture.bytes;
import static org.rpcrdma4j.nfs.v4.state.StateFixture.file;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.nfs.v4.Nfs4Exception;

/**
 * Several threads at once, as the COMPOUND server's workers call: nothing is lost, and one slot lets exactly one of
 * several identical requests execute. The timeouts only keep a deadlock from hanging the build.
 */
class ConcurrencyTest {
    private static final int ROUNDS = 2000;

    private final ExecutorService pool = Executors.newFixedThreadPool(16);

    @AfterEach
    void shutdown() {
        pool.shutdownNow();
    }

    private <T> List<T> runAll(List<Callable<T>> tasks) throws Exception {
        List<Future<T>> futures = new ArrayList<>();
        for (Callable<T> t : tasks) {
            futures.add(pool.submit(t));
        }
        List<T> results = new ArrayList<>();
        for (Future<T> f : futures) {
            results.add(f.get(2, TimeUnit.MINUTES));
        }
        return results;
    }

    private static byte[] reply(int worker, int round) {
        return ByteBuffer.allocate(8).putInt(worker).putInt(round).array();
    }

    @Test
    void sequencesOnTheirOwnSlotsAndOpensOfTheirOwnOwnersLoseNothing() throws Exception {
        StateFixture f = new StateFixture();
        f.pastGrace();
        StateFixture.Client shared = f.client("shared");
        int slots = 8;
        int ownClients = 4;
        CyclicBarrier start = new CyclicBarrier(slots + ownClients + 1);
        List<Callable<Stateid>> tasks = new ArrayList<>();
        for (int w = 0; w < slots; w++) {
            int worker = w;
            tasks.add(() -> {
                start.await();
                Stateid last = null;
                for (int round = 1; round <= ROUNDS; round++) {
                    SequenceResult r = f.table.sequence(shared.session, round, worker, slots - 1, true);
                    assertThat(r.verdict().kind()).isEqualTo(SlotVerdict.Kind.EXECUTE);
                    last = f.table.opens().open(shared.id, bytes("owner-" + worker), file("file-" + worker),
                            round % 2 == 0 ? OpenStates.SHARE_ACCESS_WRITE : OpenStates.SHARE_ACCESS_READ,
                            OpenStates.SHARE_DENY_BOTH);
                    f.table.opens().checkIo(shared.id, last, file("file-" + worker), false);
                    f.table.completeSequence(r.session(), worker, reply(worker, round));
                }
                return last;
            });
        }
        List<StateFixture.Client> own = new ArrayList<>();
        for (int c = 0; c < ownClients; c++) {
            String name = "own-" + c;
            tasks.add(() -> {
                start.await();
                StateFixture.Client client = f.client(name);
                synchronized (own) {
                    own.add(client);
                }
                Stateid last = null;
                for (int round = 1; round <= ROUNDS; round++) {
                    f.ping(client);
                    last = f.table.opens().open(client.id, bytes("o"), file(name), OpenStates.SHARE_ACCESS_READ,
                            OpenStates.SHARE_DENY_NONE);
                    if (round % 100 == 0) {
                        f.table.expire();
                    }
                }
                return last;
            });
        }
        List<Future<Stateid>> futures = new ArrayList<>();
        for (Callable<Stateid> t : tasks) {
            futures.add(pool.submit(t));
        }
        start.await(2, TimeUnit.MINUTES);
        List<Stateid> last = new ArrayList<>();
        for (Future<Stateid> fu : futures) {
            last.add(fu.get(2, TimeUnit.MINUTES));
        }

        for (int w = 0; w < slots; w++) {
            SequenceResult retry = f.table.sequence(shared.session, ROUNDS, w, slots - 1, true);
            assertThat(retry.verdict().cachedReply()).as("slot %d", w).isEqualTo(reply(w, ROUNDS));
            assertThat(last.get(w).seqid()).as("open of worker %d", w).isEqualTo(ROUNDS);
            f.table.opens().checkIo(shared.id, last.get(w), file("file-" + w), true);
        }
        assertThat(f.table.session(shared.session).slots().inProgress()).isZero();
        assertThat(f.table.opens().openCount(shared.id)).isEqualTo(slots);
        for (StateFixture.Client client : own) {
            assertThat(client.slot0).isEqualTo(ROUNDS);
            assertThat(f.table.opens().openCount(client.id)).isEqualTo(1);
            assertThat(f.table.isConfirmed(client.id)).isTrue();
        }
        for (int c = 0; c < ownClients; c++) {
            assertThat(last.get(slots + c).seqid()).isEqualTo(ROUNDS);
        }
    }

    @Test
    void ofIdenticalRequestsOnOneSlotExactlyOneExecutesAndTheOthersAreDelayed() throws Exception {
        StateFixture f = new StateFixture();
        StateFixture.Client c = f.client("host-a");
        int threads = 8;
        for (int round = 1; round <= 200; round++) {
            int seq = round;
            CyclicBarrier start = new CyclicBarrier(threads);
            AtomicInteger delayed = new AtomicInteger();
            List<Callable<SequenceResult>> tasks = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                tasks.add(() -> {
                    start.await();
                    try {
                        return f.table.sequence(c.session, seq, 0, 0, true);
                    } catch (Nfs4Exception e) {
                        assertThat(e.status()).isEqualTo(NFS4ERR_DELAY);
                        delayed.incrementAndGet();
                        return null;
                    }
                });
            }
            List<SequenceResult> results = runAll(tasks);

            assertThat(results.stream().filter(r -> r != null).count()).as("round %d", round).isEqualTo(1);
            assertThat(delayed.get()).isEqualTo(threads - 1);
            f.table.completeSequence(f.table.session(c.session), 0, reply(0, round));
        }
    }

    @Test
    void aSlotTableAloneLetsOneOfIdenticalRequestsExecuteAndCountsEveryOther() throws Exception {
        int threads = 8;
        SlotTable slots = new SlotTable(threads + 1);
        for (int round = 1; round <= 500; round++) {
            int seq = round;
            CyclicBarrier start = new CyclicBarrier(threads);
            List<Callable<Boolean>> tasks = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int own = t + 1;
                tasks.add(() -> {
                    start.await();
                    slots.acquire(own, seq, false); // a slot of its own: always executes
                    boolean executed;
                    try {
                        executed = slots.acquire(0, seq, true).kind() == SlotVerdict.Kind.EXECUTE;
                    } catch (Nfs4Exception e) {
                        assertThat(e.status()).isEqualTo(NFS4ERR_DELAY);
                        executed = false;
                    }
                    slots.release(own);
                    return executed;
                });
            }
            List<Boolean> executed = runAll(tasks);

            assertThat(executed.stream().filter(e -> e).count()).as("round %d", round).isEqualTo(1);
            assertThat(slots.inProgress()).as("round %d", round).isEqualTo(1);
            slots.complete(0, reply(0, round));
        }
        assertThat(slots.inProgress()).isZero();
    }

    @Test
    void manyRequestsOnTheirOwnSlotsKeepTheInProgressCountAndEveryReply() throws Exception {
        int threads = 8;
        int requests = 50_000;
        SlotTable slots = new SlotTable(threads);
        CyclicBarrier start = new CyclicBarrier(threads);
        List<Callable<Void>> tasks = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int slot = t;
            tasks.add(() -> {
                start.await();
                for (int seq = 1; seq <= requests; seq++) {
                    slots.acquire(slot, seq, true);
                    slots.complete(slot, reply(slot, seq));
                }
                return null;
            });
        }
        runAll(tasks);

        assertThat(slots.inProgress()).isZero();
        for (int slot = 0; slot < threads; slot++) {
            assertThat(slots.acquire(slot, requests, true).cachedReply()).isEqualTo(reply(slot, requests));
        }
    }

    @Test
    void concurrentExchangeIdAndCreateSessionOfOneOwnerEndInOneConfirmedClient() throws Exception {
        int threads = 8;
        StateFixture f = new StateFixture(StateConfig.defaults().foreLimits(), threads, Duration.ZERO);
        CyclicBarrier start = new CyclicBarrier(threads);
        List<Callable<Long>> tasks = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            tasks.add(() -> {
                start.await();
                for (int attempt = 0; ; attempt++) {
                    ExchangeIdResult x = f.exchange("host-a", 1);
                    try {
                        f.table.createSession(x.clientId(), x.sequenceId(), 0, StateFixture.ASK, StateFixture.ASK, 0);
                        return x.clientId();
                    } catch (Nfs4Exception e) {
                        // another thread's EXCHANGE_ID replaced this unconfirmed record (STALE_CLIENTID), or, the
                        // record confirmed, other threads' CREATE_SESSIONs moved its sequence past the one this
                        // EXCHANGE_ID gave (SEQ_MISORDERED, RFC 8881 section 18.36.4): start again
                        assertThat(e.status()).isIn(org.rpcrdma4j.nfs.v4.Nfs4Status.NFS4ERR_STALE_CLIENTID,
                                org.rpcrdma4j.nfs.v4.Nfs4Status.NFS4ERR_SEQ_MISORDERED);
                        assertThat(attempt).isLessThan(10_000);
                    }
                }
            });
        }
        List<Long> ids = runAll(tasks);

        ExchangeIdResult now = f.exchange("host-a", 1);
        assertThat(now.confirmed()).isTrue();
        assertThat(ids).containsOnly(now.clientId());
    }
}
