package org.rpcrdma4j.verbs.disni;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.verbs.ConnectionInfo;
import org.rpcrdma4j.verbs.Opcode;
import org.rpcrdma4j.verbs.PostException;
import org.rpcrdma4j.verbs.QpState;
import org.rpcrdma4j.verbs.QueuePairConfig;
import org.rpcrdma4j.verbs.RecvWorkRequest;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.TransportType;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.WcOpcode;
import org.rpcrdma4j.verbs.WcStatus;
import org.rpcrdma4j.verbs.WorkCompletion;

class DisniQueuePairTest {
    private Fakes.NativeCqFake sendNative;
    private Fakes.NativeCqFake recvNative;
    private DisniCompletionQueue sendCq;
    private DisniCompletionQueue recvCq;
    private DisniQueuePair qp;
    private Fakes.CmIdFake id;
    private final AtomicInteger closes = new AtomicInteger();

    @BeforeEach
    void setUp() throws IOException {
        sendNative = new Fakes.NativeCqFake();
        recvNative = new Fakes.NativeCqFake();
        sendCq = new DisniCompletionQueue(sendNative, 16, null, () -> { });
        recvCq = new DisniCompletionQueue(recvNative, 16, null, () -> { });
        QueuePairConfig config = new QueuePairConfig(sendCq, recvCq, 8, 4, 2, 1, 64);
        qp = new DisniQueuePair(7, null, null, config, QpLimits.of(config, TransportType.ROCE), new Fakes.DirectCm(),
                closes::incrementAndGet);
        id = new Fakes.CmIdFake();
    }

    private static RecvWorkRequest recv(long wrId) {
        RecvWorkRequest r = new RecvWorkRequest(1);
        r.wrId = wrId;
        r.addSge().set(0x1000 * wrId, 1024, 0x42);
        return r;
    }

    private static WorkCompletion[] batch(int n) {
        WorkCompletion[] b = new WorkCompletion[n];
        for (int i = 0; i < n; i++) {
            b[i] = new WorkCompletion();
        }
        return b;
    }

    private void connect() throws VerbsException {
        qp.bind(id);
        qp.established(new ConnectionInfo(new InetSocketAddress(1), new InetSocketAddress(2), null, 16, 16));
    }

    @Test
    void receivesPostedBeforeTheConnectionArePostedInOrderWhenTheNativeQueuePairExists() throws Exception {
        RecvWorkRequest chain = recv(1);
        chain.next = recv(2);
        qp.postRecv(chain);
        qp.postRecv(recv(3));
        assertThat(id.qp.recvCount).isZero();

        qp.bind(id);
        assertThat(id.qp.recvWrIds()).containsExactly(1L, 2L, 3L);
        assertThat(qp.nativeQpNum()).isEqualTo(0x1234);
        assertThat(qp.qpNum()).isEqualTo(7);
        assertThat(id.spec.maxSendWr()).isEqualTo(8);
        assertThat(id.spec.maxRecvWr()).isEqualTo(4);
        assertThat(id.spec.maxSendSge()).isEqualTo(2);
        assertThat(id.spec.maxInlineData()).isEqualTo(64);
        assertThat(qp.state()).isEqualTo(QpState.INIT);

        qp.postRecv(recv(4)); // bound, not yet established: goes straight to the device
        assertThat(id.qp.recvWrIds()).containsExactly(1L, 2L, 3L, 4L);
    }

    @Test
    void moreReceivesThanTheQueueHoldsBeforeTheConnectionAreRefused() throws PostException {
        for (int i = 0; i < 4; i++) {
            qp.postRecv(recv(i));
        }
        assertThatThrownBy(() -> qp.postRecv(recv(9))).isInstanceOf(PostException.class)
                .hasMessageContaining("more than maxRecvWr (4) receives posted before the connection");
    }

    @Test
    void aReceiveWithTooManySgesIsRefused() {
        RecvWorkRequest two = new RecvWorkRequest(2);
        two.addSge().set(1, 1, 1);
        two.addSge().set(2, 2, 2);
        assertThatThrownBy(() -> qp.postRecv(two)).isInstanceOf(PostException.class)
                .hasMessageContaining("2 SGEs, the queue pair takes at most 1");
    }

    @Test
    void sendsBeforeTheConnectionAreRefusedClearly() {
        SendWorkRequest send = SendTranslationTest.wr(1, Opcode.SEND, SendWorkRequest.SIGNALED, 8);
        assertThatThrownBy(() -> qp.postSend(send)).isInstanceOf(PostException.class)
                .hasMessageContaining("not connected yet (INIT)");
    }

    @Test
    void anEstablishedQueuePairPostsToTheDevice() throws Exception {
        connect();
        assertThat(qp.state()).isEqualTo(QpState.RTS);
        assertThat(qp.connectionInfo().ird()).isEqualTo(16);
        qp.postSend(SendTranslationTest.wr(1, Opcode.SEND, SendWorkRequest.SIGNALED, 8));
        qp.postRecv(recv(5));
        assertThat(id.qp.sendExecutions).isEqualTo(1);
        assertThat(id.qp.recvWrIds()).containsExactly(5L);
    }

    @Test
    void unsupportedRequestsAreRefusedBeforeAnythingIsPosted() throws Exception {
        connect();
        SendWorkRequest send = SendTranslationTest.wr(1, Opcode.SEND, 0, 8);
        send.next = SendTranslationTest.wr(2, Opcode.LOCAL_INV, SendWorkRequest.SIGNALED);
        assertThatThrownBy(() -> qp.postSend(send)).isInstanceOf(PostException.class)
                .hasMessageContaining("LOCAL_INV is not supported");
        assertThat(id.qp.sendExecutions).isZero();
    }

