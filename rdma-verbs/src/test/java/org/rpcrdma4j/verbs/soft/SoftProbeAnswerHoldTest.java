package org.rpcrdma4j.verbs.soft;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.ConnectionEventType;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.RdmaProviders;
import org.rpcrdma4j.verbs.RecvWorkRequest;
import org.rpcrdma4j.verbs.RegisteredMemory;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.WcOpcode;
import org.rpcrdma4j.verbs.WcStatus;
import org.rpcrdma4j.verbs.WorkCompletion;
import org.rpcrdma4j.verbs.conformance.AllocationWindows;
import org.rpcrdma4j.verbs.conformance.VerbsFixture;
import org.rpcrdma4j.verbs.soft.internal.SoftQp;

/**
 * A responder holds back its answer to the peer's placement probe until it sends something anyway: here the server
 * (passive side) holds with a bound far beyond the test's hang guard, so that only output, a further FPDU from the
 * client or teardown can release a held answer, and the client answers the server's probes at once (and sends no
 * zero-length Writes to wake a silent responder, see {@link SoftIwarpOptions#wakeResponder()}). What is
 * observed therefore does not depend on timing: each call's probe is held, leaves with the reply, and the client's
 * Send completes with it.
 */
@Timeout(120)
class SoftProbeAnswerHoldTest extends VerbsFixture {

    @Override
    protected RdmaDevice newDevice() throws Exception {
        // no zero-length Writes to wake a responder that has sent nothing yet: one would release the held answer
        return RdmaProviders.select("soft").open(Map.of("holdProbeAnswers", "false", "wakeResponder", "false",
                "confirmPlacement", "true"));
    }

    @Override
    protected RdmaDevice newPeerDevice() throws Exception {
        return RdmaProviders.select("soft").open(Map.of("holdProbeAnswers", "true",
                "probeAnswerHoldMs", Integer.toString(SoftIwarpOptions.MAX_PROBE_ANSWER_HOLD_MS)));
    }

    @Test
    void eachCallsProbeIsAnsweredWithTheReply() throws Exception {
        int rounds = 40;
        int size = 200;
        Connection c = connect();
        SoftQp server = (SoftQp) c.server().qp;
        RegisteredMemory calls = register(c.client().pd, rounds * size, Access.LOCAL_WRITE);
        RegisteredMemory replies = register(c.client().pd, rounds * size, Access.LOCAL_WRITE);
        RegisteredMemory serverIn = register(c.server().pd, rounds * size, Access.LOCAL_WRITE);
        RegisteredMemory serverOut = register(c.server().pd, rounds * size, Access.LOCAL_WRITE);
        fill(calls.buffer(), 3);
        fill(serverOut.buffer(), 4);
        for (int k = 0; k < rounds; k++) {
            long at = (long) k * size;
            c.server().qp.postRecv(recv(k, serverIn, at, size));
            c.client().qp.postRecv(recv(k, replies, at, size));
            c.client().qp.postSend(send(k, calls, at, size));

            WorkCompletion call = await(c.server().recvCq);
            assertThat(call.status).isEqualTo(WcStatus.SUCCESS);
            assertThat(call.byteLen).isEqualTo(size);
            int held = k + 1;
            awaitValue(server::probeAnswersHeld, held, "probe of call " + k + " held");
            // the client's Send cannot complete before the server answers its probe, which it holds
            assertThat(drain(c.client().sendCq)).as("client Send completions while the answer is held").isEmpty();
            LockSupport.parkNanos(2_000_000); // often lets the server's engine go idle: the reply's poster carries it
            c.server().qp.postSend(send(k, serverOut, at, size));

            WorkCompletion sent = await(c.client().sendCq);
            assertThat(sent.wrId).isEqualTo(k);
            assertThat(sent.status).isEqualTo(WcStatus.SUCCESS);
            assertThat(sent.opcode).isEqualTo(WcOpcode.SEND);
            WorkCompletion reply = await(c.client().recvCq);
            assertThat(reply.status).isEqualTo(WcStatus.SUCCESS);
            assertThat(reply.byteLen).isEqualTo(size);
            WorkCompletion replied = await(c.server().sendCq);
            assertThat(replied.wrId).isEqualTo(k);
            assertThat(replied.status).isEqualTo(WcStatus.SUCCESS);
            assertThat(server.probeAnswersCarried()).as("answers that left with a reply").isEqualTo(held);
        }
        assertThat(bytes(serverIn.buffer(), 0, rounds * size)).isEqualTo(bytes(calls.buffer(), 0, rounds * size));
        assertThat(bytes(replies.buffer(), 0, rounds * size)).isEqualTo(bytes(serverOut.buffer(), 0, rounds * size));
        assertThat(server.probeAnswerHoldsExpired()).isZero();
        assertThat(server.probeAnswersCarriedByPoster())
                .as("a posting thread that transmits its reply itself carries the held answer").isPositive();
        SoftQp client = (SoftQp) c.client().qp;
        assertThat(client.probeAnswersHeld()).as("the client device does not hold").isZero();
    }

