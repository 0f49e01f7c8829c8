package org.rpcrdma4j.nfs.v4.state;

import java.time.Duration;
import java.util.Objects;

/**
 * The settings of a {@link ClientTable}.
 *
 * @param leaseTime            the lease a client holds after each renewal (the {@code lease_time} attribute); whole
 *                             seconds, at least one
 * @param graceTime            how long after the table is made it is in its grace period; zero for none
 * @param foreLimits           the most a session's fore channel may get ({@link ChannelAttributes#negotiate}); its
 *                             {@code maxRequests} is at most {@link SlotTable#MAX_SLOTS}
 * @param backLimits           the back channel's: its request size bounds the server's callbacks; the client's own
 *                             reply size, operations and slots are granted as asked
 *                             ({@link ChannelAttributes#grantBack})
 * @param maxSessionsPerClient sessions one client ID may have at once
 * @param maxClients           client IDs the table keeps at once, confirmed or not: an EXCHANGE_ID that would make
 *                             one more, when none has expired, takes the place of the unconfirmed one renewed longest
 *                             ago (a second ago at least), and when none may go is NFS4ERR_DELAY (the client asks again later), as
 *                             Linux's server answers when it holds as many as it will
 * @param maxOpensPerClient    open stateids one client ID may hold at once (one per open owner and file): an OPEN of
 *                             one more is NFS4ERR_SERVERFAULT
 * @param courtesyTime         how long past its lease a client that holds opens keeps them, and its locks and
 *                             sessions, while no other client's request conflicts with them and the table has room
 *                             (a courteous server, as Linux's is): a client cut off for longer than its lease carries
 *                             on when it comes back within this time; zero expires every client when its lease runs
 *                             out
 * @param replyCacheBytes      the memory the reply caches of all sessions together may take: each session reserves
 *                             its slots' worst case ({@code ca_maxresponsesize_cached} and a little more each) when it
 *                             is made, and gives it back when it goes. A CREATE_SESSION gets the slots it asked for
 *                             while they take at most an eighth of what is left, fewer when not, and always one, as
 *                             Linux's server grants them, so that many clients, or one client with many client IDs,
 *                             cannot fill the server's memory with cached replies
 */
