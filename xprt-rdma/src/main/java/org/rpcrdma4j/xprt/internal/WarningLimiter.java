package org.rpcrdma4j.xprt.internal;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongSupplier;

/**
 * Rate-limits warnings that any peer can provoke (a hostile client dropping one connection after another): at most
 * one warning of each kind per interval; the ones in between are counted and the next warning let through reports
 * how many were held back. Kinds are the constants of one enum. Thread-safe and lock-free (any thread may ask,
 * e.g. several connections' agents); allocates nothing.
 *
 * <pre>
 * long held = limiter.permit(reason);
 * if (held &gt;= 0) {
 *     LOG.warn("...{}", WarningLimiter.suffix(held));
 * } else {
 *     LOG.debug("...");
 * }
 * </pre>
 *
 * @param <K> the enum whose constants are the kinds of warning
 */
public final class WarningLimiter<K extends Enum<K>> {
    private final long intervalNanos;
    private final LongSupplier nanoClock;
    /** Per kind: the clock value from which the next warning may be logged. */
    private final AtomicLongArray nextAllowed;
    /** Per kind: warnings held back since the last one let through. */
    private final AtomicLongArray held;

    /** At most one warning of each constant of {@code kinds} per {@code interval}, on {@link System#nanoTime()}. */
    public WarningLimiter(Class<K> kinds, Duration interval) {
        this(kinds, interval, System::nanoTime);
    }

    /** As {@link #WarningLimiter(Class, Duration)}, on the given nanosecond clock (monotonic, may wrap). */
    public WarningLimiter(Class<K> kinds, Duration interval, LongSupplier nanoClock) {
        if (interval.isNegative()) {
            throw new IllegalArgumentException("negative interval " + interval);
        }
        int n = kinds.getEnumConstants().length;
        this.intervalNanos = interval.toNanos();
        this.nanoClock = nanoClock;
        this.nextAllowed = new AtomicLongArray(n);
        this.held = new AtomicLongArray(n);
        long now = nanoClock.getAsLong();
        for (int i = 0; i < n; i++) {
            nextAllowed.set(i, now);
        }
    }

    /**
     * Asks to log one warning of {@code kind}.
     *
     * @return -1 when it must be held back (log it at debug at most); otherwise it may be logged, and the value is
     *         how many warnings of this kind were held back since the last one let through
     */
    public long permit(K kind) {
        int i = kind.ordinal();
        long now = nanoClock.getAsLong();
        long next = nextAllowed.get(i);
        if (now - next >= 0 && nextAllowed.compareAndSet(i, next, now + intervalNanos)) {
            return held.getAndSet(i, 0);
        }
        held.incrementAndGet(i);
        return -1;
    }

    /**
     * Text to append to a warning let through after {@code heldBack} were held back: empty for 0 (a constant, no
     * allocation in the common case).
     */
    public static String suffix(long heldBack) {
        return heldBack <= 0 ? "" : " (" + heldBack + " more like it held back)";
    }
}