    /**
     * Holding, carrying and releasing answers allocates nothing in steady state on any thread: request/response
     * rounds, each with its probe held and carried by the reply, measured over the second half of the rounds.
     */
    @Test
    void heldAnswersAllocateNothingInSteadyState() throws Exception {
        com.sun.management.ThreadMXBean mx = allocationMeter();
        Connection c = connect(new Sizes(64, 64, 1, 0, 256));
        SoftQp server = (SoftQp) c.server().qp;
        RegisteredMemory clientMem = register(c.client().pd, 512, Access.LOCAL_WRITE);
        RegisteredMemory serverMem = register(c.server().pd, 512, Access.LOCAL_WRITE);
        SendWorkRequest call = send(1, clientMem, 0, 128);
        SendWorkRequest reply = send(2, serverMem, 0, 128);
        RecvWorkRequest clientRecv = recv(3, clientMem, 256, 128);
        RecvWorkRequest serverRecv = recv(4, serverMem, 256, 128);
        WorkCompletion[] batch = new WorkCompletion[16];
        for (int i = 0; i < batch.length; i++) {
            batch[i] = new WorkCompletion();
        }
        int rounds = 5_000;
        AllocationWindows.Work window = () -> {
            for (int i = 0; i < rounds; i++) {
                c.server().qp.postRecv(serverRecv);
                c.client().qp.postRecv(clientRecv);
                c.client().qp.postSend(call);
                awaitOne(c.server().recvCq, batch);
                c.server().qp.postSend(reply);
                awaitOne(c.client().recvCq, batch);
                awaitOne(c.client().sendCq, batch); // came with the reply: the held answer was carried
                awaitOne(c.server().sendCq, batch);
            }
        };
        window.run(); // warm-up
        long[] threads = mx.getAllThreadIds();
        long heldBefore = server.probeAnswersHeld();
        AllocationWindows.Result r = AllocationWindows.measure(10, rounds, () -> allocated(mx, threads), window);
        assertThat(server.probeAnswersHeld() - heldBefore).as("every measured call's probe was held")
                .isEqualTo((long) rounds * r.windows().size());
        assertThat(r.least()).as("bytes allocated in %d rounds, all threads (windows: %s)", rounds, r.windows())
                .isLessThan(rounds);
    }

    /** Polls {@code cq} until one completion comes (hang guard: the class's timeout); allocation-free. */
    private static void awaitOne(CompletionQueue cq, WorkCompletion[] batch) {
        int n;
        while ((n = cq.poll(batch)) == 0) {
            Thread.onSpinWait();
        }
        for (int i = 0; i < n; i++) {
            if (batch[i].status != WcStatus.SUCCESS) {
                throw new AssertionError(batch[i].toString());
            }
        }
    }

