package org.rpcrdma4j.xprt.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class WarningLimiterTest {
    enum Kind { A, B }

    private final AtomicLong clock = new AtomicLong(-5_000_000_000L);
    private final WarningLimiter<Kind> limiter = new WarningLimiter<>(Kind.class, Duration.ofSeconds(10), clock::get);

    @Test
    void oneWarningPerKindPerIntervalAndTheNextReportsHowManyWereHeldBack() {
        assertThat(limiter.permit(Kind.A)).isZero();
        for (int i = 0; i < 5; i++) {
            clock.addAndGet(1_000_000_000L);
            assertThat(limiter.permit(Kind.A)).as("held back within the interval").isEqualTo(-1);
        }
        // another kind is not held back by A
        assertThat(limiter.permit(Kind.B)).isZero();
        clock.addAndGet(4_999_999_999L);
        assertThat(limiter.permit(Kind.A)).as("one nanosecond before the interval ends").isEqualTo(-1);
        clock.addAndGet(1);
        assertThat(limiter.permit(Kind.A)).as("held back since the last one").isEqualTo(6);
        assertThat(limiter.permit(Kind.A)).isEqualTo(-1);
        clock.addAndGet(10_000_000_000L);
        assertThat(limiter.permit(Kind.A)).isEqualTo(1);
        assertThat(limiter.permit(Kind.B)).isZero();
    }

    @Test
    void theClockMayWrap() {
        AtomicLong wrapping = new AtomicLong(Long.MAX_VALUE - 1_000);
        WarningLimiter<Kind> l = new WarningLimiter<>(Kind.class, Duration.ofSeconds(1), wrapping::get);
        assertThat(l.permit(Kind.A)).isZero();
        wrapping.addAndGet(500_000_000L); // past Long.MAX_VALUE
        assertThat(l.permit(Kind.A)).isEqualTo(-1);
        wrapping.addAndGet(500_000_000L);
        assertThat(l.permit(Kind.A)).isEqualTo(1);
    }

    @Test
    void theSuffixNamesTheHeldBackCountOnlyWhenThereIsOne() {
        assertThat(WarningLimiter.suffix(0)).isEmpty();
        assertThat(WarningLimiter.suffix(7)).isEqualTo(" (7 more like it held back)");
    }
}
