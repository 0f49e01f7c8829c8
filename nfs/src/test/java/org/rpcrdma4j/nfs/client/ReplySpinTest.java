package org.rpcrdma4j.nfs.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/** A waiter polls while polling pays, parks at once when replies keep coming later, and probes now and then. */
class ReplySpinTest {

    /** A future that says it is done from its {@code doneAt}-th question on, and counts the questions. */
    private static final class Answering implements Future<Object> {
        private final long doneAt;
        long asked;

        Answering(long doneAt) {
            this.doneAt = doneAt;
        }

        @Override
        public boolean isDone() {
            return ++asked >= doneAt;
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            return false;
        }

        @Override
        public boolean isCancelled() {
            return false;
        }

        @Override
        public Object get() {
            throw new UnsupportedOperationException();
        }

        @Override
        public Object get(long timeout, TimeUnit unit) {
            throw new UnsupportedOperationException();
        }
    }

    @Test
    void pollsUntilTheReplyComes() {
        ReplySpin spin = new ReplySpin(TimeUnit.SECONDS.toNanos(20));
        Answering f = new Answering(1_000);
        spin.await(f);
        assertThat(f.asked).as("polled until done, then asked once more").isEqualTo(1_001);
        assertThat(spin.paused()).isFalse();
    }

    @Test
    void repliesLaterThanTheSpinPauseItAndAProbeThatCatchesOneEndsThePause() {
        ReplySpin spin = new ReplySpin(TimeUnit.MILLISECONDS.toNanos(1));
        for (int i = 0; i < ReplySpin.MISSES_TO_PAUSE; i++) {
            assertThat(spin.paused()).isFalse();
            Answering never = new Answering(Long.MAX_VALUE);
            spin.await(never);
            assertThat(never.asked).as("polled for the spin time").isGreaterThan(2);
        }
        assertThat(spin.paused()).isTrue();
        for (int i = 1; i < ReplySpin.PROBE_EVERY; i++) {
            Answering never = new Answering(Long.MAX_VALUE);
            spin.await(never);
            assertThat(never.asked).as("paused: asked once, no polling").isEqualTo(1);
        }
        Answering quick = new Answering(50);
        spin.await(quick);
        assertThat(quick.asked).as("the probe polled and caught the reply").isEqualTo(51);
        assertThat(spin.paused()).isFalse();
    }

    @Test
    void noSpinTimeDoesNotPoll() {
        Answering f = new Answering(Long.MAX_VALUE);
        ReplySpin.NONE.await(f);
        assertThat(f.asked).isZero();
        assertThatThrownBy(() -> new ReplySpin(-1)).isInstanceOf(IllegalArgumentException.class);
    }
}
