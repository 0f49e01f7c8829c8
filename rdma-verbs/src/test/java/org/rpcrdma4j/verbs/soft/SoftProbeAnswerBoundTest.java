package org.rpcrdma4j.verbs.soft;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

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
import org.rpcrdma4j.verbs.soft.internal.SoftQp;

/**
 * With the default bound on held probe answers, on both sides: work whose peer sends nothing back (a lone Send, one-way
 * streams of small Sends, of 1 MiB Sends and of RDMA Writes with several in flight) completes in full, and a
 * request/response exchange where both sides hold completes every request with its status. {@code @Timeout} is only
 * the hang guard: a held answer that nothing released would stall the stream.
 */
@Timeout(120)
class SoftProbeAnswerBoundTest extends VerbsFixture {

    @Override
    protected RdmaDevice newDevice() throws Exception {
        // a zero-length Write to wake the silent responder would release a held answer before the bound
        return RdmaProviders.select("soft").open(Map.of("wakeResponder", "false", "confirmPlacement", "true"));
    }

    @Test
    void aLoneSendCompletesWhenTheBoundExpires() throws Exception {
        assertThat(SoftIwarpOptions.defaults().holdProbeAnswers()).isTrue();
        Connection c = connect();
        SoftQp server = (SoftQp) c.server().qp;
        RegisteredMemory src = register(c.client().pd, 128, Access.LOCAL_WRITE);
        RegisteredMemory dst = register(c.server().pd, 128, Access.LOCAL_WRITE);
        fill(src.buffer(), 1);
        c.server().qp.postRecv(recv(1, dst, 0, 128));
        c.client().qp.postSend(send(1, src, 0, 128));
        WorkCompletion wc = await(c.client().sendCq);
        assertThat(wc.status).isEqualTo(WcStatus.SUCCESS);
        assertThat(await(c.server().recvCq).byteLen).isEqualTo(128);
        assertThat(bytes(dst.buffer(), 0, 128)).isEqualTo(bytes(src.buffer(), 0, 128));
        // the probe came right behind a Send into a posted receive: it was held, and only the bound released it
        SoftProbeAnswerHoldTest.awaitValue(server::probeAnswerHoldsExpired, 1, "holds ended by the bound");
        assertThat(server.probeAnswersHeld()).isEqualTo(1);
        assertThat(server.probeAnswersCarried()).isZero();
    }

    @Test
    void aOneWayStreamOfSmallSendsCompletes() throws Exception {
        streamSends(4096, 3000, 8);
    }

    @Test
    void aOneWayStreamOfOneMebibyteSendsCompletes() throws Exception {
        streamSends(1 << 20, 48, 8);
    }

