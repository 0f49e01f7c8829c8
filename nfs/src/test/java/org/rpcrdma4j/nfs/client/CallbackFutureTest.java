package org.rpcrdma4j.nfs.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The future the RDMA transport completes on its own thread: callers' stages run elsewhere. */
@Timeout(30)
class CallbackFutureTest {
    private final ExecutorService callbacks = Executors.newSingleThreadExecutor(r -> new Thread(r, "callbacks"));
    private final ExecutorService transport = Executors.newSingleThreadExecutor(r -> new Thread(r, "transport"));

    @AfterEach
    void stop() {
        callbacks.shutdownNow();
        transport.shutdownNow();
    }

    @Test
    void stagesRegisteredBeforeCompletionRunOnTheCallbackExecutorNotTheCompletingThread() throws Exception {
        CallbackFuture<String> f = new CallbackFuture<>(callbacks);
        AtomicReference<String> applyThread = new AtomicReference<>();
        AtomicReference<String> whenThread = new AtomicReference<>();
        AtomicReference<String> acceptThread = new AtomicReference<>();
        CountDownLatch blockerRunning = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<Integer> length = f.thenApply(s -> {
            applyThread.set(Thread.currentThread().getName());
            return s.length();
        });
        CompletableFuture<String> when = f.whenComplete((s, e) -> whenThread.set(Thread.currentThread().getName()));
        // a stage that blocks must not hold up the thread that completes the future
        CompletableFuture<Void> blocking = f.thenAccept(s -> {
            acceptThread.set(Thread.currentThread().getName());
            blockerRunning.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        transport.submit(() -> f.complete("reply")).get(10, TimeUnit.SECONDS);
        assertThat(f.get()).isEqualTo("reply");
        assertThat(blockerRunning.await(10, TimeUnit.SECONDS)).isTrue();
        release.countDown();
        blocking.get(10, TimeUnit.SECONDS);
        assertThat(length.get(10, TimeUnit.SECONDS)).isEqualTo(5);
        when.get(10, TimeUnit.SECONDS);
        assertThat(applyThread.get()).isEqualTo("callbacks");
        assertThat(whenThread.get()).isEqualTo("callbacks");
        assertThat(acceptThread.get()).isEqualTo("callbacks");
    }

    /**
     * A composed step (a second call, as a CREATE whose reply left out the handle composes a LOOKUP) completes on the
     * transport's thread; what is registered on the composed future while it is pending still runs on the callback
     * executor, and a failure of the step arrives as {@code thenCompose} gives it. Without a future of the same kind
     * the stage ran on "transport".
     */
    @Test
    void stagesOnAComposedFutureRunOnTheCallbackExecutorWhereverTheComposedStepCompletes() throws Exception {
        CallbackFuture<String> first = new CallbackFuture<>(callbacks);
        CallbackFuture<Integer> second = new CallbackFuture<>(callbacks);
        CompletableFuture<Integer> composed = first.thenCompose(s -> second);
        assertThat(composed).isInstanceOf(CallbackFuture.class);
        AtomicReference<String> stageThread = new AtomicReference<>();
        CompletableFuture<Integer> plusOne = composed.thenApply(n -> {
            stageThread.set(Thread.currentThread().getName());
            return n + 1;
        });
        transport.submit(() -> first.complete("reply")).get(10, TimeUnit.SECONDS);
        callbacks.submit(() -> { }).get(10, TimeUnit.SECONDS); // the step has been composed: second is awaited
        transport.submit(() -> second.complete(41)).get(10, TimeUnit.SECONDS);
        assertThat(plusOne.get(10, TimeUnit.SECONDS)).isEqualTo(42);
        assertThat(stageThread.get()).isEqualTo("callbacks");

        IOException cause = new IOException("no such file");
        CallbackFuture<String> ok = new CallbackFuture<>(callbacks);
        CallbackFuture<Integer> failing = new CallbackFuture<>(callbacks);
        CompletableFuture<Integer> failed = ok.thenCompose(s -> failing);
        AtomicReference<String> failureThread = new AtomicReference<>();
        CompletableFuture<Integer> recovered = failed.exceptionally(e -> {
            failureThread.set(Thread.currentThread().getName());
            return -1;
        });
        transport.submit(() -> ok.complete("reply")).get(10, TimeUnit.SECONDS);
        callbacks.submit(() -> { }).get(10, TimeUnit.SECONDS);
        transport.submit(() -> failing.completeExceptionally(cause)).get(10, TimeUnit.SECONDS);
        assertThatThrownBy(() -> failed.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .hasCause(cause);
        assertThatThrownBy(failed::join).isInstanceOf(CompletionException.class).hasCause(cause);
        assertThat(recovered.get(10, TimeUnit.SECONDS)).isEqualTo(-1);
        assertThat(failureThread.get()).isEqualTo("callbacks");

        CallbackFuture<String> done = new CallbackFuture<>(callbacks);
        done.complete("now");
        assertThat(done.thenCompose(s -> CompletableFuture.completedFuture(s.length())).get()).isEqualTo(3);
    }

    @Test
    void aStageRegisteredAfterCompletionRunsOnTheRegisteringThread() throws Exception {
        CallbackFuture<String> f = new CallbackFuture<>(callbacks);
        f.complete("done");
        AtomicReference<Thread> ran = new AtomicReference<>();
        f.thenAccept(s -> ran.set(Thread.currentThread())).get(10, TimeUnit.SECONDS);
        assertThat(ran.get()).isSameAs(Thread.currentThread());
    }

    @Test
    void aWaitingCallerIsWokenByTheCompletingThread() throws Exception {
        CallbackFuture<String> f = new CallbackFuture<>(callbacks);
        CompletableFuture<String> waiter = CompletableFuture.supplyAsync(() -> {
            try {
                return f.get(10, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new CompletionException(e);
            }
        });
        callbacks.submit(() -> { }).get(); // the callback executor is idle and stays so: nothing runs there
        transport.submit(() -> f.complete("reply"));
        assertThat(waiter.get(10, TimeUnit.SECONDS)).isEqualTo("reply");
    }

    @Test
    void inlineMappingRunsOnTheCompletingThreadAndPassesFailuresAsThenApplyDoes() throws Exception {
        CallbackFuture<String> f = new CallbackFuture<>(callbacks);
        AtomicReference<String> mapThread = new AtomicReference<>();
        CallbackFuture<Integer> mapped = f.thenApplyInline(s -> {
            mapThread.set(Thread.currentThread().getName());
            return s.length();
        });
        transport.submit(() -> f.complete("four")).get(10, TimeUnit.SECONDS);
        assertThat(mapped.get(10, TimeUnit.SECONDS)).isEqualTo(4);
        assertThat(mapThread.get()).isEqualTo("transport");

        IOException cause = new IOException("no answer");
        CallbackFuture<String> failed = new CallbackFuture<>(callbacks);
        CallbackFuture<Integer> ours = failed.thenApplyInline(String::length);
        failed.completeExceptionally(cause);
        assertThatThrownBy(() -> ours.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .hasCause(cause);
        AtomicReference<Throwable> seen = new AtomicReference<>();
        ours.whenComplete((v, e) -> seen.set(e)).exceptionally(e -> null).get(10, TimeUnit.SECONDS);
        assertThat(seen.get()).isInstanceOf(CompletionException.class).hasCause(cause);
        assertThatThrownBy(ours::join).isInstanceOf(CompletionException.class).hasCause(cause);

        CallbackFuture<String> throwing = new CallbackFuture<>(callbacks);
        CallbackFuture<Integer> thrown = throwing.thenApplyInline(s -> {
            throw new IllegalStateException("bad status");
        });
        throwing.complete("x");
        assertThatThrownBy(() -> thrown.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(IllegalStateException.class);
    }

    /**
     * With a spin time, a waiting thread polls (it stays runnable) instead of parking, gets the result when it comes,
     * and parks once the spin time is over; a future made by {@code thenApplyInline} spins the same way. Without one it
     * parks at once.
     */
    @Test
    void aWaiterPollsForTheSpinTimeThenParks() throws Exception {
        CallbackFuture<String> spinning = new CallbackFuture<>(callbacks, new ReplySpin(TimeUnit.SECONDS.toNanos(20)));
        CallbackFuture<Integer> mapped = spinning.thenApplyInline(String::length);
        AtomicReference<Object> got = new AtomicReference<>();
        Thread waiter = new Thread(() -> got.set(mapped.join()), "waiter");
        waiter.start();
        for (int i = 0; i < 50; i++) {
            Thread.sleep(2);
            assertThat(waiter.getState()).as("a spinning waiter is not parked").isIn(Thread.State.RUNNABLE,
                    Thread.State.NEW);
        }
        spinning.complete("four");
        waiter.join(10_000);
        assertThat(got.get()).isEqualTo(4);

        assertThat(parksWhileWaiting(new CallbackFuture<>(callbacks, new ReplySpin(TimeUnit.MILLISECONDS.toNanos(50)))))
                .as("a waiter parks once its spin time is over").isTrue();
        assertThat(parksWhileWaiting(new CallbackFuture<>(callbacks))).as("no spin time: parks at once").isTrue();
    }

    /** Whether a thread waiting in {@code get} on {@code f} is seen parked (within 10 s); completes {@code f}. */
    private static boolean parksWhileWaiting(CallbackFuture<String> f) throws Exception {
        AtomicReference<Object> got = new AtomicReference<>();
        Thread waiter = new Thread(() -> {
            try {
                got.set(f.get(30, TimeUnit.SECONDS));
            } catch (Exception e) {
                got.set(e);
            }
        }, "waiter");
        waiter.start();
        boolean parked = false;
        for (int i = 0; i < 5_000 && !parked; i++) {
            Thread.sleep(2);
            parked = waiter.getState() == Thread.State.TIMED_WAITING || waiter.getState() == Thread.State.WAITING;
        }
        f.complete("done");
        waiter.join(10_000);
        assertThat(got.get()).isEqualTo("done");
        return parked;
    }
}
