package org.rpcrdma4j.nfs.client.v4;

import java.time.Duration;
import java.util.Objects;

/**
 * The NFSv4.1 client's own settings, beside the transport's and the I/O sizes of
 * {@link org.rpcrdma4j.nfs.client.NfsClientConfig}. Immutable; start from {@link #defaults()} and change with the
 * {@code with*} methods.
 */
public final class Nfs41Options {
    private String ownerId;
    private int slots = 32;
    private int minorVersion = 2;
    private Duration renewInterval;
    private int delayRetries = 30;
    private Duration delayBackoffMin = Duration.ofMillis(50);
    private Duration delayBackoffMax = Duration.ofSeconds(2);
    private int recoveryAttempts = 3;
    private Duration openIdleTimeout = Duration.ofSeconds(30);

    private Nfs41Options() {
    }

    public static Nfs41Options defaults() {
        return new Nfs41Options();
    }

    private Nfs41Options copy() {
        Nfs41Options o = new Nfs41Options();
        o.ownerId = ownerId;
        o.slots = slots;
        o.minorVersion = minorVersion;
        o.renewInterval = renewInterval;
        o.delayRetries = delayRetries;
        o.delayBackoffMin = delayBackoffMin;
        o.delayBackoffMax = delayBackoffMax;
        o.recoveryAttempts = recoveryAttempts;
        o.openIdleTimeout = openIdleTimeout;
        return o;
    }

    /**
     * The client owner string of EXCHANGE_ID ({@code co_ownerid}, at most 1024 bytes of UTF-8). Give one that is
     * stable across restarts of the same client, so that the server can drop the state of the client's previous
     * incarnation at once; by default every session gets a generated, unique one (host name and a random UUID), whose
     * old state the server keeps until its lease expires.
     */
    public Nfs41Options withOwnerId(String owner) {
        Objects.requireNonNull(owner, "owner");
        if (owner.isEmpty()) {
            throw new IllegalArgumentException("the owner id must not be empty");
        }
        Nfs41Options o = copy();
        o.ownerId = owner;
        return o;
    }

    /** Fore channel slots asked for in CREATE_SESSION: COMPOUNDs in flight at once (1 to 64, default 32). */
    public Nfs41Options withSlots(int n) {
        if (n < 1 || n > 64) {
            throw new IllegalArgumentException("slots: 1 to 64, got " + n);
        }
        Nfs41Options o = copy();
        o.slots = n;
        return o;
    }

    /**
     * The minor version to speak, 1 or 2 (default 2, falling back to 1 when the server answers
     * NFS4ERR_MINOR_VERS_MISMATCH). The operations this client sends are the same in both.
     */
    public Nfs41Options withMinorVersion(int minor) {
        if (minor != 1 && minor != 2) {
            throw new IllegalArgumentException("minor version 1 or 2, got " + minor);
        }
        Nfs41Options o = copy();
        o.minorVersion = minor;
        return o;
    }

    /**
     * How long the session may be idle before a SEQUENCE renews the lease; default (null) a third of the server's
     * {@code lease_time}.
     */
    public Nfs41Options withRenewInterval(Duration interval) {
        if (interval != null && (interval.isNegative() || interval.isZero())) {
            throw new IllegalArgumentException("renew interval must be positive: " + interval);
        }
        Nfs41Options o = copy();
        o.renewInterval = interval;
        return o;
    }

    /**
     * How often a COMPOUND answered NFS4ERR_DELAY is sent again (default 30), and the back-off between tries: from
     * {@code min}, doubling, at most {@code max} (default 50 ms to 2 s). NFS4ERR_GRACE is waited out with the same
     * back-off for up to twice the lease and ten seconds, however many tries that takes, and its tries leave these to
     * DELAY.
     */
    public Nfs41Options withDelayRetries(int retries, Duration min, Duration max) {
        if (retries < 0) {
            throw new IllegalArgumentException("retries must not be negative");
        }
        if (min.isNegative() || max.compareTo(min) < 0) {
            throw new IllegalArgumentException("back-off from " + min + " to " + max);
        }
        Nfs41Options o = copy();
        o.delayRetries = retries;
        o.delayBackoffMin = min;
        o.delayBackoffMax = max;
        return o;
    }

    /** How many session or client ID recoveries one COMPOUND may go through before it fails (default 3). */
    public Nfs41Options withRecoveryAttempts(int n) {
        if (n < 0) {
            throw new IllegalArgumentException("recovery attempts must not be negative");
        }
        Nfs41Options o = copy();
        o.recoveryAttempts = n;
        return o;
    }

    /**
     * How long a file the client opened for READ or WRITE stays open without I/O before it is closed (default 30 s);
     * {@link Duration#ZERO}: only when asked ({@code close(FileHandle)}) or when the client closes.
     */
    public Nfs41Options withOpenIdleTimeout(Duration timeout) {
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("negative idle timeout " + timeout);
        }
        Nfs41Options o = copy();
        o.openIdleTimeout = timeout;
        return o;
    }

    /** The configured owner id, or null for a generated one. */
    public String ownerId() {
        return ownerId;
    }

    public int slots() {
        return slots;
    }

    public int minorVersion() {
        return minorVersion;
    }

    /** The configured renewal interval, or null for a third of the lease. */
    public Duration renewInterval() {
        return renewInterval;
    }

    public int delayRetries() {
        return delayRetries;
    }

    public Duration delayBackoffMin() {
        return delayBackoffMin;
    }

    public Duration delayBackoffMax() {
        return delayBackoffMax;
    }

    public int recoveryAttempts() {
        return recoveryAttempts;
    }

    public Duration openIdleTimeout() {
        return openIdleTimeout;
    }
}
