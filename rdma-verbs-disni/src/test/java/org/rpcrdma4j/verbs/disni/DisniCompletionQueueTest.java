package org.rpcrdma4j.verbs.disni;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.WcOpcode;
import org.rpcrdma4j.verbs.WcStatus;
import org.rpcrdma4j.verbs.WorkCompletion;

class DisniCompletionQueueTest {

    static final class User implements DisniCompletionQueue.User {
        final int qpNum;
        int nativeQpNum;
        int failures;

        User(int qpNum, int nativeQpNum) {
            this.qpNum = qpNum;
            this.nativeQpNum = nativeQpNum;
        }

        @Override
        public int qpNum() {
            return qpNum;
        }

        @Override
        public int nativeQpNum() {
            return nativeQpNum;
        }

        @Override
        public void completionFailed() {
            failures++;
        }
    }

    private final Fakes.NativeCqFake nativeCq = new Fakes.NativeCqFake();
    private final AtomicInteger closes = new AtomicInteger();

    private DisniCompletionQueue cq(int capacity) throws IOException {
        return new DisniCompletionQueue(nativeCq, capacity, null, closes::incrementAndGet);
    }

    private static WorkCompletion[] batch(int n) {
        WorkCompletion[] b = new WorkCompletion[n];
        for (int i = 0; i < n; i++) {
            b[i] = new WorkCompletion();
        }
        return b;
    }

    @Test
    void completionsAreTranslatedAndCarryTheSpiQueuePairNumber() throws IOException {
        DisniCompletionQueue cq = cq(16);
        User a = new User(1, 0x100);
        User b = new User(2, 0x200);
        cq.attach(a, true, true);
        cq.attach(b, true, true);
        nativeCq.complete(10, 0, CompletionTranslation.IBV_WC_RECV, 300, 0x200);
        nativeCq.complete(11, 0, CompletionTranslation.IBV_WC_SEND, 0, 0x100);

        WorkCompletion[] out = batch(4);
        assertThat(cq.poll(out)).isEqualTo(2);
        assertThat(out[0].wrId).isEqualTo(10);
        assertThat(out[0].opcode).isEqualTo(WcOpcode.RECV);
        assertThat(out[0].byteLen).isEqualTo(300);
        assertThat(out[0].qpNum).isEqualTo(2);
        assertThat(out[1].qpNum).isEqualTo(1);
        assertThat(cq.poll(out)).isZero();
    }

    @Test
    void completionsPolledBeyondTheBatchWaitInOrder() throws IOException {
        DisniCompletionQueue cq = cq(64);
        for (int i = 0; i < 40; i++) {
            nativeCq.complete(i, 0, CompletionTranslation.IBV_WC_SEND, 0, 0);
        }
        WorkCompletion[] out = batch(3);
        StringBuilder ids = new StringBuilder();
        int n;
        while ((n = cq.poll(out)) > 0) {
            for (int i = 0; i < n; i++) {
                ids.append(out[i].wrId).append(',');
            }
        }
        StringBuilder expected = new StringBuilder();
        for (int i = 0; i < 40; i++) {
            expected.append(i).append(',');
        }
        assertThat(ids.toString()).isEqualTo(expected.toString());
    }

    @Test
    void aFailedCompletionOfTheOnlyQueuePairIsAttributedAndBreaksIt() throws IOException {
        DisniCompletionQueue cq = cq(8);
        User only = new User(5, 0x500);
        cq.attach(only, false, true);
        nativeCq.complete(3, 10, 0x7777, 999, 0x999); // REM_ACCESS_ERR; DiSNI drops byte_len and qp_num
        WorkCompletion[] out = batch(1);
        assertThat(cq.poll(out)).isEqualTo(1);
        assertThat(out[0].status).isEqualTo(WcStatus.REM_ACCESS_ERR);
        assertThat(out[0].qpNum).isEqualTo(5);
        assertThat(out[0].opcode).as("a receive-only queue").isEqualTo(WcOpcode.RECV);
        assertThat(out[0].byteLen).isZero();
        assertThat(only.failures).isEqualTo(1);
    }

