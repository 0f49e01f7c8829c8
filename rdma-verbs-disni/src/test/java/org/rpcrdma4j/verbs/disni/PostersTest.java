package org.rpcrdma4j.verbs.disni;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.management.ManagementFactory;

import com.ibm.disni.verbs.IbvSendWR;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.verbs.Opcode;
import org.rpcrdma4j.verbs.RecvWorkRequest;
import org.rpcrdma4j.verbs.SendWorkRequest;

class PostersTest {

    private static SendWorkRequest rdmaWriteThenSend() {
        SendWorkRequest write = SendTranslationTest.wr(1, Opcode.RDMA_WRITE, 0, 4096, 4096);
        write.remoteAddress = 0x10000;
        write.rkey = 0x0a0b0c01;
        write.next = SendTranslationTest.wr(2, Opcode.SEND, SendWorkRequest.SIGNALED, 28, 100);
        return write;
    }

    @Test
    void aChainOfAKnownShapeIsRewrittenInPlaceNotSerialisedAgain() throws IOException {
        Fakes.NativeQpFake qp = new Fakes.NativeQpFake(1);
        SendPoster poster = new SendPoster(qp, 16);
        SendWorkRequest chain = rdmaWriteThenSend();
        poster.post(chain, 2);
        assertThat(poster.serialised()).isEqualTo(1);
        assertThat(qp.sends).hasSize(1);

        chain.wrId = 101;
        chain.remoteAddress = 0x20000;
        chain.rkey = 0x0a0b0c02;
        chain.flags = SendWorkRequest.FENCE;
        chain.sge(1).set(0x7000, 512, 0x77);
        chain.next.wrId = 102;
        chain.next.flags = SendWorkRequest.SIGNALED | SendWorkRequest.SOLICITED;
        poster.post(chain, 2);

        assertThat(poster.serialised()).isEqualTo(1);
        Fakes.PostSend call = qp.sends.get(0);
        assertThat(call.executions).isEqualTo(2);
        SendTranslationTest.assertSame(call.wrs.get(0), SendTranslation.toIbv(chain, new IbvSendWR()));
        SendTranslationTest.assertSame(call.wrs.get(1), SendTranslation.toIbv(chain.next, new IbvSendWR()));
    }

    @Test
    void aNewShapeIsSerialisedAndTheLeastRecentlyUsedIsFreedWhenTheCacheIsFull() throws IOException {
        Fakes.NativeQpFake qp = new Fakes.NativeQpFake(1);
        SendPoster poster = new SendPoster(qp, 16);
        SendWorkRequest send = SendTranslationTest.wr(1, Opcode.SEND, SendWorkRequest.SIGNALED, 10);
        poster.post(send, 1);
        SendWorkRequest other = SendTranslationTest.wr(2, Opcode.SEND, SendWorkRequest.SIGNALED, 10, 10);
        poster.post(other, 1); // two SGEs: another shape
        assertThat(poster.serialised()).isEqualTo(2);

        // fill the cache with chains of 1..15 RDMA_WRITEs, touching the one-SGE SEND in between
        for (int n = 1; n < SendPoster.CACHE_SIZE; n++) {
            SendWorkRequest head = null;
            for (int i = 0; i < n; i++) {
                SendWorkRequest w = SendTranslationTest.wr(i, Opcode.RDMA_WRITE, 0, 8);
                w.next = head;
                head = w;
            }
            poster.post(head, n);
            poster.post(send, 1);
        }
        assertThat(qp.sends.get(1).freed).as("the two-SGE SEND was the least recently used").isTrue();
        assertThat(qp.sends.get(0).freed).isFalse();
        assertThat(qp.sends.stream().filter(s -> s.freed).count()).isEqualTo(1);

        poster.free();
        assertThat(qp.sends).allMatch(s -> s.freed);
    }

