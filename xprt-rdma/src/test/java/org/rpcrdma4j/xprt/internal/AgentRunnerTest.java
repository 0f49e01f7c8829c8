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

    /** A recorder with a claim: counts the rounds that ran while another thread held it (must stay 0). */
    static final class ClaimedRecorder implements Agent {
        final AgentClaim claim = new AgentClaim();
        final Queue<Runnable> commands = new ConcurrentLinkedQueue<>();
        volatile int roundsWhileHeldElsewhere;
        volatile Thread outside;

        @Override
        public String roleName() {
            return "claimed";
        }

        @Override
        public int doWork(long nowNanos) {
            if (!claim.heldByCurrentThread()) {
                roundsWhileHeldElsewhere++;
            }
            int work = 0;
            Runnable r;
            while ((r = commands.poll()) != null) {
                r.run();
                work++;
            }
            return work;
        }

        @Override
        public long nextDeadlineNanos() {
            return Long.MAX_VALUE;
        }

        @Override
        public void onClose() {
        }

        @Override
        public AgentClaim claim() {
            return claim;
        }
    }

    @Test
    void aClaimedAgentIsSkippedAndTheRunnerIsWokenWhenTheClaimEnds() throws Exception {
        try (AgentRunner runner = new AgentRunner("test-runner")) {
            ClaimedRecorder agent = new ClaimedRecorder();
            runner.add(agent);
            CountDownLatch first = new CountDownLatch(1);
            agent.commands.add(first::countDown);
            runner.wake();
            assertThat(first.await(10, TimeUnit.SECONDS)).isTrue();

            while (!agent.claim.tryClaim()) {
                Thread.onSpinWait(); // the runner's round may not have ended yet
            }
            assertThat(agent.claim.heldByCurrentThread()).isTrue();
            assertThat(agent.claim.tryClaim()).as("not re-entrant").isFalse();
            CountDownLatch ran = new CountDownLatch(1);
            boolean[] onRunner = {false};
            agent.commands.add(() -> {
                onRunner[0] = runner.isRunnerThread();
                ran.countDown();
            });
            runner.wake();
            // the runner cannot run the agent while this thread holds it: the command waits
            assertThat(ran.await(200, TimeUnit.MILLISECONDS)).isFalse();
            agent.claim.release(runner); // wakes the runner, which missed the agent
            assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(onRunner[0]).isTrue();
            assertThat(agent.roundsWhileHeldElsewhere).isZero();
        }
    }

    @Test
    void claimsFromManyThreadsNeverOverlapWithTheRunner() throws Exception {
        try (AgentRunner runner = new AgentRunner("test-runner")) {
            ClaimedRecorder agent = new ClaimedRecorder();
            runner.add(agent);
            int threads = 4;
            int rounds = 20_000;
            long[] counter = {0}; // plain field: only a claim holder touches it
            java.util.concurrent.atomic.AtomicInteger overlaps = new java.util.concurrent.atomic.AtomicInteger();
            java.util.concurrent.atomic.AtomicInteger inside = new java.util.concurrent.atomic.AtomicInteger();
            Runnable increment = () -> {
                if (inside.incrementAndGet() != 1) {
                    overlaps.incrementAndGet();
                }
                counter[0]++;
                inside.decrementAndGet();
            };
            java.util.concurrent.atomic.AtomicInteger handedOver = new java.util.concurrent.atomic.AtomicInteger();
            Thread[] workers = new Thread[threads];
            for (int t = 0; t < threads; t++) {
                workers[t] = new Thread(() -> {
                    for (int i = 0; i < rounds; i++) {
                        if (agent.claim.tryClaim()) {
                            try {
                                increment.run();
                            } finally {
                                agent.claim.release(runner);
                            }
                        } else {
                            handedOver.incrementAndGet();
                            agent.commands.add(increment);
                            runner.wake();
                        }
                    }
                });
                workers[t].start();
            }
            for (Thread w : workers) {
                w.join();
            }
            long expected = (long) threads * rounds;
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (System.nanoTime() < until) {
                CountDownLatch drained = new CountDownLatch(1);
                agent.commands.add(drained::countDown);
                runner.wake();
                assertThat(drained.await(10, TimeUnit.SECONDS)).isTrue();
                if (agent.commands.isEmpty()) {
                    break;
                }
            }
            // the runner holds the claim for the rest of the round that counted the latch down: wait it out
            long claimUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            boolean claimed;
            while (!(claimed = agent.claim.tryClaim()) && System.nanoTime() < claimUntil) {
                Thread.onSpinWait();
            }
            assertThat(claimed).isTrue();
            try {
                assertThat(counter[0]).isEqualTo(expected);
            } finally {
                agent.claim.release(runner);
            }
            assertThat(overlaps.get()).isZero();
            assertThat(agent.roundsWhileHeldElsewhere).isZero();
        }
    }
}