    @Test
    void aBrokenQueuePairFlushesWhatItHeldAndEverythingPostedLater() throws Exception {
        qp.postRecv(recv(1));
        qp.postRecv(recv(2));
        qp.broken(); // the connection failed before the native queue pair existed
        assertThat(qp.state()).isEqualTo(QpState.ERROR);

        SendWorkRequest write = SendTranslationTest.wr(10, Opcode.RDMA_WRITE, 0, 8);
        write.next = SendTranslationTest.wr(11, Opcode.SEND, SendWorkRequest.SIGNALED, 8);
        qp.postSend(write);
        qp.postRecv(recv(3));

        WorkCompletion[] out = batch(8);
        assertThat(recvCq.poll(out)).isEqualTo(3);
        for (int i = 0; i < 3; i++) {
            assertThat(out[i].status).isEqualTo(WcStatus.WR_FLUSH_ERR);
            assertThat(out[i].opcode).isEqualTo(WcOpcode.RECV);
            assertThat(out[i].qpNum).isEqualTo(7);
            assertThat(out[i].wrId).isEqualTo(i + 1);
        }
        assertThat(sendCq.poll(out)).isEqualTo(2);
        assertThat(out[0].wrId).isEqualTo(10);
        assertThat(out[0].opcode).isEqualTo(WcOpcode.RDMA_WRITE);
        assertThat(out[1].wrId).isEqualTo(11);
        assertThat(out[1].opcode).isEqualTo(WcOpcode.SEND);
        assertThat(id.qp.recvCount).isZero();
        assertThat(id.qp.sendExecutions).isZero();
    }

    @Test
    void aFailedCompletionPutsTheQueuePairInErrorSoLaterPostsAreFlushedByTheProvider() throws Exception {
        connect();
        sendNative.complete(1, 12, CompletionTranslation.IBV_WC_SEND, 0, 0); // RETRY_EXC_ERR
        WorkCompletion[] out = batch(4);
        assertThat(sendCq.poll(out)).isEqualTo(1);
        assertThat(out[0].status).isEqualTo(WcStatus.RETRY_EXC_ERR);
        assertThat(out[0].qpNum).isEqualTo(7);
        assertThat(qp.state()).isEqualTo(QpState.ERROR);

        qp.postSend(SendTranslationTest.wr(2, Opcode.SEND, SendWorkRequest.SIGNALED, 8));
        assertThat(id.qp.sendExecutions).isZero();
        assertThat(sendCq.poll(out)).isEqualTo(1);
        assertThat(out[0].wrId).isEqualTo(2);
        assertThat(out[0].status).isEqualTo(WcStatus.WR_FLUSH_ERR);
    }

    @Test
    void aRefusedNativePostIsReportedAndBreaksTheQueuePair() throws Exception {
        connect();
        id.qp.failPosts = true;
        assertThatThrownBy(() -> qp.postSend(SendTranslationTest.wr(1, Opcode.SEND, SendWorkRequest.SIGNALED, 8)))
                .isInstanceOf(PostException.class)
                .hasMessageContaining("ibv_post_send failed")
                .hasMessageContaining("ENOMEM")
                .hasMessageContaining("in error now");
        assertThat(qp.state()).isEqualTo(QpState.ERROR);
        qp.postRecv(recv(1)); // flushed by the provider now, not refused
        WorkCompletion[] out = batch(2);
        assertThat(recvCq.poll(out)).isEqualTo(1);
        assertThat(out[0].status).isEqualTo(WcStatus.WR_FLUSH_ERR);
        assertThat(id.qp.recvCount).isZero();
    }

    @Test
    void aFailingCreateQpIsAVerbsException() {
        id.createQpReturnsNull = true;
        assertThatThrownBy(() -> qp.bind(id)).isInstanceOf(VerbsException.class)
                .hasMessageContaining("rdma_create_qp failed");
        id.createQpReturnsNull = false;
        id.failNext = new IOException("createQP failed, errno 22");
        assertThatThrownBy(() -> qp.bind(id)).isInstanceOf(VerbsException.class)
                .hasMessageContaining("rdma_create_qp failed").hasMessageContaining("EINVAL");
    }

    @Test
    void closingDetachesFromTheQueuesOnceAndRefusesLaterPosts() throws Exception {
        connect();
        qp.close();
        qp.close();
        assertThat(qp.state()).isEqualTo(QpState.CLOSED);
        assertThat(closes).hasValue(1);
        sendCq.close(); // no longer in use
        recvCq.close();
        assertThatThrownBy(() -> qp.postRecv(recv(1))).isInstanceOf(PostException.class)
                .hasMessageContaining("closed");
        assertThatThrownBy(() -> qp.postSend(SendTranslationTest.wr(1, Opcode.SEND, 0, 8)))
                .isInstanceOf(PostException.class).hasMessageContaining("closed");
        assertThat(id.qp.sends).allMatch(s -> s.freed);
    }

    @Test
    void disconnectingANeverConnectedQueuePairPutsItInError() throws Exception {
        qp.postRecv(recv(1));
        qp.disconnect();
        assertThat(qp.state()).isEqualTo(QpState.ERROR);
        assertThat(recvCq.poll(batch(2))).isEqualTo(1);
    }
}
