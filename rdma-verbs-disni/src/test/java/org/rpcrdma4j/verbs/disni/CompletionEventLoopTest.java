package org.rpcrdma4j.verbs.disni;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.verbs.WcOpcode;

/** The completion-event thread with fake completion channels; timeouts here are hang guards only. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CompletionEventLoopTest {
    private final CompletionEventLoop loop = new CompletionEventLoop(TimeUnit.MICROSECONDS.toNanos(200));

    /** A native queue whose events are raised from the test thread. */
    static final class RaisedEvents extends Fakes.NativeCqFake {
        private int raised;

        synchronized void raise() {
            raised++;
        }

        @Override
        public synchronized boolean takeEvent() {
            if (raised > 0) {
                raised--;
                return true;
            }
            return false;
        }

        @Override
        public synchronized void ackEvents(int count) {
            acked += count;
        }

        synchronized int acked() {
            return acked;
        }
    }

    @AfterEach
    void stop() {
        loop.stop();
    }

    @Test
    void anArmedQueuesEventReachesItsListenerOnTheLoopThreadAndIsAcknowledged() throws Exception {
        loop.start("test-cq-loop");
        RaisedEvents a = new RaisedEvents();
        RaisedEvents b = new RaisedEvents();
        DisniCompletionQueue cqA = new DisniCompletionQueue(a, 8, loop, () -> { });
        DisniCompletionQueue cqB = new DisniCompletionQueue(b, 8, loop, () -> { });
        CountDownLatch heardA = new CountDownLatch(1);
        CountDownLatch heardB = new CountDownLatch(1);
        AtomicReference<String> thread = new AtomicReference<>();
        cqA.setListener(cq -> {
            thread.set(Thread.currentThread().getName());
            heardA.countDown();
        });
        cqB.setListener(cq -> heardB.countDown());
        cqA.requestNotify();
        cqB.requestNotify();
        b.raise();
        assertThat(heardB.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(heardA.getCount()).as("no event on A yet").isEqualTo(1);
        a.raise();
        assertThat(heardA.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(thread.get()).isEqualTo("test-cq-loop");
        cqA.close();
        cqB.close();
        assertThat(a.acked()).isEqualTo(1);
        assertThat(b.acked()).isEqualTo(1);
    }

    @Test
    void aProviderFlushOnAnArmedQueueWakesTheListener() throws Exception {
        loop.start("test-cq-loop");
        DisniCompletionQueue cq = new DisniCompletionQueue(new RaisedEvents(), 8, loop, () -> { });
        CountDownLatch heard = new CountDownLatch(1);
        cq.setListener(q -> heard.countDown());
        cq.requestNotify();
        cq.addFlush(5, WcOpcode.RECV, 1);
        assertThat(heard.await(30, TimeUnit.SECONDS)).isTrue();
        cq.close();
    }

    @Test
    void aListenerThatThrowsDoesNotStopTheLoop() throws Exception {
        loop.start("test-cq-loop");
        RaisedEvents n = new RaisedEvents();
        DisniCompletionQueue cq = new DisniCompletionQueue(n, 8, loop, () -> { });
        CountDownLatch first = new CountDownLatch(1);
        CountDownLatch second = new CountDownLatch(2);
        cq.setListener(q -> {
            first.countDown();
            second.countDown();
            throw new IllegalStateException("listener bug");
        });
        cq.requestNotify();
        n.raise();
        assertThat(first.await(30, TimeUnit.SECONDS)).isTrue();
        cq.requestNotify(); // one call per arming: arm again
        n.raise();
        assertThat(second.await(30, TimeUnit.SECONDS)).isTrue();
        cq.close();
    }

    @Test
    void aQueueClosedFromItsOwnListenerIsRemovedWithoutWaitingForItself() throws Exception {
        loop.start("test-cq-loop");
        RaisedEvents n = new RaisedEvents();
        DisniCompletionQueue cq = new DisniCompletionQueue(n, 8, loop, () -> { });
        CountDownLatch closed = new CountDownLatch(1);
        cq.setListener(q -> {
            try {
                q.close();
                closed.countDown();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        cq.requestNotify();
        n.raise();
        assertThat(closed.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(n.destroyed).isTrue();
    }
}
