package org.rpcrdma4j.verbs.soft;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.RdmaProviders;
import org.rpcrdma4j.verbs.RegisteredMemory;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.WcStatus;
import org.rpcrdma4j.verbs.WorkCompletion;
import org.rpcrdma4j.verbs.conformance.VerbsFixture;

/**
 * The software device transmits a Send in the posting thread when the queue pair's engine is idle (as siw does in
 * post_send) if it is small, leaves a large Write to the engine thread, and posts from many threads at once still go
 * out whole, in the send queue's order, each completing.
 */
@Timeout(120)
class SoftPostingThreadTransmitTest extends VerbsFixture {

    @Override
    protected RdmaDevice newDevice() throws Exception {
        // without placement confirmation a Send completes once written, so the completion shows who wrote it
        return RdmaProviders.select("soft").open(Map.of("confirmPlacement", "false"));
    }

    @Test
    void aPostToAnIdleEngineIsTransmittedByThePostingThread() throws Exception {
        Connection c = connect();
        RegisteredMemory src = register(c.client().pd, 4096, Access.LOCAL_WRITE);
        RegisteredMemory dst = register(c.server().pd, 4096, Access.LOCAL_WRITE);
        fill(src.buffer(), 5);
        AtomicReference<Thread> completedOn = new AtomicReference<>();
        AtomicReference<CountDownLatch> completed = new AtomicReference<>();
        WorkCompletion[] batch = {new WorkCompletion()};
        c.client().sendCq.setListener(cq -> {
            completedOn.compareAndSet(null, Thread.currentThread());
            completed.get().countDown();
        });
        // the engine must be idle in select when the post comes; on a busy machine it may still be finishing the
        // connection's set-up, so a few attempts are allowed: one of them must be transmitted by the posting thread
        boolean byPoster = false;
        for (int attempt = 0; attempt < 20 && !byPoster; attempt++) {
            completedOn.set(null);
            completed.set(new CountDownLatch(1));
            c.server().qp.postRecv(recv(1, dst, 0, 4096));
            Thread.sleep(50); // let the engine finish its work and wait in select
            c.client().sendCq.requestNotify();
            c.client().qp.postSend(send(2, src, 0, 700));
            assertThat(completed.get().await(30, TimeUnit.SECONDS)).isTrue();
            byPoster = completedOn.get() == Thread.currentThread();
            assertThat(c.client().sendCq.poll(batch)).isEqualTo(1);
            assertThat(batch[0].status).isEqualTo(WcStatus.SUCCESS);
            assertThat(await(c.server().recvCq).byteLen).isEqualTo(700);
            assertThat(bytes(dst.buffer(), 0, 700)).isEqualTo(bytes(src.buffer(), 0, 700));
            for (int i = 0; i < 700; i++) {
                dst.buffer().put(i, (byte) 0); // the next attempt's bytes must be its own
            }
        }
        assertThat(byPoster).as("a Send posted to an idle engine was written and completed by the posting thread")
                .isTrue();
    }

    @Test
    void aLargeWriteIsLeftToTheEngineThread() throws Exception {
        Connection c = connect();
        int size = 256 * 1024;
        RegisteredMemory src = register(c.client().pd, size, Access.LOCAL_WRITE);
        RegisteredMemory dst = register(c.server().pd, size, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        fill(src.buffer(), 9);
        AtomicReference<Thread> completedOn = new AtomicReference<>();
        CountDownLatch completed = new CountDownLatch(1);
        WorkCompletion[] batch = {new WorkCompletion()};
        c.client().sendCq.setListener(cq -> {
            completedOn.compareAndSet(null, Thread.currentThread());
            completed.countDown();
        });
        Thread.sleep(50); // as above: the engine waits in select, so only the size decides
        c.client().sendCq.requestNotify();
        c.client().qp.postSend(write(3, src, 0, size, dst.rkey(), dst.address(0)));
        assertThat(completed.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(completedOn.get()).as("a 256 KiB Write is streamed by the engine, not by the posting thread")
                .isNotSameAs(Thread.currentThread());
        assertThat(c.client().sendCq.poll(batch)).isEqualTo(1);
        assertThat(batch[0].status).isEqualTo(WcStatus.SUCCESS);
        // without placement confirmation the Write completed once written: a Send behind it is delivered only after
        // the Write's data is placed (RDMAP ordering), so its arrival is when the bytes can be compared
        RegisteredMemory note = register(c.server().pd, 64, Access.LOCAL_WRITE);
        c.server().qp.postRecv(recv(4, note, 0, 64));
        c.client().qp.postSend(send(5, src, 0, 16));
        assertThat(await(c.server().recvCq).byteLen).isEqualTo(16);
        assertThat(bytes(dst.buffer(), 0, size)).isEqualTo(bytes(src.buffer(), 0, size));
    }

    @Test
    void sendsPostedFromManyThreadsArriveWholeInEachThreadsOrder() throws Exception {
        int threads = 4;
        int perThread = 150;
        int size = 256;
        int total = threads * perThread;
        Connection c = connect(new Sizes(1024, 1024, 1, 0, 2048));
        RegisteredMemory src = register(c.client().pd, total * size, Access.LOCAL_WRITE);
        RegisteredMemory dst = register(c.server().pd, total * size, Access.LOCAL_WRITE);
        for (int i = 0; i < total; i++) {
            c.server().qp.postRecv(recv(i, dst, (long) i * size, size));
        }
        // message (t, k) carries t and k in its first bytes and a pattern of its own after them
        for (int t = 0; t < threads; t++) {
            for (int k = 0; k < perThread; k++) {
                int at = (t * perThread + k) * size;
                src.buffer().putInt(at, t);
                src.buffer().putInt(at + 4, k);
                for (int b = 8; b < size; b++) {
                    src.buffer().put(at + b, (byte) (t * 31 + k * 7 + b));
                }
            }
        }
        Thread[] posters = new Thread[threads];
        AtomicReference<Throwable> failure = new AtomicReference<>();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            posters[t] = new Thread(() -> {
                try {
                    for (int k = 0; k < perThread; k++) {
                        int index = thread * perThread + k;
                        c.client().qp.postSend(send(index, src, (long) index * size, size));
                    }
                } catch (Throwable e) {
                    failure.set(e);
                }
            });
            posters[t].start();
        }
        for (Thread p : posters) {
            p.join();
        }
        assertThat(failure.get()).isNull();
        List<WorkCompletion> received = awaitAll(c.server().recvCq, total);
        List<WorkCompletion> sent = awaitAll(c.client().sendCq, total);
        assertThat(sent).extracting(wc -> wc.status).containsOnly(WcStatus.SUCCESS);
        int[] next = new int[threads];
        for (WorkCompletion wc : received) {
            assertThat(wc.status).isEqualTo(WcStatus.SUCCESS);
            assertThat(wc.byteLen).isEqualTo(size);
            int at = (int) wc.wrId * size;
            int t = dst.buffer().getInt(at);
            int k = dst.buffer().getInt(at + 4);
            assertThat(k).as("message of thread %d", t).isEqualTo(next[t]++);
            int from = (t * perThread + k) * size;
            assertThat(bytes(dst.buffer(), at, size)).isEqualTo(bytes(src.buffer(), from, size));
        }
        assertThat(next).containsOnly(perThread);
    }
}
