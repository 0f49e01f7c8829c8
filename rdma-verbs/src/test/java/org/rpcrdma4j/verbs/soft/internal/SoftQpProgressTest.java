package org.rpcrdma4j.verbs.soft.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.verbs.AcceptParameters;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.ConnectParameters;
import org.rpcrdma4j.verbs.ConnectionEvent;
import org.rpcrdma4j.verbs.ConnectionEventType;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.RdmaProviders;
import org.rpcrdma4j.verbs.RegisteredMemory;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.WcOpcode;
import org.rpcrdma4j.verbs.WcStatus;
import org.rpcrdma4j.verbs.WorkCompletion;
import org.rpcrdma4j.verbs.conformance.VerbsFixture;
import org.rpcrdma4j.verbs.soft.SoftIwarpFaults;

/**
 * Whoever makes the device work — a posting thread under the engine's claim, the engine, a timer, a completion
 * listener called by any of them — the work is finished: what is written completes, what is posted goes, a closed
 * connection's reset or FIN reaches the peer, and nobody waits for an engine whose claim it holds itself.
 */
@Timeout(120)
class SoftQpProgressTest extends VerbsFixture {

    /** No wake-ups from the initiator's timer: an engine that sleeps through these tests' moments must stay asleep. */
    @Override
    protected RdmaDevice newDevice() throws Exception {
        return RdmaProviders.select("soft").open(Map.of("wakeResponder", "false", "confirmPlacement", "false",
                "socketBufferSize", "65536"));
    }

    @Override
    protected RdmaDevice newPeerDevice() {
        return device;
    }

    /**
     * Without placement confirmation a Send is done once written. One written by the initiator's wake-up timer (armed
     * during a connection's first second, while the responder has not spoken) used to stay done but unreported.
     */
    @Test
    void aSendTheWakeUpTimerWritesCompletes() throws Exception {
        RdmaDevice waking = own(RdmaProviders.select("soft").open(Map.of("wakeResponder", "true",
                "confirmPlacement", "false")));
        Connection c = connect(endpoint(waking, Sizes.defaults()), endpoint(waking, Sizes.defaults()),
                new ConnectParameters(new byte[0], 16, 16), new AcceptParameters(new byte[0], 16, 16));
        RegisteredMemory out = register(c.client().pd, 64, Access.LOCAL_WRITE);
        RegisteredMemory in = register(c.server().pd, 64, Access.LOCAL_WRITE);
        out.buffer().put(0, ascii("first"));
        out.buffer().put(8, ascii("second"));
        c.server().qp.postRecv(recv(11, in, 0, 16));
        c.server().qp.postRecv(recv(12, in, 16, 16));
        c.client().qp.postSend(send(1, out, 0, 5)); // the first message: the wake-up timer is armed
        assertThat(await(c.client().sendCq).status).isEqualTo(WcStatus.SUCCESS);

        SoftQp client = (SoftQp) c.client().qp;
        onEngine(client, () -> {
            // queued but not yet transmitted when the timer fires, as a large Send left to the engine can be
            client.sq.post(send(2, out, 8, 6));
            client.onWakeTimer();
        });

        WorkCompletion second = await(c.client().sendCq);
        assertThat(second.wrId).isEqualTo(2);
        assertThat(second.status).isEqualTo(WcStatus.SUCCESS);
        assertThat(second.opcode).isEqualTo(WcOpcode.SEND);
        awaitAll(c.server().recvCq, 2);
        assertThat(bytes(in.buffer(), 16, 6)).isEqualTo(ascii("second"));
    }