public record StateConfig(Duration leaseTime, Duration graceTime, ChannelAttributes foreLimits,
        ChannelAttributes backLimits, int maxSessionsPerClient, int maxClients, int maxOpensPerClient,
        Duration courtesyTime, long replyCacheBytes) {
    /** Client IDs kept at once by default. */
    public static final int DEFAULT_MAX_CLIENTS = 4096;
    /** Open stateids a client ID may hold by default. */
    public static final int DEFAULT_MAX_OPENS_PER_CLIENT = 65536;
    /** How long past its lease a client keeps its state by default: a day, as Linux's server. */
    public static final Duration DEFAULT_COURTESY_TIME = Duration.ofDays(1);
    /** The least {@link #defaultReplyCacheBytes()} gives. */
    public static final long MIN_DEFAULT_REPLY_CACHE_BYTES = 8L << 20;

    public StateConfig {
        Objects.requireNonNull(leaseTime, "leaseTime");
        Objects.requireNonNull(graceTime, "graceTime");
        Objects.requireNonNull(foreLimits, "foreLimits");
        Objects.requireNonNull(backLimits, "backLimits");
        if (leaseTime.toSeconds() < 1 || leaseTime.getNano() != 0) {
            throw new IllegalArgumentException("the lease time is a positive number of whole seconds: " + leaseTime);
        }
        if (graceTime.isNegative()) {
            throw new IllegalArgumentException("negative grace time " + graceTime);
        }
        checkLimits("fore", foreLimits);
        if (!foreLimits.carriesSequence()) {
            throw new IllegalArgumentException("fore channel: requests of at least " + ChannelAttributes.SMALLEST_REQUEST
                    + " bytes and replies of at least " + ChannelAttributes.SMALLEST_REPLY + " (a SEQUENCE), got "
                    + Integer.toUnsignedString(foreLimits.maxRequestSize()) + " and "
                    + Integer.toUnsignedString(foreLimits.maxResponseSize()));
        }
        checkLimits("back", backLimits);
        if (maxSessionsPerClient < 1) {
            throw new IllegalArgumentException("maxSessionsPerClient < 1: " + maxSessionsPerClient);
        }
        if (maxClients < 1 || maxOpensPerClient < 1) {
            throw new IllegalArgumentException("maxClients and maxOpensPerClient are at least 1: " + maxClients + ", "
                    + maxOpensPerClient);
        }
        Objects.requireNonNull(courtesyTime, "courtesyTime");
        if (courtesyTime.isNegative()) {
            throw new IllegalArgumentException("negative courtesy time " + courtesyTime);
        }
        if (replyCacheBytes < 0) {
            throw new IllegalArgumentException("negative reply cache size " + replyCacheBytes);
        }
    }

    /**
     * The reply cache memory of the shorter constructors and {@link #defaults()}: a sixty-fourth of the most heap
     * this JVM may use ({@code Runtime.maxMemory()}), at least {@link #MIN_DEFAULT_REPLY_CACHE_BYTES}. With a 4 GiB
     * heap, 64 MiB: about 128 sessions of 64 slots and 8 KiB cached replies before sessions get fewer slots.
     */
    public static long defaultReplyCacheBytes() {
        return Math.max(MIN_DEFAULT_REPLY_CACHE_BYTES, Runtime.getRuntime().maxMemory() / 64);
    }

    /** The settings given, with {@link #defaultReplyCacheBytes()}. */
    public StateConfig(Duration leaseTime, Duration graceTime, ChannelAttributes foreLimits,
                       ChannelAttributes backLimits, int maxSessionsPerClient, int maxClients, int maxOpensPerClient,
                       Duration courtesyTime) {
        this(leaseTime, graceTime, foreLimits, backLimits, maxSessionsPerClient, maxClients, maxOpensPerClient,
                courtesyTime, defaultReplyCacheBytes());
    }

    /** The settings given, with {@link #DEFAULT_COURTESY_TIME} and {@link #defaultReplyCacheBytes()}. */
    public StateConfig(Duration leaseTime, Duration graceTime, ChannelAttributes foreLimits,
                       ChannelAttributes backLimits, int maxSessionsPerClient, int maxClients, int maxOpensPerClient) {
        this(leaseTime, graceTime, foreLimits, backLimits, maxSessionsPerClient, maxClients, maxOpensPerClient,
                DEFAULT_COURTESY_TIME);
    }

    /**
     * The settings given, with {@link #DEFAULT_MAX_CLIENTS}, {@link #DEFAULT_MAX_OPENS_PER_CLIENT},
     * {@link #DEFAULT_COURTESY_TIME} and {@link #defaultReplyCacheBytes()}.
     */
    public StateConfig(Duration leaseTime, Duration graceTime, ChannelAttributes foreLimits,
                       ChannelAttributes backLimits, int maxSessionsPerClient) {
        this(leaseTime, graceTime, foreLimits, backLimits, maxSessionsPerClient, DEFAULT_MAX_CLIENTS,
                DEFAULT_MAX_OPENS_PER_CLIENT);
    }

    /**
     * 90 s lease and grace (the Linux server's), a fore channel of 64 slots, requests and replies of 1 MiB and a page
     * (a 1 MiB WRITE or READ with its headers, as the Linux server grants: the Linux client asks for 1 MiB plus its
     * own estimate of the headers and sizes its I/O from what it gets), 8 KiB cached replies and 64 operations; a back
     * channel of callbacks of at most 4 KiB; 16 sessions a client; 4096 client IDs; 65536 opens a client;
     * a day of courtesy past a lease; {@link #defaultReplyCacheBytes()} of reply caches.
     */
    public static StateConfig defaults() {
        return new StateConfig(Duration.ofSeconds(90), Duration.ofSeconds(90),
                new ChannelAttributes(0, (1 << 20) + 4096, (1 << 20) + 4096, 8192, 64, 64),
                new ChannelAttributes(0, 4096, 4096, 0, 8, 1), 16);
    }

    /** The same settings with another grace period. */
    public StateConfig withGraceTime(Duration grace) {
        return new StateConfig(leaseTime, grace, foreLimits, backLimits, maxSessionsPerClient, maxClients,
                maxOpensPerClient, courtesyTime, replyCacheBytes);
    }

    /** The same settings with other bounds on client IDs and on each one's opens. */
    public StateConfig withStateBounds(int clients, int opensPerClient) {
        return new StateConfig(leaseTime, graceTime, foreLimits, backLimits, maxSessionsPerClient, clients,
                opensPerClient, courtesyTime, replyCacheBytes);
    }

    /** The same settings with another courtesy time ({@code Duration.ZERO}: none). */
    public StateConfig withCourtesyTime(Duration courtesy) {
        return new StateConfig(leaseTime, graceTime, foreLimits, backLimits, maxSessionsPerClient, maxClients,
                maxOpensPerClient, courtesy, replyCacheBytes);
    }

    /** The same settings with another bound on the memory of all reply caches together. */
    public StateConfig withReplyCacheBytes(long bytes) {
        return new StateConfig(leaseTime, graceTime, foreLimits, backLimits, maxSessionsPerClient, maxClients,
                maxOpensPerClient, courtesyTime, bytes);
    }

    private static void checkLimits(String channel, ChannelAttributes limits) {
        if (limits.maxRequests() < 1 || limits.maxRequests() > SlotTable.MAX_SLOTS) {
            throw new IllegalArgumentException(channel + " channel: maxRequests from 1 to " + SlotTable.MAX_SLOTS
                    + ", got " + Integer.toUnsignedString(limits.maxRequests()));
        }
        if (limits.maxOperations() == 0) {
            throw new IllegalArgumentException(channel + " channel: maxOperations 0");
        }
    }
}
