package org.rpcrdma4j.nfs.v4.state;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The laundromat's timer: how often it sweeps, and that one failed sweep does not end the sweeping. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LaundromatTest {

    @Test
    void aTenthOfTheLeaseBetweenOneAnd15Seconds() {
        assertThat(Laundromat.period(Duration.ofSeconds(90))).isEqualTo(Duration.ofSeconds(9));
        assertThat(Laundromat.period(Duration.ofSeconds(5))).isEqualTo(Duration.ofSeconds(1));
        assertThat(Laundromat.period(Duration.ofMinutes(10))).isEqualTo(Duration.ofSeconds(15));
    }

    /**
     * A sweep that throws an Error (memory that could not be had) used to end the timer's schedule for good and
     * silently: leases no longer lapsed, and recalled delegations never returned held their files' writers off.
     */
    @Test
    void aSweepThatThrowsAnErrorIsFollowedByTheNext() throws Exception {
        StateFixture f = new StateFixture();
        AtomicInteger sweeps = new AtomicInteger();
        CountDownLatch swept = new CountDownLatch(3);
        try (Laundromat l = Laundromat.start(f.table, Duration.ofMillis(20), table -> {
            int n = sweeps.incrementAndGet();
            swept.countDown();
            if (n == 1) {
                throw new OutOfMemoryError("one sweep that could not have its memory");
            }
            return table.expire();
        })) {
            assertThat(swept.await(30, TimeUnit.SECONDS)).as("sweeps after the failed one").isTrue();
        }
        assertThat(sweeps.get()).isGreaterThanOrEqualTo(3);
    }
}