    @Test
    void aOneWayStreamOfRdmaWritesCompletes() throws Exception {
        int size = 64 * 1024;
        int count = 400;
        int window = 8;
        Connection c = connect();
        RegisteredMemory src = register(c.client().pd, window * size, Access.LOCAL_WRITE);
        RegisteredMemory dst = register(c.server().pd, window * size, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        fill(src.buffer(), 2);
        int posted = 0;
        int done = 0;
        while (done < count) {
            while (posted < count && posted - done < window) {
                int slot = posted % window;
                c.client().qp.postSend(write(posted, src, (long) slot * size, size, dst.rkey(),
                        dst.address((long) slot * size)));
                posted++;
            }
            WorkCompletion wc = await(c.client().sendCq);
            assertThat(wc.status).isEqualTo(WcStatus.SUCCESS);
            assertThat(wc.wrId).isEqualTo(done);
            done++;
        }
        assertThat(bytes(dst.buffer(), 0, window * size)).isEqualTo(bytes(src.buffer(), 0, window * size));
        assertThat(((SoftQp) c.server().qp).probeAnswersHeld()).as("probes behind Writes are not held").isZero();
    }

    /**
     * {@code count} Sends of {@code size} bytes, at most {@code window} in flight and never more than the receives
     * posted, each completing in order.
     */
    private void streamSends(int size, int count, int window) throws Exception {
        Connection c = connect(new Sizes(64, 64, 1, 0, 256));
        RegisteredMemory src = register(c.client().pd, window * size, Access.LOCAL_WRITE);
        RegisteredMemory dst = register(c.server().pd, window * size, Access.LOCAL_WRITE);
        fill(src.buffer(), 5);
        for (int i = 0; i < window; i++) {
            c.server().qp.postRecv(recv(i, dst, (long) i * size, size));
        }
        int posted = 0;
        int done = 0;
        int received = 0;
        while (done < count) {
            int progress = done + received;
            // within the window of Sends in flight, and never beyond the receives posted so far: a Send completes at
            // the client once placed, which can be before this thread has seen its receive and posted it again
            while (posted < count && posted - done < window && posted < window + received) {
                c.client().qp.postSend(send(posted, src, (long) (posted % window) * size, size));
                posted++;
            }
            for (WorkCompletion r : drain(c.server().recvCq)) {
                assertThat(r.status).isEqualTo(WcStatus.SUCCESS);
                assertThat(r.byteLen).isEqualTo(size);
                int slot = (int) r.wrId;
                c.server().qp.postRecv(recv(slot, dst, (long) slot * size, size));
                received++;
            }
            for (WorkCompletion wc : drain(c.client().sendCq)) {
                assertThat(wc.status).isEqualTo(WcStatus.SUCCESS);
                assertThat(wc.wrId).isEqualTo(done);
                done++;
            }
            if (done + received == progress) {
                java.util.concurrent.locks.LockSupport.parkNanos(20_000);
            }
        }
        List<WorkCompletion> rest = awaitAll(c.server().recvCq, count - received);
        assertThat(rest).allSatisfy(r -> assertThat(r.status).isEqualTo(WcStatus.SUCCESS));
        assertThat(bytes(dst.buffer(), 0, window * size)).isEqualTo(bytes(src.buffer(), 0, window * size));
    }

    @Test
    void requestsAndRepliesBothHeldAllComplete() throws Exception {
        int rounds = 300;
        int size = 96;
        Connection c = connect();
        RegisteredMemory clientMem = register(c.client().pd, 2 * size, Access.LOCAL_WRITE);
        RegisteredMemory serverMem = register(c.server().pd, 2 * size, Access.LOCAL_WRITE);
        for (int k = 0; k < rounds; k++) {
            c.server().qp.postRecv(recv(k, serverMem, 0, size));
            c.client().qp.postRecv(recv(k, clientMem, size, size));
            clientMem.buffer().putInt(0, k);
            SendWorkRequest call = send(k, clientMem, 0, size);
            call.flags = k % 3 == 0 ? SendWorkRequest.SIGNALED : 0;
            c.client().qp.postSend(call);
            WorkCompletion in = await(c.server().recvCq);
            assertThat(in.status).isEqualTo(WcStatus.SUCCESS);
            assertThat(serverMem.buffer().getInt(0)).isEqualTo(k);
            serverMem.buffer().putInt(size, -k);
            c.server().qp.postSend(send(k, serverMem, size, size));
            WorkCompletion out = await(c.client().recvCq);
            assertThat(out.status).isEqualTo(WcStatus.SUCCESS);
            assertThat(clientMem.buffer().getInt(size)).isEqualTo(-k);
            if (k % 3 == 0) {
                WorkCompletion sent = awaitWrId(c.client().sendCq, k);
                assertThat(sent.status).isEqualTo(WcStatus.SUCCESS);
            }
            WorkCompletion replied = awaitWrId(c.server().sendCq, k);
            assertThat(replied.status).isEqualTo(WcStatus.SUCCESS);
        }
        SoftQp server = (SoftQp) c.server().qp;
        SoftQp client = (SoftQp) c.client().qp;
        // whatever the interleaving, every held answer left with output, by a later FPDU or by the bound
        assertThat(server.probeAnswersHeld() + client.probeAnswersHeld()).isPositive();
    }
}
