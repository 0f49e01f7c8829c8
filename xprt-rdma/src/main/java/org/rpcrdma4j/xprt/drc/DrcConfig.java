package org.rpcrdma4j.xprt.drc;

import java.time.Duration;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * Settings of a {@link DuplicateRequestCache}; every setting has a default ({@link #DEFAULT}). Immutable.
 * <p>
 * Memory: at most {@link #maxEntries()} entries and {@link #maxBytes()} bytes of cached replies and key credentials
 * (the {@link DrcCounter#BYTES_HELD} gauge); each entry also costs about 200 bytes of objects, and a parked
 * retransmission one reference.
 */
public final class DrcConfig {
    /** Largest credential body an RPC call can carry (RFC 5531), plus its flavor and length words. */
    static final int MAX_CREDENTIAL_BYTES = 8 + 400;

    /** 8192 entries, 16 MiB, 120 s, replies up to 8 KiB, 8 parked retransmissions per call, 256 checksummed bytes. */
    public static final DrcConfig DEFAULT = builder().build();

    private final int maxEntries;
    private final long maxBytes;
    private final Duration maxAge;
    private final int maxReplyBytes;
    private final int maxWaiters;
    private final int checksumBytes;
    private final LongSupplier nanoClock;
    private final String jmxName;

    private DrcConfig(Builder b) {
        this.maxEntries = b.maxEntries;
        this.maxBytes = b.maxBytes;
        this.maxAge = b.maxAge;
        this.maxReplyBytes = b.maxReplyBytes;
        this.maxWaiters = b.maxWaiters;
        this.checksumBytes = b.checksumBytes;
        this.nanoClock = b.nanoClock;
        this.jmxName = b.jmxName;
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        b.maxEntries = maxEntries;
        b.maxBytes = maxBytes;
        b.maxAge = maxAge;
        b.maxReplyBytes = maxReplyBytes;
        b.maxWaiters = maxWaiters;
        b.checksumBytes = checksumBytes;
        b.nanoClock = nanoClock;
        b.jmxName = jmxName;
        return b;
    }

    /** Most entries held, executing and completed together. */
    public int maxEntries() {
        return maxEntries;
    }

    /** Most bytes of replies and key credentials held. */
    public long maxBytes() {
        return maxBytes;
    }

    /** How long a reply is kept after it was sent (and how long an executing call keeps its entry). */
    public Duration maxAge() {
        return maxAge;
    }

    /** Largest reply kept; larger replies are sent but not cached ({@link DrcCounter#UNCACHEABLE}). */
    public int maxReplyBytes() {
        return maxReplyBytes;
    }

    /** Retransmissions of one executing call that are parked for its reply; more are dropped. */
    public int maxWaiters() {
        return maxWaiters;
    }

    /** How many bytes at the start of a call's arguments go into its checksum (CRC32C). */
    public int checksumBytes() {
        return checksumBytes;
    }

    /** The clock ages are measured with ({@link System#nanoTime()} unless a test sets another). */
    public LongSupplier nanoClock() {
        return nanoClock;
    }

    /** The MBean name ({@code org.rpcrdma4j:type=DuplicateRequestCache,name=<this>}), or null: no MBean. */
    public String jmxName() {
        return jmxName;
    }

    @Override
    public String toString() {
        return "DrcConfig[maxEntries=" + maxEntries + ", maxBytes=" + maxBytes + ", maxAge=" + maxAge
                + ", maxReplyBytes=" + maxReplyBytes + ", maxWaiters=" + maxWaiters + ", checksumBytes="
                + checksumBytes + (jmxName == null ? "" : ", jmxName=" + jmxName) + "]";
    }

    /** Builds a {@link DrcConfig}; each setter checks its value at once, {@link #build()} checks them together. */
    public static final class Builder {
        private int maxEntries = 8192;
        private long maxBytes = 16L << 20;
        private Duration maxAge = Duration.ofSeconds(120);
        private int maxReplyBytes = 8192;
        private int maxWaiters = 8;
        private int checksumBytes = 256;
        private LongSupplier nanoClock = System::nanoTime;
        private String jmxName;

        private Builder() {
        }

        /** Most entries (default 8192). */
        public Builder maxEntries(int entries) {
            if (entries < 1 || entries > 1 << 24) {
                throw new IllegalArgumentException("maxEntries must be within 1..2^24: " + entries);
            }
            this.maxEntries = entries;
            return this;
        }

        /** Most bytes of replies and credentials (default 16 MiB). */
        public Builder maxBytes(long bytes) {
            if (bytes < 1) {
                throw new IllegalArgumentException("maxBytes must be positive: " + bytes);
            }
            this.maxBytes = bytes;
            return this;
        }

        /** Lifetime of a cached reply (default 120 s, as Linux knfsd). */
        public Builder maxAge(Duration age) {
            Objects.requireNonNull(age, "age");
            if (age.isNegative() || age.isZero()) {
                throw new IllegalArgumentException("maxAge must be positive: " + age);
            }
            this.maxAge = age;
            return this;
        }

        /** Largest reply cached (default 8 KiB; the replies of NFSv3's non-idempotent procedures are far smaller). */
        public Builder maxReplyBytes(int bytes) {
            if (bytes < 16) {
                throw new IllegalArgumentException("maxReplyBytes must be at least 16: " + bytes);
            }
            this.maxReplyBytes = bytes;
            return this;
        }

        /** Retransmissions parked per executing call (default 8; 0: drop every retransmission of an executing call). */
        public Builder maxWaiters(int waiters) {
            if (waiters < 0 || waiters > 1024) {
                throw new IllegalArgumentException("maxWaiters must be within 0..1024: " + waiters);
            }
            this.maxWaiters = waiters;
            return this;
        }

        /** Bytes of arguments checksummed (default 256, as Linux knfsd). */
        public Builder checksumBytes(int bytes) {
            if (bytes < 0 || bytes > 1 << 20) {
                throw new IllegalArgumentException("checksumBytes must be within 0..2^20: " + bytes);
            }
            this.checksumBytes = bytes;
            return this;
        }

        /** The clock, in nanoseconds, ages are measured with (default {@link System#nanoTime()}). */
        public Builder nanoClock(LongSupplier clock) {
            this.nanoClock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** Registers the counters MBean under this name (default: none). */
        public Builder jmxName(String name) {
            this.jmxName = name;
            return this;
        }

        public DrcConfig build() {
            if (maxReplyBytes + (long) MAX_CREDENTIAL_BYTES > maxBytes) {
                throw new IllegalArgumentException("maxBytes " + maxBytes + " cannot hold one entry with a reply of "
                        + "maxReplyBytes " + maxReplyBytes + " and a credential of up to " + MAX_CREDENTIAL_BYTES
                        + " bytes");
            }
            return new DrcConfig(this);
        }
    }
}
