package org.rpcrdma4j.xprt.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class AgentRunnerTest {

    /** Records which thread ran each command; fires a deadline once. */
    static final class Recorder implements Agent {
        final Queue<Runnable> commands = new ConcurrentLinkedQueue<>();
        final CountDownLatch closed = new CountDownLatch(1);
        volatile long deadline = Long.MAX_VALUE;
        final CountDownLatch deadlineFired = new CountDownLatch(1);

        @Override
        public String roleName() {
            return "recorder";
        }

        @Override
        public int doWork(long nowNanos) {
            int work = 0;
            Runnable r;
            while ((r = commands.poll()) != null) {
                r.run();
                work++;
            }
            if (nowNanos - deadline >= 0) {
                deadline = Long.MAX_VALUE;
                deadlineFired.countDown();
                work++;
            }
            return work;
        }

        @Override
        public long nextDeadlineNanos() {
            return deadline;
        }

        @Override
        public void onClose() {
            closed.countDown();
        }
    }

    @Test
    void commandsRunOnTheRunnerThreadAfterWake() throws Exception {
        try (AgentRunner runner = new AgentRunner("test-runner")) {
            Recorder agent = new Recorder();
            runner.add(agent);
            CountDownLatch ran = new CountDownLatch(100);
            boolean[] onRunner = {true};
            for (int i = 0; i < 100; i++) {
                agent.commands.add(() -> {
                    onRunner[0] &= runner.isRunnerThread();
                    ran.countDown();
                });
                runner.wake();
            }
            assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(onRunner[0]).isTrue();
        }
    }

    @Test
    void deadlineWakesAParkedRunner() throws Exception {
        try (AgentRunner runner = new AgentRunner("test-runner")) {
            Recorder agent = new Recorder();
            runner.add(agent);
            agent.deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50);
            runner.wake(); // an agent that moves its deadline earlier from another thread wakes its runner
            assertThat(agent.deadlineFired.await(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void removeAndCloseCallOnClose() throws Exception {
        Recorder a = new Recorder();
        Recorder b = new Recorder();
        AgentRunner runner = new AgentRunner("test-runner");
        runner.add(a);
        runner.add(b);
        runner.remove(a);
        assertThat(a.closed.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(b.closed.getCount()).isEqualTo(1);
        runner.close();
        assertThat(b.closed.getCount()).isZero();
    }
}