    @Test
    void aFailedPostIsReported() {
        Fakes.NativeQpFake qp = new Fakes.NativeQpFake(1);
        qp.failPosts = true;
        SendPoster poster = new SendPoster(qp, 4);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> poster.post(rdmaWriteThenSend(), 2))
                .isInstanceOf(IOException.class).hasMessageContaining("errno 12");
    }

    private static RecvWorkRequest recv(long wrId, long addr) {
        RecvWorkRequest r = new RecvWorkRequest(2);
        r.wrId = wrId;
        r.addSge().set(addr, 1024, 0x42);
        return r;
    }

    @Test
    void aReceivePostedAgainIsNotSerialisedAgainButADifferentOneIs() throws IOException {
        Fakes.NativeQpFake qp = new Fakes.NativeQpFake(1);
        RecvPoster poster = new RecvPoster(qp, 4, 2);
        RecvWorkRequest a = recv(1, 0x1000);
        poster.post(a);
        poster.post(a);
        assertThat(poster.serialised()).isEqualTo(1);
        poster.post(recv(1, 0x2000)); // same wr_id, other buffer
        poster.post(recv(2, 0x1000));
        RecvWorkRequest twoSges = recv(1, 0x1000);
        twoSges.addSge().set(0x3000, 10, 0x43);
        poster.post(twoSges);
        assertThat(poster.serialised()).isEqualTo(4);
        assertThat(qp.recvWrIds()).containsExactly(1L, 1L, 1L, 2L, 1L);
    }

    @Test
    void aFullSetEvictsAndFreesItsLeastRecentlyUsedReceive() throws IOException {
        Fakes.NativeQpFake qp = new Fakes.NativeQpFake(1);
        RecvPoster poster = new RecvPoster(qp, 1, 1); // one set of four ways
        for (int i = 0; i < 4; i++) {
            poster.post(recv(i, 0x1000 * i));
        }
        poster.post(recv(0, 0)); // touch the first
        poster.post(recv(9, 0x9000));
        assertThat(qp.recvs.get(1).freed).as("wr_id 1 was the least recently used").isTrue();
        assertThat(qp.recvs.get(0).freed).isFalse();
        poster.free();
        assertThat(qp.recvs).allMatch(r -> r.freed);
    }

    /**
     * Steady state allocates nothing: after warm-up, posting the same chain shape and re-posting a pool of receives
     * allocates no bytes on the posting thread (the fakes themselves allocate nothing per execution).
     */
    @Test
    void steadyStatePostingAllocatesNothing() throws IOException {
        java.lang.management.ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        Assumptions.assumeTrue(bean instanceof com.sun.management.ThreadMXBean,
                "this JVM cannot count a thread's allocations");
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) bean;
        Assumptions.assumeTrue(threads.isThreadAllocatedMemorySupported(), "thread allocation counting unsupported");
        threads.setThreadAllocatedMemoryEnabled(true);

        Fakes.NativeQpFake qp = new Fakes.NativeQpFake(1);
        SendPoster sends = new SendPoster(qp, 16);
        RecvPoster recvs = new RecvPoster(qp, 64, 1);
        SendWorkRequest chain = rdmaWriteThenSend();
        RecvWorkRequest[] pool = new RecvWorkRequest[64];
        for (int i = 0; i < pool.length; i++) {
            pool[i] = recv(i, 0x10000L + 1024L * i);
        }
        long tid = Thread.currentThread().getId();
        for (int round = 0; round < 3; round++) {
            run(sends, recvs, chain, pool, 20_000); // warm-up and JIT
        }
        long before = threads.getThreadAllocatedBytes(tid);
        run(sends, recvs, chain, pool, 100_000);
        long allocated = threads.getThreadAllocatedBytes(tid) - before;

        assertThat(sends.serialised()).isEqualTo(1);
        assertThat(recvs.serialised()).isEqualTo(64);
        assertThat(allocated).as("bytes allocated by 100000 chain posts and 100000 receive posts")
                .isLessThan(1024);
    }

    private static void run(SendPoster sends, RecvPoster recvs, SendWorkRequest chain, RecvWorkRequest[] pool,
                            int n) throws IOException {
        for (int i = 0; i < n; i++) {
            chain.wrId = i;
            chain.next.wrId = i + 1;
            chain.remoteAddress = 0x10000 + i;
            sends.post(chain, 2);
            recvs.post(pool[i & 63]);
        }
    }
}