    @Test
    void aFurtherFpduFromThePeerReleasesTheHeldAnswer() throws Exception {
        Connection c = connect();
        SoftQp server = (SoftQp) c.server().qp;
        RegisteredMemory src = register(c.client().pd, 4096, Access.LOCAL_WRITE);
        RegisteredMemory dst = register(c.server().pd, 4096, Access.LOCAL_WRITE);
        fill(src.buffer(), 7);
        c.server().qp.postRecv(recv(1, dst, 0, 100));
        c.server().qp.postRecv(recv(2, dst, 100, 100));
        c.client().qp.postSend(send(1, src, 0, 100));
        awaitValue(server::probeAnswersHeld, 1, "first probe held");
        assertThat(drain(c.client().sendCq)).isEmpty();

        // a second Send (the client streams): its arrival releases the first probe's answer, unchanged by output
        c.client().qp.postSend(send(2, src, 100, 100));
        WorkCompletion first = await(c.client().sendCq);
        assertThat(first.wrId).isEqualTo(1);
        assertThat(first.status).isEqualTo(WcStatus.SUCCESS);
        assertThat(server.probeAnswersCarried()).isZero();
        assertThat(awaitAll(c.server().recvCq, 2)).allSatisfy(wc -> assertThat(wc.status).isEqualTo(WcStatus.SUCCESS));
        assertThat(bytes(dst.buffer(), 0, 200)).isEqualTo(bytes(src.buffer(), 0, 200));
        // the second Send's probe, sent once the first was answered, is held in turn: nothing releases it but the end
        awaitValue(server::probeAnswersHeld, 2, "second probe held");
        c.server().qp.disconnect();
        WorkCompletion second = await(c.client().sendCq);
        assertThat(second.wrId).isEqualTo(2);
        assertThat(second.status).isEqualTo(WcStatus.WR_FLUSH_ERR);
    }

    @Test
    void aDisconnectByTheHolderFlushesThePeersSend() throws Exception {
        Connection c = heldSend();
        c.server().qp.disconnect();
        assertFlushedAndDisconnected(c);
    }

    @Test
    void aDisconnectByThePeerWhileItsAnswerIsHeldFlushesItsSend() throws Exception {
        Connection c = heldSend();
        c.client().qp.disconnect();
        assertFlushedAndDisconnected(c);
    }

    @Test
    void aDroppedConnectionWhileAnAnswerIsHeldFlushesBothSides() throws Exception {
        Connection c = heldSend();
        SoftIwarpFaults.of(c.server().qp).dropConnection();
        assertFlushedAndDisconnected(c);
    }

    /** Connects and has the client Send once, with its probe's answer held by the server. */
    private Connection heldSend() throws Exception {
        Connection c = connect();
        RegisteredMemory src = register(c.client().pd, 256, Access.LOCAL_WRITE);
        RegisteredMemory dst = register(c.server().pd, 256, Access.LOCAL_WRITE);
        fill(src.buffer(), 11);
        c.server().qp.postRecv(recv(1, dst, 0, 256));
        c.server().qp.postRecv(recv(2, dst, 0, 256));
        c.client().qp.postSend(send(9, src, 0, 256));
        assertThat(await(c.server().recvCq).status).isEqualTo(WcStatus.SUCCESS);
        assertThat(bytes(dst.buffer(), 0, 256)).isEqualTo(bytes(src.buffer(), 0, 256));
        awaitValue(((SoftQp) c.server().qp)::probeAnswersHeld, 1, "probe held");
        return c;
    }

    private void assertFlushedAndDisconnected(Connection c) throws Exception {
        WorkCompletion wc = await(c.client().sendCq);
        assertThat(wc.wrId).isEqualTo(9);
        assertThat(wc.status).as("a Send whose probe was never answered is flushed").isEqualTo(WcStatus.WR_FLUSH_ERR);
        assertThat(await(c.server().recvCq).status).isEqualTo(WcStatus.WR_FLUSH_ERR);
        c.client().events.await(ConnectionEventType.DISCONNECTED);
        c.server().events.await(ConnectionEventType.DISCONNECTED);
        assertThat(((SoftQp) c.server().qp).probeAnswersCarried()).isZero();
    }

    /** Waits (hang guard {@link #WAIT}) until {@code counter} reaches {@code value}; fails if it goes beyond. */
    static void awaitValue(LongSupplier counter, long value, String what) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (counter.getAsLong() < value && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(100_000);
        }
        assertThat(counter.getAsLong()).as(what).isEqualTo(value);
    }
}