    @Test
    void aFailedCompletionOnASharedQueueHasNoQueuePairNumber() throws IOException {
        DisniCompletionQueue cq = cq(8);
        User a = new User(1, 1);
        User b = new User(2, 2);
        cq.attach(a, true, false);
        cq.attach(b, true, false);
        nativeCq.complete(3, 5, CompletionTranslation.IBV_WC_RDMA_WRITE, 0, 0);
        WorkCompletion[] out = batch(1);
        cq.poll(out);
        assertThat(out[0].qpNum).isZero();
        assertThat(out[0].opcode).isEqualTo(WcOpcode.RDMA_WRITE);
        assertThat(a.failures + b.failures).isZero();
    }

    @Test
    void providerFlushesComeAfterTheDevicesCompletions() throws IOException {
        DisniCompletionQueue cq = cq(4);
        nativeCq.complete(1, 0, CompletionTranslation.IBV_WC_SEND, 0, 0);
        assertThat(cq.addFlush(2, WcOpcode.RDMA_READ, 9)).isTrue();
        WorkCompletion[] out = batch(4);
        assertThat(cq.poll(out)).isEqualTo(2);
        assertThat(out[0].wrId).isEqualTo(1);
        assertThat(out[1].wrId).isEqualTo(2);
        assertThat(out[1].status).isEqualTo(WcStatus.WR_FLUSH_ERR);
        assertThat(out[1].opcode).isEqualTo(WcOpcode.RDMA_READ);
        assertThat(out[1].qpNum).isEqualTo(9);
    }

    @Test
    void theFlushRingHoldsAtMostTheQueuesCapacity() throws IOException {
        DisniCompletionQueue cq = cq(2);
        assertThat(cq.addFlush(1, WcOpcode.SEND, 1)).isTrue();
        assertThat(cq.addFlush(2, WcOpcode.SEND, 1)).isTrue();
        assertThat(cq.flushRoom()).isZero();
        assertThat(cq.addFlush(3, WcOpcode.SEND, 1)).isFalse();
    }

    @Test
    void aFailingPollIsLoud() throws IOException {
        DisniCompletionQueue cq = cq(4);
        nativeCq.poll.fail = true;
        assertThatThrownBy(() -> cq.poll(batch(1))).isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining("ibv_poll_cq failed: Polling CQ failed");
    }

    @Test
    void theListenerIsCalledOncePerArming() throws IOException {
        DisniCompletionQueue cq = cq(4);
        AtomicInteger calls = new AtomicInteger();
        cq.setListener(q -> calls.incrementAndGet());
        nativeCq.events = 1;
        assertThat(cq.checkEvent()).isTrue(); // an event, but not armed
        assertThat(calls).hasValue(0);

        cq.requestNotify();
        assertThat(nativeCq.notifyRequests).isEqualTo(1);
        assertThat(cq.isArmed()).isTrue();
        assertThat(cq.checkEvent()).isFalse();
        nativeCq.events = 2;
        assertThat(cq.checkEvent()).isTrue();
        assertThat(cq.checkEvent()).isTrue();
        assertThat(calls).hasValue(1);
        assertThat(nativeCq.acked).isEqualTo(3);
        assertThat(cq.isArmed()).isFalse();
    }

    @Test
    void aProviderFlushWakesAnArmedQueue() throws IOException {
        DisniCompletionQueue cq = cq(4);
        AtomicInteger calls = new AtomicInteger();
        cq.setListener(q -> calls.incrementAndGet());
        cq.requestNotify();
        cq.addFlush(1, WcOpcode.RECV, 1);
        assertThat(cq.checkEvent()).isTrue();
        assertThat(calls).hasValue(1);
    }

    @Test
    void closingIsRefusedWhileQueuePairsUseItAndAcknowledgesEventsLeft() throws IOException, VerbsException {
        DisniCompletionQueue cq = cq(4);
        User u = new User(1, 1);
        cq.attach(u, true, true);
        assertThatThrownBy(cq::close).isInstanceOf(VerbsException.class).hasMessageContaining("still used by 1");
        cq.detach(u);
        nativeCq.events = 2;
        cq.close();
        assertThat(nativeCq.acked).isEqualTo(2);
        assertThat(nativeCq.destroyed).isTrue();
        assertThat(nativeCq.poll.freed).isTrue();
        assertThat(closes).hasValue(1);
        cq.close();
        assertThat(closes).hasValue(1);
        assertThatThrownBy(() -> cq.poll(batch(1))).isInstanceOf(IllegalStateException.class);
    }
}