    /**
     * Engine A calls a listener that posts to queue pair B of engine B, which is idle: A's thread transmits under B's
     * claim, and B's completion listener, called there, posts again. That post used to be put on A's list of
     * transmissions held until its listeners return, and then served on A's thread without B's claim: racing B's own
     * thread, and, when it filled the socket, leaving B asleep with the interest in writing unseen.
     */
    @Test
    void aPostFromAListenerOnAnotherEnginesThreadGoesUnderItsOwnEnginesClaim() throws Exception {
        Connection c = connect();
        SoftQp client = (SoftQp) c.client().qp;
        SoftQp server = (SoftQp) c.server().qp;
        assertThat(client.engine).as("the two queue pairs' engines").isNotSameAs(server.engine);
        int large = 4 << 20; // far more than the 64 KiB socket buffers take at once
        RegisteredMemory clientMemory = register(c.client().pd, large, Access.LOCAL_WRITE);
        RegisteredMemory serverMemory = register(c.server().pd, large, Access.LOCAL_WRITE);
        fill(serverMemory.buffer(), 7);
        for (int i = 0; i < 4; i++) {
            c.client().qp.postRecv(recv(20 + i, clientMemory, 0, large));
        }
        c.server().qp.postRecv(recv(30, serverMemory, 0, 64));
        c.client().qp.postSend(send(1, clientMemory, 0, 10)); // the initiator speaks first
        await(c.server().recvCq);
        await(c.client().sendCq);

        AtomicReference<String> claimed = new AtomicReference<>("no second post");
        CompletableFuture<WorkCompletion> largeDone = new CompletableFuture<>();
        WorkCompletion[] batch = completions(8);
        c.server().sendCq.setListener(cq -> {
            int n = cq.poll(batch);
            for (int i = 0; i < n; i++) {
                if (batch[i].wrId == 2) {
                    claimed.set(Thread.currentThread().getName() + " holds the server's engine: "
                            + server.engine.inEngine());
                    post(c.server().qp, send(3, serverMemory, 0, large), largeDone);
                } else if (batch[i].wrId == 3) {
                    largeDone.complete(new WorkCompletion().copyFrom(batch[i]));
                }
            }
            cq.requestNotify();
        });
        c.server().sendCq.requestNotify();
        c.client().recvCq.setListener(cq -> {
            // on the client's engine, calling listeners: let the server's engine go idle, then post to it
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
            post(c.server().qp, send(2, serverMemory, 0, 10), largeDone);
        });
        c.client().recvCq.requestNotify();
        c.server().qp.postSend(send(4, serverMemory, 0, 10));

        WorkCompletion done = largeDone.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(claimed.get()).isEqualTo(client.engine + " holds the server's engine: true");
        assertThat(done.status).isEqualTo(WcStatus.SUCCESS);
        assertThat(server.transmitDeferred).isFalse();
        awaitWrId(c.client().recvCq, 22);
        assertThat(clientMemory.buffer()).isEqualTo(serverMemory.buffer());
    }

