package org.rpcrdma4j.nfs;

import java.time.Instant;

/**
 * {@code nfstime3}: seconds and nanoseconds since the epoch, both unsigned 32-bit on the wire.
 *
 * @param seconds  0 .. 2^32-1
 * @param nseconds 0 .. 999,999,999
 */
public record NfsTime(long seconds, int nseconds) {
    public static final NfsTime ZERO = new NfsTime(0, 0);

    public NfsTime {
        if (seconds < 0 || seconds > 0xFFFFFFFFL) {
            throw new IllegalArgumentException("seconds out of the unsigned 32-bit range: " + seconds);
        }
        if (nseconds < 0 || nseconds > 999_999_999) {
            throw new IllegalArgumentException("nseconds out of range: " + nseconds);
        }
    }

    /** Clamps instants outside the representable range to its ends. */
    public static NfsTime of(Instant instant) {
        long s = instant.getEpochSecond();
        if (s < 0) {
            return ZERO;
        }
        if (s > 0xFFFFFFFFL) {
            return new NfsTime(0xFFFFFFFFL, 999_999_999);
        }
        return new NfsTime(s, instant.getNano());
    }

    public static NfsTime now() {
        return of(Instant.now());
    }

    public Instant toInstant() {
        return Instant.ofEpochSecond(seconds, nseconds);
    }
}
