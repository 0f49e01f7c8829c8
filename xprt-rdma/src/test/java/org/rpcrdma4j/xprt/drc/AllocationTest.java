package org.rpcrdma4j.xprt.drc;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;

import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.verbs.util.EnumCounters;

/**
 * What the cache allocates, measured with the JVM's per-thread allocation counter (bytes, not time): nothing for a
 * procedure it does not cache, nothing for the table lookup itself.
 */
class AllocationTest {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private static long allocated() {
        return THREADS.getThreadAllocatedBytes(Thread.currentThread().getId());
    }

    @Test
    void theProcedureCheckAllocatesNothing() {
        CachedProcedures policy = CachedProcedures.nfsV3().with(CachedProcedures.of(7, 1, 1, 200));
        long hits = 0;
        for (int i = 0; i < 200_000; i++) {
            hits += policy.contains(100003, 3, i & 31) ? 1 : 0;
            hits += policy.contains(7, 1, i & 255) ? 1 : 0;
        }
        long before = allocated();
        for (int i = 0; i < 100_000; i++) {
            hits += policy.contains(100003, 3, i & 31) ? 1 : 0;
            hits += policy.contains(7, 1, i & 255) ? 1 : 0;
        }
        long bytes = allocated() - before;
        assertThat(hits).isPositive();
        assertThat(bytes).isLessThan(1024);
    }

    @Test
    void aProcedureTheCacheDoesNotCacheGoesThroughWithoutAllocating() throws Exception {
        int[] dispatched = new int[1];
        org.dcache.oncrpc4j.rpc.RpcDispatchable program = call -> dispatched[0]++;
        DuplicateRequestCache drc = DuplicateRequestCache.create(CachedProcedures.of(LedgerProgram.PROGRAM,
                LedgerProgram.VERSION, LedgerProgram.APPEND), DrcConfig.DEFAULT);
        org.dcache.oncrpc4j.rpc.RpcDispatchable served = drc.wrap(program);
        org.dcache.oncrpc4j.rpc.RpcCall count = Calls.accepted(Calls.call(1, LedgerProgram.PROGRAM,
                LedgerProgram.VERSION, LedgerProgram.COUNT, Calls.unix(1), LedgerProgram.name("a")),
                new RecordingTransport("10.0.0.1", 800));
        for (int i = 0; i < 200_000; i++) {
            served.dispatchOncRpcCall(count);
        }
        long before = allocated();
        for (int i = 0; i < 100_000; i++) {
            served.dispatchOncRpcCall(count);
        }
        long bytes = allocated() - before;
        assertThat(dispatched[0]).isEqualTo(300_000);
        assertThat(drc.counter(DrcCounter.NOT_CACHED)).isEqualTo(300_000);
        assertThat(bytes).isLessThan(1024);
    }

    @Test
    void lookingUpAHitOrAnExecutingCallAllocatesNothing() throws Exception {
        DrcConfig config = DrcConfig.builder().maxWaiters(0).build();
        ReplyTable table = new ReplyTable(config, new EnumCounters<>(DrcCounter.class));
        InetAddress client = InetAddress.getByName("10.0.0.1");
        byte[] credential = new byte[40];
        RpcTransport transport = new RecordingTransport("10.0.0.1", 800);
        CacheEntry[] probes = new CacheEntry[64];
        for (int i = 0; i < probes.length; i++) {
            CacheEntry e = new CacheEntry(client, credential.clone(), i, 100003, 3, 12, 64, i * 31);
            assertThat(table.begin(e, transport, 0)).isEqualTo(ReplyTable.MISS);
            if (i % 2 == 0) {
                table.complete(e, new byte[100], 0);
            }
            probes[i] = new CacheEntry(client, credential.clone(), i, 100003, 3, 12, 64, i * 31);
        }
        long outcomes = 0;
        for (int i = 0; i < 200_000; i++) {
            outcomes += table.begin(probes[i & 63], transport, 1);
        }
        long before = allocated();
        for (int i = 0; i < 100_000; i++) {
            outcomes += table.begin(probes[i & 63], transport, 1);
        }
        long bytes = allocated() - before;
        // even probes hit (1), odd ones find their call executing with no waiting room (3: dropped)
        assertThat(outcomes).isEqualTo(300_000L / 2 * ReplyTable.HIT + 300_000L / 2 * ReplyTable.DROP);
        assertThat(bytes).isLessThan(1024);
    }
}