    /**
     * A listener that posts again on every completion, called by the posting thread's transmission: each post used to
     * transmit and retire in a frame nested in the last, until the stack overflowed and a posted request was left
     * untransmitted. Now the running transmission takes what its listeners post, one listener call deep.
     */
    @Test
    void aListenerThatPostsOnEveryCompletionDoesNotNest() throws Exception {
        Connection c = connect();
        int total = 50_000; // some 50 times deeper than the stack took
        RegisteredMemory local = register(c.client().pd, 64, Access.LOCAL_WRITE);
        RegisteredMemory remote = register(c.server().pd, 64, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        SendWorkRequest wr = write(1, local, 0, 64, remote.rkey(), remote.address(0));
        AtomicInteger depth = new AtomicInteger();
        AtomicInteger deepest = new AtomicInteger();
        AtomicLong completed = new AtomicLong();
        CompletableFuture<Void> done = new CompletableFuture<>();
        WorkCompletion[] batch = completions(64);
        c.client().sendCq.setListener(cq -> {
            deepest.accumulateAndGet(depth.incrementAndGet(), Math::max);
            try {
                int n = cq.poll(batch);
                for (int i = 0; i < n; i++) {
                    if (batch[i].status != WcStatus.SUCCESS) {
                        done.completeExceptionally(new AssertionError(batch[i].toString()));
                    }
                }
                cq.requestNotify();
                if (completed.addAndGet(n) < total) {
                    c.client().qp.postSend(wr);
                } else {
                    done.complete(null);
                }
            } catch (Throwable e) {
                done.completeExceptionally(e);
            } finally {
                depth.decrementAndGet();
            }
        });
        c.client().sendCq.requestNotify();
        c.client().qp.postSend(wr);
        done.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(completed.get()).isEqualTo(total);
        assertThat(deepest.get()).as("listener calls nested").isEqualTo(1);
    }

    /**
     * A posting thread that transmits under the engine's claim and ends the connection with a reset (here, on a
     * truncated frame): the socket is closed when the engine's selector drops its key, so the engine must be woken.
     * It was not, and the peer waited for the reset for as long as the engine slept.
     */
    @Test
    void aResetMadeByAPostingThreadReachesThePeer() throws Exception {
        Connection c = connect();
        RegisteredMemory local = register(c.client().pd, 4096, Access.LOCAL_WRITE);
        RegisteredMemory remote = register(c.server().pd, 4096, Access.LOCAL_WRITE);
        for (int i = 0; i < 3; i++) {
            c.server().qp.postRecv(recv(40 + i, remote, 0, 4096));
        }
        c.client().qp.postSend(send(1, local, 0, 1000));
        await(c.client().sendCq);
        await(c.server().recvCq);
        SoftQp client = (SoftQp) c.client().qp;
        SoftIwarpFaults.of(client).truncateNextFrame();
        onEngine(client, () -> { }); // the fault is in place, and the engine goes back to sleep
        c.client().qp.postSend(send(2, local, 0, 1000)); // small: this thread transmits it under the claim

        assertThat(await(c.client().sendCq).status).isEqualTo(WcStatus.WR_FLUSH_ERR);
        ConnectionEvent lost = c.server().events.await(ConnectionEventType.DISCONNECTED);
        assertThat(lost).as("the peer saw the connection end").isNotNull();
        for (WorkCompletion wc : awaitAll(c.server().recvCq, 2)) {
            assertThat(wc.status).isEqualTo(WcStatus.WR_FLUSH_ERR);
        }
    }

    /**
     * A disconnect while a transmit delay holds the output: when the delay ends, the teardown's output is finished and
     * the peer gets FIN. Before, the delay's end only flushed the queue pair in ERROR, and the connection was reset
     * when the teardown's 5 s ran out.
     */
    @Test
    void aTeardownHeldByATransmitDelayEndsWithAFinWhenTheDelayEnds() throws Exception {
        Connection c = connect();
        RegisteredMemory remote = register(c.server().pd, 4096, Access.LOCAL_WRITE);
        c.server().qp.postRecv(recv(50, remote, 0, 4096));
        SoftIwarpFaults.of(c.client().qp).delayTransmit(Duration.ofMillis(300));
        c.client().qp.disconnect();

        ConnectionEvent lost = c.server().events.await(ConnectionEventType.DISCONNECTED);
        assertThat(lost).isNotNull();
        assertThat(lost.cause()).as("an orderly close (FIN), not a reset").isNull();
        assertThat(await(c.server().recvCq).status).isEqualTo(WcStatus.WR_FLUSH_ERR);
    }

    /**
     * A completion listener called by a posting thread holds the engine's claim: a fault it asks for takes effect at
     * once, instead of being queued for the engine, which cannot run while the claim is held, and waited for.
     */
    @Test
    void aFaultAskedForUnderTheEnginesClaimTakesEffectAtOnce() throws Exception {
        Connection c = connect();
        RegisteredMemory local = register(c.client().pd, 4096, Access.LOCAL_WRITE);
        RegisteredMemory remote = register(c.server().pd, 4096, Access.LOCAL_WRITE);
        c.server().qp.postRecv(recv(60, remote, 0, 4096));
        SoftQp client = (SoftQp) c.client().qp;
        CompletableFuture<String> seen = new CompletableFuture<>();
        c.client().sendCq.setListener(cq -> {
            boolean claimed = client.engine.inEngine();
            SoftIwarpFaults.of(client).delayTransmit(Duration.ofMillis(50));
            seen.complete("claimed " + claimed + ", delayed " + client.tx.transmitDelayed());
        });
        c.client().sendCq.requestNotify();
        c.client().qp.postSend(send(1, local, 0, 100)); // small: this thread transmits it and calls the listener
        assertThat(seen.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo("claimed true, delayed true");
    }

    // ---------------------------------------------------------------- helpers

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static WorkCompletion[] completions(int n) {
        WorkCompletion[] batch = new WorkCompletion[n];
        for (int i = 0; i < n; i++) {
            batch[i] = new WorkCompletion();
        }
        return batch;
    }

    private static void post(org.rpcrdma4j.verbs.QueuePair qp, SendWorkRequest wr, CompletableFuture<?> failures) {
        try {
            qp.postSend(wr);
        } catch (Exception e) {
            failures.completeExceptionally(e);
        }
    }

    /** Runs {@code action} on {@code qp}'s engine thread and waits for it. */
    private static void onEngine(SoftQp qp, ThrowingRunnable action) throws Exception {
        CompletableFuture<Void> ran = new CompletableFuture<>();
        qp.engine.execute(() -> {
            try {
                action.run();
                ran.complete(null);
            } catch (Throwable e) {
                ran.completeExceptionally(e);
            }
        });
        ran.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }

    private interface ThrowingRunnable {
        void run() throws Exception;
    }
}
