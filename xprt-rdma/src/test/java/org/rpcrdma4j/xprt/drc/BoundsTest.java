package org.rpcrdma4j.xprt.drc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The cache stays within its entry and byte bounds under 100,000 calls, and its gauges tell the truth. */
@Timeout(120)
class BoundsTest {
    private static final int CALLS = 100_000;

    @Test
    void aHundredThousandCallsStayWithinTheBoundsAtEveryStep() throws Exception {
        LedgerProgram ledger = new LedgerProgram();
        DrcConfig config = DrcConfig.builder().maxEntries(1000).maxBytes(48 * 1024).maxReplyBytes(2048).build();
        DuplicateRequestCache drc = DuplicateRequestCache.create(CachedProcedures.of(LedgerProgram.PROGRAM,
                LedgerProgram.VERSION, LedgerProgram.APPEND, LedgerProgram.BLOB), config);
        RpcDispatchable served = drc.wrap(ledger);
        SplittableRandom random = new SplittableRandom(42);
        RecordingTransport[] clients = new RecordingTransport[16];
        for (int i = 0; i < clients.length; i++) {
            clients[i] = new RecordingTransport("10.0.1." + (i + 1), 700 + i);
        }
        long replyBytes = 0;
        int maxEntriesSeen = 0;
        long maxBytesSeen = 0;
        for (int i = 0; i < CALLS; i++) {
            RecordingTransport client = clients[random.nextInt(clients.length)];
            byte[] message = random.nextInt(4) == 0
                    ? Calls.call(i, LedgerProgram.PROGRAM, LedgerProgram.VERSION, LedgerProgram.BLOB,
                            Calls.unix(random.nextInt(5)), new LedgerProgram.Ints(random.nextInt(1500), i))
                    : Calls.call(i, LedgerProgram.PROGRAM, LedgerProgram.VERSION, LedgerProgram.APPEND,
                            Calls.unix(random.nextInt(5)), LedgerProgram.name("n" + random.nextInt(100)));
            served.dispatchOncRpcCall(Calls.accepted(message, client));
            maxEntriesSeen = Math.max(maxEntriesSeen, drc.entries());
            maxBytesSeen = Math.max(maxBytesSeen, drc.bytes());
        }
        for (RecordingTransport c : clients) {
            for (byte[] reply : c.sent()) {
                replyBytes += reply.length;
            }
        }
        assertThat(maxEntriesSeen).isLessThanOrEqualTo(1000);
        assertThat(maxBytesSeen).isLessThanOrEqualTo(48 * 1024);
        // it did fill up (so the bounds were exercised), and every call ran exactly once
        assertThat(drc.bytes()).isGreaterThan(40 * 1024);
        assertThat(ledger.executions()).isEqualTo(CALLS);
        assertThat(drc.counter(DrcCounter.MISSES)).isEqualTo(CALLS);
        assertThat(drc.counter(DrcCounter.EVICTIONS)).isEqualTo(CALLS - drc.entries());
        assertThat(drc.counter(DrcCounter.ENTRIES_HELD)).isEqualTo(drc.entries());
        assertThat(drc.counter(DrcCounter.BYTES_HELD)).isEqualTo(drc.bytes());
        assertThat(replyBytes).isGreaterThan(48 * 1024 * 10); // far more went through than was kept
    }

    @Test
    void concurrentCallsAndRetransmissionsStayWithinTheBoundsAndEveryHitIsTheOriginal() throws Exception {
        LedgerProgram ledger = new LedgerProgram();
        DrcConfig config = DrcConfig.builder().maxEntries(500).maxBytes(64 * 1024).build();
        DuplicateRequestCache drc = DuplicateRequestCache.create(CachedProcedures.of(LedgerProgram.PROGRAM,
                LedgerProgram.VERSION, LedgerProgram.APPEND), config);
        RpcDispatchable served = drc.wrap(ledger);
        int threads = 4;
        int perThread = CALLS / threads;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Integer>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                results.add(pool.submit(() -> {
                    RecordingTransport first = new RecordingTransport("10.0.2." + (thread + 1), 900);
                    RecordingTransport again = new RecordingTransport("10.0.2." + (thread + 1), 901);
                    int mismatches = 0;
                    for (int i = 0; i < perThread; i++) {
                        byte[] message = Calls.call(i, LedgerProgram.PROGRAM, LedgerProgram.VERSION,
                                LedgerProgram.APPEND, Calls.unix(thread), LedgerProgram.name("t" + thread));
                        served.dispatchOncRpcCall(Calls.accepted(message, first));
                        // every call retransmitted at once from a new port: a hit, unless the other threads' calls
                        // pushed its entry out in between
                        served.dispatchOncRpcCall(Calls.accepted(message, again));
                        if (again.count() != i + 1 || !java.util.Arrays.equals(first.last(), again.last())) {
                            mismatches++;
                        }
                    }
                    return mismatches;
                }));
            }
            int mismatches = 0;
            for (Future<Integer> f : results) {
                mismatches += f.get();
            }
            // a retransmission whose entry another thread's calls pushed out in between ran again (and then answered
            // differently); every other one got the original bytes, and nothing ran twice otherwise
            long missedRetransmissions = drc.counter(DrcCounter.MISSES) - CALLS;
            assertThat(mismatches).isEqualTo(missedRetransmissions);
            assertThat(drc.counter(DrcCounter.HITS) + drc.counter(DrcCounter.MISSES)).isEqualTo(2L * CALLS);
        } finally {
            pool.shutdownNow();
        }
        assertThat(ledger.executions()).isEqualTo(drc.counter(DrcCounter.MISSES));
        int counted = 0;
        for (int t = 0; t < threads; t++) {
            counted += ledger.count("t" + t);
        }
        assertThat(counted).isEqualTo(ledger.executions());
        assertThat(drc.entries()).isLessThanOrEqualTo(500);
        assertThat(drc.bytes()).isLessThanOrEqualTo(64 * 1024);
        assertThat(drc.counter(DrcCounter.ENTRIES_HELD)).isEqualTo(drc.entries());
        assertThat(drc.counter(DrcCounter.BYTES_HELD)).isEqualTo(drc.bytes());
    }
}
