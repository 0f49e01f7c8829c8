package org.rpcrdma4j.nfs.client.v4;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.client.CallbackFuture;
import org.rpcrdma4j.nfs.client.DataTransport;
import org.rpcrdma4j.nfs.client.NfsClientConfig;
import org.rpcrdma4j.nfs.client.RpcConnectionException;
import org.rpcrdma4j.nfs.client.RpcTimeoutException;
import org.rpcrdma4j.nfs.v4.Bitmap4;
import org.rpcrdma4j.nfs.v4.Fattr4;
import org.rpcrdma4j.nfs.v4.Fattr4Decoded;
import org.rpcrdma4j.nfs.v4.Nfs4;
import org.rpcrdma4j.nfs.v4.Nfs4Status;
import org.rpcrdma4j.nfs.v4.state.ChannelAttributes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An NFSv4.1 client ID and session over one {@link DataTransport} (RFC 8881 section 2.10): how every COMPOUND of
 * the client goes out, with a SEQUENCE on a slot of the session, and what happens when the answer is not the
 * COMPOUND's own.
 *
 * <h2>Setting up</h2>
 * {@link #establish}: EXCHANGE_ID (the client owner of {@link Nfs41Options#ownerId()} or a generated one, a verifier
 * made once per session object, SP4_NONE; minor version 2, or 1 when the server answers MINOR_VERS_MISMATCH), then
 * CREATE_SESSION, then RECLAIM_COMPLETE (nothing to reclaim: the server lets the client OPEN only after it), then a
 * GETATTR of {@code lease_time}. The fore channel asks for {@link Nfs41Options#slots()} slots and requests and replies
 * of the largest READ or WRITE payload plus {@value #HEADER_ROOM} bytes (the payload: {@code NfsClientConfig}'s
 * chunk size, over RDMA at most the transport's {@code maxPayloadSize}). Where the transport serves the callback
 * program ({@link CallbackService}: over RDMA, on the connection's reverse direction), CREATE_SESSION asks for
 * CONN_BACK_CHAN with one back channel slot; when SEQUENCE later says the callback path is down (a reconnect), the
 * connection is bound again (BIND_CONN_TO_SESSION). OPENs ask for no delegation either way
 * (OPEN4_SHARE_ACCESS_WANT_NO_DELEG); one granted anyway is returned at once.
 *
 * <h2>Slots</h2>
 * Each COMPOUND takes a slot ({@link ClientSlotTable}; it waits for one when all are busy), gets the slot's next
 * sequence id, and asks the server to cache its reply when it changes anything. A COMPOUND sent again by the
 * transport after a reconnect is the same message (same slot, same sequence id): the server's reply cache answers
 * it. The slot is released when the reply came, and also when none came (connection given up, timeout): the server
 * may or may not have taken that request. When the next request on the slot gets SEQ_MISORDERED, the ids below its
 * own are tried with SEQUENCE alone, asking for no cached reply (a probe, as Linux's client sends), one at a time down
 * towards the last one the server answered: the server may hold one of them with a lost request's cached reply, and
 * would give that reply to a COMPOUND sent there. The COMPOUND itself goes only on its own id, once the server holds
 * the one before (probes walk back up to it); a probe that meets a lost request the server is still executing (DELAY)
 * is sent again after a back-off. SEQ_MISORDERED down to the id after the last answered one probes sequence id 1 once
 * (a server that dropped the slot starts it again; the COMPOUND then goes on 2), then sends the COMPOUND on its id
 * again after a back-off (its request may still run), as DELAY is. A slot above an {@code sr_highest_slotid} the
 * server answered starts again at 1 when next used; should the server have kept it, SEQ_MISORDERED on 1 takes it
 * back to its old ids, the COMPOUND going on the one after them, with probes below that if it is misordered too.
 *
 * <h2>When the answer is not the COMPOUND's</h2>
 * <ul>
 * <li>SEQUENCE: NFS4ERR_DELAY (the original of a retransmission still runs): the same request again, same slot and
 * sequence id, after a back-off. BADSESSION / DEADSESSION: a new session (CREATE_SESSION on the client ID; if that is
 * STALE_CLIENTID, the whole of the next point), then the COMPOUND again on it. RETRY_UNCACHED_REP: again on a new
 * sequence id when the COMPOUND changes nothing, else an error.</li>
 * <li>NFS4ERR_STALE_CLIENTID (the server restarted or the lease was lost): a new client ID
 * (EXCHANGE_ID with the same owner and verifier) and session; the files the client had open are reclaimed
 * (OPEN CLAIM_PREVIOUS while the server is in grace, else opened again by handle after RECLAIM_COMPLETE), then the
 * COMPOUND again with the new stateids. A file that cannot be opened again loses its open: its I/O goes on with the
 * anonymous stateid, which the server checks like any other.</li>
 * <li>NFS4ERR_DELAY or NFS4ERR_GRACE of an operation that ran before anything in the COMPOUND changed state (GRACE is
 * waited out for up to twice the lease and ten seconds): the COMPOUND again after a back-off, for DELAY at most
 * {@link Nfs41Options#delayRetries()} times; the waits for GRACE are not counted against those.</li>
 * <li>NFS4ERR_BAD_STATEID, STALE_STATEID, OLD_STATEID, ADMIN_REVOKED or EXPIRED (the state of that one stateid
 * expired: neither the client ID nor the session is lost) of an I/O operation: its file is opened again, its locks
 * are lost, and the COMPOUND is sent once more. Of a LOCK or LOCKU, EXPIRED opens the file again and loses its
 * locks; the caller gets the error.</li>
 * <li>SEQUENCE status flags saying state of the client was revoked (EXPIRED_ALL, EXPIRED_SOME or ADMIN
 * STATE_REVOKED): the client asks which of its stateids are good (TEST_STATEID), frees the revoked ones (FREE_STATEID),
 * opens again the files whose open went and loses the locks that went ({@link RevokedState}).</li>
 * </ul>
 * Recoveries are shared: the COMPOUNDs that meet a lost session wait for one recovery, at most
 * {@link Nfs41Options#recoveryAttempts()} per COMPOUND.
 *
 * <h2>Lease</h2>
 * A daemon timer sends a SEQUENCE alone when nothing was sent for a third of the lease
 * ({@link Nfs41Options#renewInterval()}), and closes files whose open stayed unused
 * ({@link Nfs41Options#openIdleTimeout()}). {@link #close()} stops it, gives back the client's state (each file's
 * locks with LOCKU, then its open with CLOSE; delegations being returned), then sends DESTROY_SESSION and
 * DESTROY_CLIENTID. While the session closes, only the COMPOUNDs that give state back go out
 * ({@link Compound#releasingState()}); others fail.
 *
 * <h2>Threads</h2>
 * Replies are handled on a thread pool of the session ({@code nfs41-<n>}), never on the transport's threads; futures
 * returned by the client complete there. Thread-safe.
 */
public final class Nfs41Session implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Nfs41Session.class);
    private static final AtomicInteger INSTANCES = new AtomicInteger();
    /** Bytes of a request or reply besides its READ or WRITE data: RPC header and credential, the other operations. */
    static final int HEADER_ROOM = 1024;
    /** What the client asks the server to keep of a reply for its retransmission. */
    private static final int CACHED_REPLY = 16 << 10;
    /** The back channel's request and reply size: reverse-direction messages are inline, within 4 KiB. */
    private static final int BACK_CHANNEL_MESSAGE = 4096;
    private static final long REBIND_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final int MAX_OPERATIONS = 32;
    private static final Bitmap4 LEASE = Bitmap4.of(Fattr4.FATTR4_LEASE_TIME).freeze();

    private final DataTransport transport;
    private final Nfs41Options options;
    private final Duration callTimeout;
    private final byte[] owner;
    private final byte[] verifier;
    private final int instance = INSTANCES.incrementAndGet();
    private final ExecutorService executor;
    /**
     * The executor for the session's stages and callers' callbacks: once it is shut down (the session closed), a stage
     * runs on the thread that completes the one before it instead of being refused. A refused stage of a
     * CompletableFuture is never completed, and its caller would wait for good.
     */
    private final Executor stages = this::runStage;
    /** Tasks waiting on the timer to run once ({@link #schedule}); run at once when the session closes. */
    private final java.util.Set<Once> scheduled = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService timer;
    private final int payload;
    private final int unboundedReplyLimit;
    private final Object lock = new Object();
    private volatile int minorVersion;
    private volatile State state;
    private CompletableFuture<State> recovery; // guarded by lock
    private int createSessionSequence; // guarded by lock; only a recovery (one at a time) uses it
    private volatile long lastSentNanos = System.nanoTime();
    private volatile int leaseSeconds;
    private volatile boolean closing;
    private volatile boolean closed;
    private volatile StateRecovery stateRecovery = StateRecovery.NONE;
    private final AtomicLong clientIds = new AtomicLong();
    private final AtomicLong sessions = new AtomicLong();
    private final AtomicLong renewals = new AtomicLong();
    private final AtomicLong delayRetries = new AtomicLong();
    private final AtomicLong compounds = new AtomicLong();
    private final AtomicLong repliesActedOn = new AtomicLong();
    /** The callback service, when the transport serves it (then CREATE_SESSION asks for the back channel). */
    private final CallbackService callbacks;
    private final AtomicBoolean binding = new AtomicBoolean();
    private volatile long lastBindNanos;
    private volatile boolean backChannelGranted;
    /** The transport's connection the back channel was last bound on (CREATE_SESSION or BIND_CONN_TO_SESSION). */
    private volatile long boundGeneration;
    private final AtomicLong binds = new AtomicLong();
    private final AtomicLong revocations = new AtomicLong();

    /** A client ID and one of its sessions, with the session's slots. Immutable but for {@link #retired}. */
    static final class State {
        final long clientId;
        final byte[] sessionId;
        final ChannelAttributes fore;
        final ClientSlotTable slots;
        /** Set (under the session's lock) when the session was found gone and a recovery started. */
        volatile boolean retired;
        /** Whether the client ID was lost too (a new one is needed, not just a session). */
        volatile boolean clientLost;

        State(long clientId, byte[] sessionId, ChannelAttributes fore, ClientSlotTable slots) {
            this.clientId = clientId;
            this.sessionId = sessionId;
            this.fore = fore;
            this.slots = slots;
        }
    }

    /** What the open files do around a recovery of the client ID. */
    interface StateRecovery {
        StateRecovery NONE = new StateRecovery() {
        };

        /** On the new session, before RECLAIM_COMPLETE: reclaim what the server may still let the client reclaim. */
        default CompletableFuture<Void> reclaim(State s) {
            return CompletableFuture.completedFuture(null);
        }

        /** After RECLAIM_COMPLETE: open again what could not be reclaimed. */
        default CompletableFuture<Void> afterReclaimComplete(State s) {
            return CompletableFuture.completedFuture(null);
        }

        /** CB_RECALL: whether {@code stateid} is a delegation the client holds or is returning. */
        default boolean recall(Stateid4 stateid) {
            return false;
        }

        /** The server said state of this client was revoked (SEQUENCE status flags). */
        default void stateRevoked(int flags) {
        }

        /** The timer's tick: close what stayed unused. */
        default void tick() {
        }

        /** The session closes: give back every lock, open and delegation (the COMPOUNDs release state). */
        default CompletableFuture<Void> closeAll() {
            return CompletableFuture.completedFuture(null);
        }
    }

    private Nfs41Session(DataTransport transport, NfsClientConfig config, Nfs41Options options,
                         CallbackService callbacks) {
        this.transport = transport;
        this.callbacks = callbacks != null
                && transport.servesReverseProgram(Nfs4Ops.CB_PROGRAM, CallbackService.VERSION) ? callbacks : null;
        if (this.callbacks != null) {
            this.callbacks.attach(new CallbackService.Target() {
                @Override
                public byte[] sessionId() {
                    State s = state;
                    return s == null ? null : s.sessionId;
                }

                @Override
                public int minorVersion() {
                    return minorVersion;
                }

                @Override
                public boolean recall(Stateid4 stateid, FileHandle fh) {
                    return stateRecovery.recall(stateid);
                }
            });
        }
        this.options = options;
        this.callTimeout = config.callTimeout();
        String ownerId = options.ownerId() != null ? options.ownerId() : generatedOwner();
        this.owner = ownerId.getBytes(StandardCharsets.UTF_8);
        if (owner.length > Nfs4.OPAQUE_LIMIT) {
            throw new IllegalArgumentException("the owner id has more than " + Nfs4.OPAQUE_LIMIT + " bytes");
        }
        this.verifier = ByteBuffer.allocate(8).putLong(System.currentTimeMillis() ^ new SecureRandom().nextLong())
                .array();
        this.minorVersion = options.minorVersion();
        this.payload = Math.min(config.chunkSize(), transport.maxDataPerCall());
        this.unboundedReplyLimit = transport.maxUnboundedReply();
        this.executor = Executors.newCachedThreadPool(threads("nfs41-" + instance));
        this.timer = Executors.newSingleThreadScheduledExecutor(threads("nfs41-timer-" + instance));
    }

    private static ThreadFactory threads(String name) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, name + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    private static String generatedOwner() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (IOException | RuntimeException e) {
            host = "localhost";
        }
        return "rpcrdma4j/" + host + "/" + UUID.randomUUID();
    }

    /**
     * Makes a client ID and a session over {@code transport} (borrowed: closing the session does not close it).
     *
     * @throws Nfs4StatusException when the server refuses (e.g. NFS4ERR_MINOR_VERS_MISMATCH for both minor versions)
     * @throws IOException         an {@link org.rpcrdma4j.nfs.client.RpcCallException} when it does not answer
     */
    public static Nfs41Session establish(DataTransport transport, NfsClientConfig config, Nfs41Options options)
            throws IOException {
        return establish(transport, config, options, null);
    }

    /** {@link #establish}, with a back channel when {@code callbacks} is served by the transport. */
    static Nfs41Session establish(DataTransport transport, NfsClientConfig config, Nfs41Options options,
                                  CallbackService callbacks) throws IOException {
        Nfs41Session s = new Nfs41Session(transport, config, options, callbacks);
        try {
            s.state = await(s.newClientId(), s.callTimeout.multipliedBy(4));
            Fattr4Decoded lease = s.<Fattr4Decoded>awaitResult(new Compound("get_lease_time").putrootfh().getattr(LEASE), 1);
            s.leaseSeconds = lease.leaseTime() == null ? 90 : Math.max(1, lease.leaseTime());
            s.startTimer();
            return s;
        } catch (IOException | RuntimeException e) {
            s.shutdownThreads();
            throw e;
        }
    }

    private <T> T awaitResult(Compound c, int index) throws IOException {
        return await(call(c), callTimeout.multipliedBy(2)).check().result(index);
    }

    private void startTimer() {
        Duration renew = options.renewInterval() != null ? options.renewInterval()
                : Duration.ofMillis(leaseSeconds * 1000L / 3);
        long tick = Math.max(10, Math.min(renew.toMillis(), 1000));
        long renewNanos = renew.toNanos();
        timer.scheduleWithFixedDelay(() -> {
            try {
                tick(renewNanos);
            } catch (RuntimeException e) {
                LOG.warn("session timer: {}", e.toString());
            }
        }, tick, tick, TimeUnit.MILLISECONDS);
    }

    private void tick(long renewNanos) {
        if (closing) {
            return;
        }
        State s = state;
        if (!s.retired && System.nanoTime() - lastSentNanos >= renewNanos && s.slots.inUse() == 0) {
            renewals.incrementAndGet();
            call(new Compound("sequence")).whenComplete((r, e) -> {
                if (e != null) {
                    LOG.debug("lease renewal failed: {}", e.toString());
                } else if (!r.isOk()) {
                    LOG.debug("lease renewal: {}", Nfs4Status.name(r.status()));
                }
            });
        }
        stateRecovery.tick();
    }

    // ======================================================================================= what callers see

    /** The client ID (of the current session; it changes when the client ID is recovered). */
    public long clientId() {
        return state.clientId;
    }

    /** The current session id. */
    public byte[] sessionId() {
        return state.sessionId.clone();
    }

    /** The fore channel attributes the server granted. */
    public ChannelAttributes foreChannel() {
        return state.fore;
    }

    /** The minor version spoken (1 or 2). */
    public int minorVersion() {
        return minorVersion;
    }

    /** The server's {@code lease_time}, in seconds. */
    public int leaseSeconds() {
        return leaseSeconds;
    }

    /** The client owner sent in EXCHANGE_ID. */
    public String ownerId() {
        return new String(owner, StandardCharsets.UTF_8);
    }

    /** The largest READ this session can carry: the payload, within the negotiated reply size. */
    public int maxReadSize() {
        return within(payload, state.fore.maxResponseSize());
    }

    /** The largest WRITE this session can carry: the payload, within the negotiated request size. */
    public int maxWriteSize() {
        return within(payload, state.fore.maxRequestSize());
    }

    /** {@code size}, but at most a message of {@code limit} (a {@code count4}: unsigned) less the header room. */
    private static int within(int size, int limit) {
        long room = Integer.toUnsignedLong(limit) - HEADER_ROOM;
        return (int) Math.max(512, Math.min(size, room));
    }

    /** The largest reply whose size the protocol does not bound (READDIR): within the session and the transport. */
    int maxUnboundedReply() {
        return within(unboundedReplyLimit - HEADER_ROOM, state.fore.maxResponseSize());
    }

    /** Operations a COMPOUND may have, SEQUENCE included. */
    int maxOperations() {
        return (int) Math.min(Integer.toUnsignedLong(state.fore.maxOperations()), 1024);
    }

    /** Slots of the current session. */
    public int slots() {
        return state.slots.size();
    }

    /** Slots held by COMPOUNDs in flight now. */
    public int slotsInUse() {
        return state.slots.inUse();
    }

    /** Client IDs made so far (1 after {@link #establish}; more after recoveries of a lost client ID). */
    public long clientIdsCreated() {
        return clientIds.get();
    }

    /** Sessions made so far. */
    public long sessionsCreated() {
        return sessions.get();
    }

    /** SEQUENCE-only COMPOUNDs sent to renew the lease. */
    public long leaseRenewals() {
        return renewals.get();
    }

    /** SEQUENCE replies that said state of this client was revoked (SEQ4_STATUS_*_REVOKED). */
    public long revocationsReported() {
        return revocations.get();
    }

    /** COMPOUNDs (or requests) sent again after NFS4ERR_DELAY or NFS4ERR_GRACE. */
    public long delayRetries() {
        return delayRetries.get();
    }

    /** COMPOUNDs sent (attempts, including retries). */
    public long compoundsSent() {
        return compounds.get();
    }

    /**
     * Replies (or failures) the session had to act on: an error of SEQUENCE or of the COMPOUND, a SEQUENCE flag, no
     * answer. They are handled on the session's executor; a reply that went through is finished on the thread that
     * took it off the connection.
     */
    public long repliesActedOn() {
        return repliesActedOn.get();
    }

    /** Whether the session serves callbacks (CREATE_SESSION asked for the back channel on its connection). */
    public boolean servesCallbacks() {
        return callbacks != null;
    }

    /** Whether the server granted the current session a back channel on its connection (CONN_BACK_CHAN). */
    public boolean backChannelGranted() {
        return backChannelGranted;
    }

    /** CB_COMPOUNDs the server sent and this client answered. */
    public long callbacksAnswered() {
        return callbacks == null ? 0 : callbacks.compounds();
    }

    /** BIND_CONN_TO_SESSIONs sent because the server reported the callback path down. */
    public long backChannelBinds() {
        return binds.get();
    }

    public DataTransport transport() {
        return transport;
    }

    long openIdleNanos() {
        return options.openIdleTimeout().toNanos();
    }

    Executor executor() {
        return stages;
    }

    void stateRecovery(StateRecovery r) {
        this.stateRecovery = r;
    }

    // =============================================================================== setting up and recovery

    /** EXCHANGE_ID, CREATE_SESSION, the reclaims, RECLAIM_COMPLETE: a new client ID and session. */
    private CompletableFuture<State> newClientId() {
        return clientIdAndSession(1).thenCompose(s -> stateRecovery.reclaim(s)
                .thenCompose(v -> callOn(s, new Compound("reclaim_complete").add(new Ops.ReclaimComplete())))
                .thenCompose(r -> {
                    if (!r.isOk() && r.status() != Nfs4Status.NFS4ERR_COMPLETE_ALREADY) {
                        return CompletableFuture.failedFuture(new Nfs4StatusException(r.status(),
                                Nfs4.OP_RECLAIM_COMPLETE, null));
                    }
                    return stateRecovery.afterReclaimComplete(s);
                })
                .thenApply(v -> s));
    }

    /**
     * EXCHANGE_ID, then CREATE_SESSION on the client ID it gave. A client ID the server dropped before it was confirmed
     * (a server that holds as many as it keeps makes room so; CREATE_SESSION says NFS4ERR_STALE_CLIENTID) is asked for
     * again, three times in all.
     */
    private CompletableFuture<State> clientIdAndSession(int attempt) {
        return exchangeId().thenCompose(ok -> {
            clientIds.incrementAndGet();
            synchronized (lock) {
                createSessionSequence = ok.sequenceId();
            }
            return createSession(ok.clientId()).handle((s, x) -> {
                Throwable cause = unwrap(x);
                if (cause instanceof Nfs4StatusException e && e.nfs4Status() == Nfs4Status.NFS4ERR_STALE_CLIENTID
                        && (ok.flags() & Nfs4Ops.EXCHGID4_FLAG_CONFIRMED_R) == 0 && attempt < 3 && !closing) {
                    LOG.debug("{} dropped the new client ID before CREATE_SESSION; asking again",
                            transport.remoteAddress());
                    return clientIdAndSession(attempt + 1);
                }
                return x != null ? CompletableFuture.<State>failedFuture(cause) : CompletableFuture.completedFuture(s);
            }).thenCompose(f -> f);
        });
    }

    private CompletableFuture<Ops.ExchangeIdOk> exchangeId() {
        return exchangeId(0);
    }

    /** How long a COMPOUND waits out the server's grace period: twice the lease and ten seconds. */
    private long graceWaitNanos() {
        return TimeUnit.SECONDS.toNanos(2L * Math.max(1, leaseSeconds) + 10);
    }

    /** The pause before the {@code retry}th try again after NFS4ERR_DELAY (from 1): doubling from min up to max. */
    private long delayBackoffNanos(int retry) {
        return Math.min(options.delayBackoffMax().toNanos(), options.delayBackoffMin().toNanos()
                << Math.min(20, retry - 1));
    }

    /**
     * EXCHANGE_ID; NFS4ERR_DELAY (a server that holds as many client IDs as it keeps, until a lease runs out) is asked
     * again after the back-off of {@link Nfs41Options#delayRetries()}, as Linux's client asks again.
     */
    private CompletableFuture<Ops.ExchangeIdOk> exchangeId(int delays) {
        Compound c = new Compound("exchange_id").add(new Ops.ExchangeId(verifier, owner, 0));
        return callAlone(c).thenCompose(r -> {
            if (r.status() == Nfs4Status.NFS4ERR_MINOR_VERS_MISMATCH && minorVersion > 1) {
                LOG.debug("{} does not speak NFSv4.{}; using 4.1", transport.remoteAddress(), minorVersion);
                minorVersion = 1;
                return exchangeId(delays);
            }
            if (r.status() == Nfs4Status.NFS4ERR_DELAY && delays < options.delayRetries()) {
                delayRetries.incrementAndGet();
                long backoff = delayBackoffNanos(delays + 1);
                LOG.debug("{} asks EXCHANGE_ID to wait; again in {} ms", transport.remoteAddress(),
                        backoff / 1_000_000);
                CompletableFuture<Void> waited = new CompletableFuture<>();
                Runnable wake = () -> stages.execute(() -> waited.complete(null));
                try {
                    schedule(wake, backoff);
                } catch (RejectedExecutionException e) {
                    waited.completeExceptionally(new RpcConnectionException("the NFSv4.1 session is closed", e));
                }
                return waited.thenCompose(v -> closing ? CompletableFuture.failedFuture(
                        new RpcConnectionException("the NFSv4.1 session is closing", null)) : exchangeId(delays + 1));
            }
            if (!r.isOk()) {
                return CompletableFuture.failedFuture(new Nfs4StatusException(r.status(), Nfs4.OP_EXCHANGE_ID,
                        null));
            }
            return CompletableFuture.completedFuture(r.<Ops.ExchangeIdOk>result(0));
        });
    }

    /**
     * CREATE_SESSION on {@code clientId} with the next {@code csa_sequence}. A transport failure keeps the sequence,
     * so that a second try is answered from the server's CREATE_SESSION cache if the first one ran; so do DELAY and
     * STALE_CLIENTID. Any other answer uses it up, as Linux's client counts.
     */
    private CompletableFuture<State> createSession(long clientId) {
        int seq;
        synchronized (lock) {
            seq = createSessionSequence;
        }
        // no more slots than the transport lets calls be outstanding (over RDMA: the credits granted so far; the
        // EXCHANGE_ID before has been answered, so the server's grant is known)
        int slotsAsked = Math.max(1, Math.min(options.slots(), transport.maxConcurrentCalls()));
        ChannelAttributes fore = new ChannelAttributes(0, payload + HEADER_ROOM, payload + HEADER_ROOM,
                CACHED_REPLY, MAX_OPERATIONS, slotsAsked);
        ChannelAttributes back = new ChannelAttributes(0, BACK_CHANNEL_MESSAGE, BACK_CHANNEL_MESSAGE, 0,
                CallbackService.MAX_OPERATIONS, CallbackService.SLOTS);
        int flags = callbacks != null ? Nfs4Ops.CREATE_SESSION4_FLAG_CONN_BACK_CHAN : 0;
        Compound c = new Compound("create_session").add(new Ops.CreateSession(clientId, seq, flags, fore, back));
        return callAlone(c).thenCompose(r -> {
            if (!r.isOk()) {
                if (r.status() != Nfs4Status.NFS4ERR_DELAY && r.status() != Nfs4Status.NFS4ERR_STALE_CLIENTID) {
                    synchronized (lock) {
                        createSessionSequence = seq + 1; // the server used the sequence up (RFC 8881 18.36.4)
                    }
                }
                return CompletableFuture.failedFuture(new Nfs4StatusException(r.status(), Nfs4.OP_CREATE_SESSION,
                        null));
            }
            Ops.CreateSessionOk ok = r.result(0);
            synchronized (lock) {
                createSessionSequence = seq + 1;
            }
            sessions.incrementAndGet();
            backChannelGranted = callbacks != null && (ok.flags() & Nfs4Ops.CREATE_SESSION4_FLAG_CONN_BACK_CHAN) != 0;
            boundGeneration = transport.connectionGeneration();
            if (callbacks != null && !backChannelGranted) {
                LOG.debug("{} gave the session no back channel: no callbacks", transport.remoteAddress());
            }
            int slots = (int) Math.min(Integer.toUnsignedLong(ok.fore().maxRequests()), slotsAsked);
            LOG.debug("session {} of client {} on {}: {} slots, requests {} replies {} bytes",
                    HexFormat.of().formatHex(ok.sessionId()), Long.toHexString(clientId), transport.remoteAddress(),
                    slots, Integer.toUnsignedString(ok.fore().maxRequestSize()),
                    Integer.toUnsignedString(ok.fore().maxResponseSize()));
            return CompletableFuture.completedFuture(new State(clientId, ok.sessionId(), ok.fore(),
                    new ClientSlotTable(slots, stages)));
        });
    }

    /** A new session on the old client ID, or, when the client ID is gone too, a new client ID. */
    private CompletableFuture<State> newSession(State failed) {
        if (failed.clientLost) {
            return newClientId();
        }
        return createSession(failed.clientId).exceptionallyCompose(e -> {
            Throwable cause = unwrap(e);
            if (cause instanceof Nfs4StatusException s && (s.nfs4Status() == Nfs4Status.NFS4ERR_STALE_CLIENTID
                    || s.nfs4Status() == Nfs4Status.NFS4ERR_EXPIRED
                    || s.nfs4Status() == Nfs4Status.NFS4ERR_SEQ_MISORDERED)) {
                LOG.info("client ID {} is gone ({}): making a new one", Long.toHexString(failed.clientId),
                        Nfs4Status.name(s.nfs4Status()));
                return newClientId();
            }
            return CompletableFuture.failedFuture(cause);
        });
    }

    /**
     * Replaces {@code failed}'s session (and client ID when {@code clientLost}); one recovery at a time, shared by
     * everyone who met the loss. Completes with the state to use.
     */
    CompletableFuture<State> recover(State failed, boolean clientLost) {
        CompletableFuture<State> r;
        synchronized (lock) {
            State current = state;
            if (current != failed && !current.retired) {
                return CompletableFuture.completedFuture(current);
            }
            if (recovery != null) {
                return recovery;
            }
            if (closed) {
                return CompletableFuture.failedFuture(new RpcConnectionException("the NFSv4.1 session is closed",
                        null));
            }
            current.retired = true;
            current.clientLost |= clientLost;
            current.slots.retire();
            r = new CompletableFuture<>();
            recovery = r;
            LOG.info("{} of {}: recovering the {}", HexFormat.of().formatHex(current.sessionId),
                    transport.remoteAddress(), current.clientLost ? "client ID" : "session");
            State from = current;
            newSession(from).whenCompleteAsync((s, e) -> {
                synchronized (lock) {
                    recovery = null;
                    if (e == null) {
                        state = s;
                    }
                }
                if (e == null) {
                    r.complete(s);
                } else {
                    LOG.warn("recovering the session with {} failed: {}", transport.remoteAddress(),
                            unwrap(e).toString());
                    r.completeExceptionally(unwrap(e));
                }
            }, stages);
        }
        return r;
    }

    // ============================================================================================= sending

    /**
     * The transport reconnected since the back channel was bound, or the server says the session's callbacks cannot
     * reach this client (SEQUENCE's CB_PATH_DOWN flags): binds the connection to the session for both channels
     * (BIND_CONN_TO_SESSION), so that callbacks find the new connection. One at a time, and not again within
     * {@link #REBIND_INTERVAL_NANOS} (the server clears the flag once it has probed the new path). Nothing happens
     * without a callback service.
     */
    private void bindBackChannel(State s) {
        if (callbacks == null || closing || System.nanoTime() - lastBindNanos < REBIND_INTERVAL_NANOS
                || !binding.compareAndSet(false, true)) {
            return;
        }
        lastBindNanos = System.nanoTime();
        binds.incrementAndGet();
        long generation = transport.connectionGeneration();
        callAlone(new Compound("bind_conn_to_session").add(new Ops.BindConnToSession(s.sessionId)))
                .whenComplete((r, e) -> {
                    if (e == null && r.isOk()) {
                        boundGeneration = generation;
                    }
                    binding.set(false);
                    if (e != null) {
                        LOG.debug("BIND_CONN_TO_SESSION failed: {}", e.toString());
                    } else if (!r.isOk()) {
                        LOG.info("{} refused BIND_CONN_TO_SESSION: {}", transport.remoteAddress(),
                                Nfs4Status.name(r.status()));
                    } else {
                        LOG.debug("connection bound to session {}: channels {}", HexFormat.of().formatHex(s.sessionId),
                                r.<Integer>result(0));
                    }
                });
    }

    /** Sends an operation that travels alone, without SEQUENCE (EXCHANGE_ID, CREATE_SESSION, DESTROY_*). */
    private CompletableFuture<CompoundRes> callAlone(Compound c) {
        c.prepare(0);
        CompoundRes res = c.result(null);
        compounds.incrementAndGet();
        return transport.call(Nfs4.PROGRAM, Nfs4.VERSION, Nfs4.PROC_COMPOUND, c.args(minorVersion, null), res)
                .thenApplyAsync(r -> r, stages);
    }

    /**
     * Sends {@code c} on the session, handling what SEQUENCE and the retry rules of the class comment ask for.
     * Completes with the reply, whose status may be an error of the COMPOUND's own operations; or exceptionally with
     * an {@link org.rpcrdma4j.nfs.client.RpcCallException} (no answer), an {@link Nfs4StatusException} (the session
     * could not be used or recovered).
     */
    CallbackFuture<CompoundRes> call(Compound c) {
        CallbackFuture<CompoundRes> out = newResult();
        new Exchange(c, out, null).start();
        return out;
    }

    /** Sends {@code c} on {@code s}, without waiting for or starting a recovery (used inside one). */
    CompletableFuture<CompoundRes> callOn(State s, Compound c) {
        CompletableFuture<CompoundRes> out = newResult();
        new Exchange(c, out, s).start();
        return out;
    }

    /**
     * A COMPOUND's future: it may complete on the thread that took the reply off the connection, so stages registered
     * while it is pending run on the session's executor; a waiting thread polls as the transport says.
     */
    private CallbackFuture<CompoundRes> newResult() {
        return new CallbackFuture<>(stages, transport.replySpin());
    }

    /** One COMPOUND from its first attempt to its answer. */
    private final class Exchange {
        private final Compound c;
        private final CompletableFuture<CompoundRes> out;
        private final State fixed;
        private int delays;
        /** When this COMPOUND first met NFS4ERR_GRACE (System.nanoTime), or 0. */
        private long graceSince;
        /** Tries again after NFS4ERR_GRACE: they lengthen its back-off, and count nothing against DELAY's tries. */
        private int graceWaits;
        private boolean otherIdTried;
        private int recoveries;
        private boolean reopened;
        private State s;
        private ClientSlotTable.Slot slot;
        /** Whether this COMPOUND holds {@link #slot}: once released, the slot may carry another COMPOUND. */
        private boolean holding;
        private int seq;

        Exchange(Compound c, CompletableFuture<CompoundRes> out, State fixed) {
            this.c = c;
            this.out = out;
            this.fixed = fixed;
        }

        void start() {
            if (closed || (closing && fixed == null && !c.releasesState())) {
                out.completeExceptionally(new RpcConnectionException("the NFSv4.1 session with "
                        + transport.remoteAddress() + " is closed", null));
                return;
            }
            State cur = fixed != null ? fixed : state;
            if (cur.retired) {
                if (fixed != null) {
                    fail(new Nfs4StatusException(Nfs4Status.NFS4ERR_BADSESSION, Nfs4.OP_SEQUENCE,
                            "the session was lost while recovering"));
                } else {
                    recoverThen(cur, cur.clientLost);
                }
                return;
            }
            cur.slots.acquire().whenComplete((sl, e) -> {
                if (e != null) {
                    fail(e);
                } else if (sl == null) {
                    stages.execute(this::start); // the table was retired meanwhile
                } else {
                    send(cur, sl, false);
                }
            });
        }

        private void send(State cur, ClientSlotTable.Slot sl, boolean sameSequence) {
            s = cur;
            slot = sl;
            holding = true;
            if (!sameSequence) {
                seq = sl.sequenceId + 1;
            }
            CompoundArgs args;
            CompoundRes res;
            try {
                Ops.Sequence sequence = new Ops.Sequence(cur.sessionId, seq, sl.id, cur.slots.highestSlotInUse(),
                        c.mutating());
                c.prepare(cur.clientId);
                args = c.args(minorVersion, sequence);
                res = c.result(sequence);
            } catch (RuntimeException e) {
                // an operation that cannot go again (LOCKU once the locks were lost): a retry on the id this COMPOUND
                // went out on leaves that id to the server, which may hold it (DELAY), as a retry given up does
                if (sameSequence && seq - sl.sequenceId > 0) {
                    sl.sequenceId = seq;
                }
                releaseSlot();
                fail(e);
                return;
            }
            lastSentNanos = System.nanoTime();
            compounds.incrementAndGet();
            CompletableFuture<CompoundRes> reply;
            try {
                reply = transport.call(Nfs4.PROGRAM, Nfs4.VERSION, Nfs4.PROC_COMPOUND, args, res);
            } catch (RuntimeException e) {
                reply = CompletableFuture.failedFuture(e);
            }
            if (reply instanceof CallbackFuture<CompoundRes> ours) {
                ours.whenCompleteInline(this::onReplyInline);
            } else {
                reply.whenComplete(this::onReplyInline);
            }
        }

        /**
         * On the thread that completed the transport's future: a reply that went through with nothing for the session
         * to act on is finished here; anything else is handled on the session's executor.
         */
        private void onReplyInline(CompoundRes r, Throwable e) {
            try {
                if (e == null && finishedInline(r)) {
                    return;
                }
            } catch (RuntimeException x) {
                LOG.debug("the reply to {} is handled on the executor: {}", c, x.toString());
            }
            repliesActedOn.incrementAndGet();
            stages.execute(() -> onReply(r, e)); // here, should the session be closed: fail the caller, not lose it
        }

        /**
         * Finishes a COMPOUND whose SEQUENCE and operations all succeeded and whose SEQUENCE asks for nothing (no state
         * lost, no back channel to bind, no reclaim) as {@link #handle} would; false, having changed nothing, for any
         * other reply. The callback path flags ask for nothing of a client without callbacks: a server without a back
         * channel for the session (Linux's knfsd over TCP when none was asked for) sets CB_PATH_DOWN on every reply.
         */
        private boolean finishedInline(CompoundRes r) {
            if (r.sequenceStatus() != Nfs4Status.NFS4_OK || !r.isOk()) {
                return false;
            }
            Ops.SequenceOk ok = r.sequence();
            int actOn = Nfs4Ops.STATE_LOST_FLAGS | Nfs4Ops.SEQ4_STATUS_RESTART_RECLAIM_NEEDED
                    | (callbacks != null ? Nfs4Ops.CB_PATH_FLAGS : 0);
            if ((ok.statusFlags() & actOn) != 0
                    || backChannelGranted && transport.connectionGeneration() != boundGeneration) {
                return false;
            }
            sequenceWentThrough(ok);
            out.complete(r);
            return true;
        }

        private void releaseSlot() {
            holding = false;
            s.slots.release(slot);
        }

        /** The slot's request went through: its sequence id is the slot's, the server's limits apply, it is free. */
        private void sequenceWentThrough(Ops.SequenceOk ok) {
            slot.sequenceId = seq;
            slot.acked = seq;
            slot.beforeRestart = 0;
            s.slots.serverLimits(ok.highestSlotId(), ok.targetHighestSlotId());
            releaseSlot();
        }

        private void onReply(CompoundRes r, Throwable e) {
            try {
                handle(r, e);
            } catch (RuntimeException x) {
                LOG.warn("handling the reply to {} failed", c, x);
                fail(x);
            }
        }

        private void handle(CompoundRes r, Throwable e) {
            if (e != null) {
                // no answer: the server may or may not have taken the request on the slot
                if (seq - slot.sequenceId > 0) {
                    slot.sequenceId = seq;
                }
                releaseSlot();
                fail(unwrap(e));
                return;
            }
            int seqStatus = r.sequenceStatus();
            if (seqStatus == Nfs4Status.NFS4_OK) {
                Ops.SequenceOk ok = r.sequence();
                sequenceWentThrough(ok);
                if ((ok.statusFlags() & Nfs4Ops.STATE_LOST_FLAGS) != 0) {
                    revocations.incrementAndGet();
                    stateRecovery.stateRevoked(ok.statusFlags());
                }
                if ((ok.statusFlags() & Nfs4Ops.CB_PATH_FLAGS) != 0
                        || backChannelGranted && transport.connectionGeneration() != boundGeneration) {
                    bindBackChannel(s);
                }
                if ((ok.statusFlags() & Nfs4Ops.SEQ4_STATUS_RESTART_RECLAIM_NEEDED) != 0 && fixed == null) {
                    recover(s, true);
                }
                afterSequence(r);
                return;
            }
            switch (seqStatus) {
                case Nfs4Status.NFS4ERR_DELAY -> {
                    // the original of this request still runs on the server: ask again, same slot and sequence id
                    if (++delays > options.delayRetries()) {
                        slot.sequenceId = seq; // the server holds this id: the slot's next request takes one more
                        releaseSlot();
                        fail(new Nfs4StatusException(seqStatus, Nfs4.OP_SEQUENCE, "gave up after " + delays
                                + " tries"));
                        return;
                    }
                    delayRetries.incrementAndGet();
                    State cur = s;
                    ClientSlotTable.Slot sl = slot;
                    later(() -> send(cur, sl, true));
                }
                case Nfs4Status.NFS4ERR_BADSESSION, Nfs4Status.NFS4ERR_DEADSESSION -> {
                    releaseSlot();
                    recoverThen(s, false);
                }
                case Nfs4Status.NFS4ERR_SEQ_MISORDERED -> misordered(seq, seqStatus);
                case Nfs4Status.NFS4ERR_SEQ_FALSE_RETRY -> {
                    // the server's slot is at this id with another request: one of this slot's that went unanswered.
                    // This COMPOUND was not taken: it starts again later, on the next id
                    leaveIdToTheServer(seqStatus, "slot " + slot.id + " sequence id " + Integer.toUnsignedString(seq));
                }
                case Nfs4Status.NFS4ERR_RETRY_UNCACHED_REP -> {
                    // the request ran but its reply was not kept
                    slot.sequenceId = seq;
                    slot.acked = seq;
                    releaseSlot();
                    if (!c.mutating()) {
                        start();
                    } else {
                        fail(new Nfs4StatusException(seqStatus, Nfs4.OP_SEQUENCE, "the reply of " + c
                                + " was lost and not cached"));
                    }
                }
                default -> {
                    releaseSlot();
                    fail(new Nfs4StatusException(seqStatus, r.failedIndex() == -1 ? Nfs4.OP_SEQUENCE : 0, null));
                }
            }
        }

        /**
         * SEQ_MISORDERED on {@code lowest}, the lowest id tried yet (this COMPOUND's, or a probe's below it). Below its
         * own id this COMPOUND is never sent, only SEQUENCE alone ({@link #probe}, as Linux's client does): the server
         * may hold such an id with a request of the slot that went unanswered, and answer whatever comes on it from
         * that request's cached reply (Linux's server checks a retry only weakly; RFC 8881 section 2.10.6.2 reuses a
         * slot only after its reply). Probes step down one id at a time, to the one after the last the server
         * answered. On that one, the server may have started the slot again (it dropped it): 1 is probed, once; or
         * kept it when the client restarted it ({@link ClientSlotTable#serverLimits}): the slot goes back to its old
         * ids, once, and the COMPOUND on the one after them (no request had it), from where probes step down again
         * should the server hold an older one (a request went unanswered before the restart). When nothing fits, the
         * request on the slot's id may still run on the server (RFC 8881 section 2.10.6.2 allows SEQ_MISORDERED in
         * place of DELAY then): the COMPOUND again after a back-off, as for DELAY.
         */
        private void misordered(int lowest, int seqStatus) {
            if (lowest - slot.acked > 1) {
                probe(lowest - 1, false);
            } else if (!otherIdTried && lowest != 1) {
                otherIdTried = true;
                probe(1, true);
            } else if (!otherIdTried && slot.beforeRestart != 0) {
                otherIdTried = true;
                if (slot.beforeRestart - slot.sequenceId > 0) {
                    slot.sequenceId = slot.beforeRestart;
                }
                slot.acked = slot.ackedBeforeRestart;
                slot.beforeRestart = 0;
                send(s, slot, false);
            } else {
                sameIdLater(seqStatus);
            }
        }

        /**
         * Sends SEQUENCE alone on the slot with id {@code id} ({@link SequenceProbe}), the slot held all along.
         * {@code restart}: the probe asks whether the server started the slot again.
         */
        private void probe(int id, boolean restart) {
            SequenceProbe probe = new SequenceProbe(s.sessionId, id, slot.id, s.slots.highestSlotInUse());
            lastSentNanos = System.nanoTime();
            compounds.incrementAndGet();
            CompletableFuture<SequenceProbe> reply;
            try {
                reply = transport.call(Nfs4.PROGRAM, Nfs4.VERSION, Nfs4.PROC_COMPOUND, probe.args(minorVersion),
                        probe);
            } catch (RuntimeException e) {
                reply = CompletableFuture.failedFuture(e);
            }
            reply.whenCompleteAsync((r, e) -> {
                try {
                    probed(probe, restart, e);
                } catch (RuntimeException x) {
                    LOG.warn("handling the reply to {} for {} failed", probe, c, x);
                    if (holding) {
                        releaseSlot();
                    }
                    fail(x);
                }
            }, stages);
        }

        private void probed(SequenceProbe probe, boolean restart, Throwable e) {
            int id = probe.sequenceId();
            if (e != null) {
                // no answer, and this COMPOUND was not taken; the probe's id is below the slot's
                releaseSlot();
                fail(unwrap(e));
                return;
            }
            int status = probe.status();
            switch (status) {
                // the server holds the id: the probe went through as its request, or met the request there (whose
                // cached reply it may have been given, or which kept none, or which differs)
                case Nfs4Status.NFS4_OK, Nfs4Status.NFS4ERR_RETRY_UNCACHED_REP, Nfs4Status.NFS4ERR_SEQ_FALSE_RETRY ->
                        held(id, restart);
                case Nfs4Status.NFS4ERR_DELAY -> {
                    // a lost request of the slot with this id still runs on the server: asked again after a back-off
                    if (++delays > options.delayRetries()) {
                        releaseSlot();
                        fail(new Nfs4StatusException(status, Nfs4.OP_SEQUENCE, "slot " + slot.id + " sequence id "
                                + Integer.toUnsignedString(id) + " still runs after " + delays + " tries"));
                        return;
                    }
                    delayRetries.incrementAndGet();
                    later(() -> probe(id, restart));
                }
                case Nfs4Status.NFS4ERR_SEQ_MISORDERED -> misordered(id, status);
                case Nfs4Status.NFS4ERR_BADSESSION, Nfs4Status.NFS4ERR_DEADSESSION -> {
                    releaseSlot();
                    recoverThen(s, false);
                }
                default -> {
                    releaseSlot();
                    fail(new Nfs4StatusException(status, Nfs4.OP_SEQUENCE, probe.toString()));
                }
            }
        }

        /**
         * The server holds {@code id} on the slot. This COMPOUND goes on its own id once the server holds the one
         * before: the ids between were those of requests that went unanswered, and one of them may still reach the
         * server, which would run it as new and give its reply to this COMPOUND, were it sent on that id. Only after
         * the server started the slot again (the probe of 1 went through) does it go on the next, 2: the old ids mean
         * nothing there.
         */
        private void held(int id, boolean restart) {
            slot.acked = id;
            slot.beforeRestart = 0;
            if (restart) {
                slot.sequenceId = id;
                send(s, slot, false);
            } else if (seq - id > 1) {
                probe(id + 1, false);
            } else {
                send(s, slot, true);
            }
        }

        /**
         * The same request on the same slot and id after a back-off, at most {@link Nfs41Options#delayRetries()} times
         * in all with the DELAYs; then it fails, and the slot keeps the id (the server may hold it).
         */
        private void sameIdLater(int seqStatus) {
            if (++delays > options.delayRetries()) {
                slot.sequenceId = seq;
                releaseSlot();
                fail(new Nfs4StatusException(seqStatus, Nfs4.OP_SEQUENCE, "slot " + slot.id + " sequence id "
                        + Integer.toUnsignedString(seq)));
                return;
            }
            delayRetries.incrementAndGet();
            State cur = s;
            ClientSlotTable.Slot sl = slot;
            later(() -> send(cur, sl, true));
        }

        /**
         * The server holds this slot's id {@code seq} with another request (a lost one of the slot) and did not take
         * this COMPOUND: the slot keeps the id as the server's, and the COMPOUND starts again later on the next one,
         * at most {@link Nfs41Options#delayRetries()} times; then it fails with {@code seqStatus}.
         */
        private void leaveIdToTheServer(int seqStatus, String detail) {
            slot.sequenceId = seq;
            releaseSlot();
            if (++delays > options.delayRetries()) {
                fail(new Nfs4StatusException(seqStatus, Nfs4.OP_SEQUENCE, detail));
                return;
            }
            delayRetries.incrementAndGet();
            later(this::start);
        }

        /** The SEQUENCE went through: the COMPOUND's own outcome. */
        private void afterSequence(CompoundRes r) {
            if (r.isOk()) {
                out.complete(r);
                return;
            }
            int status = r.status();
            int failed = r.failedIndex();
            switch (status) {
                case Nfs4Status.NFS4ERR_DELAY -> {
                    if (c.retryableAfterFailureAt(failed) && ++delays <= options.delayRetries()) {
                        delayRetries.incrementAndGet();
                        later(this::start);
                        return;
                    }
                }
                case Nfs4Status.NFS4ERR_GRACE -> {
                    // the server's grace period lasts a lease or more (knfsd's until the clients it knew reclaimed
                    // or twice the lease passed): it is waited out by time, with a count of its own that lengthens
                    // the back-off and leaves DELAY's tries to DELAY
                    long now = System.nanoTime();
                    if (graceSince == 0) {
                        graceSince = now;
                    }
                    if (c.retryableAfterFailureAt(failed) && now - graceSince < graceWaitNanos()) {
                        graceWaits++;
                        delayRetries.incrementAndGet();
                        later(this::start, graceWaits);
                        return;
                    }
                }
                case Nfs4Status.NFS4ERR_STALE_CLIENTID -> {
                    if (fixed == null && c.retryableAfterFailureAt(failed)) {
                        recoverThen(s, true);
                        return;
                    }
                }
                // EXPIRED: in NFSv4.1 the state one stateid names expired (RFC 8881 section 15.1.5.3); the client ID
                // and its session go on (a lost lease shows in SEQUENCE), so it is handled as a revoked stateid
                case Nfs4Status.NFS4ERR_BAD_STATEID, Nfs4Status.NFS4ERR_STALE_STATEID, Nfs4Status.NFS4ERR_OLD_STATEID,
                        Nfs4Status.NFS4ERR_ADMIN_REVOKED, Nfs4Status.NFS4ERR_EXPIRED -> {
                    if (c.staleStateHandler() != null && !reopened && fixed == null) {
                        reopened = true;
                        c.staleStateHandler().get().whenCompleteAsync((v, x) -> {
                            if (x != null) {
                                LOG.debug("opening again for {} failed: {}", c, unwrap(x).toString());
                                out.complete(r);
                            } else {
                                start();
                            }
                        }, stages);
                        return;
                    }
                }
                default -> {
                }
            }
            out.complete(r);
        }

        private void recoverThen(State failed, boolean clientLost) {
            if (fixed != null) {
                fail(new Nfs4StatusException(clientLost ? Nfs4Status.NFS4ERR_STALE_CLIENTID
                        : Nfs4Status.NFS4ERR_BADSESSION, Nfs4.OP_SEQUENCE, "the session was lost while recovering"));
                return;
            }
            if (++recoveries > options.recoveryAttempts()) {
                fail(new Nfs4StatusException(clientLost ? Nfs4Status.NFS4ERR_STALE_CLIENTID
                        : Nfs4Status.NFS4ERR_BADSESSION, Nfs4.OP_SEQUENCE, "gave up after " + (recoveries - 1)
                        + " recoveries"));
                return;
            }
            recover(failed, clientLost).whenCompleteAsync((ns, e) -> {
                if (e != null) {
                    fail(unwrap(e));
                } else {
                    start();
                }
            }, stages);
        }

        private void later(Runnable r) {
            later(r, delays);
        }

        /** Runs {@code r} after the back-off of the {@code retry}th try (from 1). */
        private void later(Runnable r, int retry) {
            long backoff = delayBackoffNanos(retry);
            try {
                schedule(() -> stages.execute(r), backoff);
            } catch (RuntimeException e) {
                // a COMPOUND that gave its slot back before its back-off must not give it back again: the slot may
                // carry another COMPOUND by now. One that holds it was to go again on its id, which the server may
                // hold (DELAY): the slot's next request takes one more
                if (holding) {
                    if (seq - slot.sequenceId > 0) {
                        slot.sequenceId = seq;
                    }
                    releaseSlot();
                }
                fail(new RpcConnectionException("the NFSv4.1 session is closed", e));
            }
        }

        private void fail(Throwable e) {
            out.completeExceptionally(e);
        }
    }

    static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /** Waits for {@code f}, throwing its failure as the IOException it is. */
    static <T> T await(CompletableFuture<T> f, Duration timeout) throws IOException {
        try {
            return f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for a reply");
        } catch (TimeoutException e) {
            throw new RpcTimeoutException("no answer within " + timeout, e);
        } catch (ExecutionException | CompletionException e) {
            throw asIo(e);
        }
    }

    /** Waits for {@code f} without a bound of its own (the transport's call timeout bounds each call). */
    static <T> T await(CompletableFuture<T> f) throws IOException {
        try {
            return f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for a reply");
        } catch (ExecutionException | CompletionException e) {
            throw asIo(e);
        }
    }

    static IOException asIo(Throwable e) {
        Throwable t = unwrap(e);
        if (t instanceof IOException io) {
            return io;
        }
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error err) {
            throw err;
        }
        return new IOException(t);
    }

    // ================================================================================================ closing

    /**
     * Ends the session: stops the timer, unlocks and closes the client's opens and finishes returning delegations,
     * waits (at most the call timeout each) for that and for COMPOUNDs in flight, sends DESTROY_SESSION and
     * DESTROY_CLIENTID (failures are logged, not thrown). Meanwhile only COMPOUNDs that give state back go out;
     * after, none. Does not close the transport.
     */
    @Override
    public void close() {
        synchronized (lock) {
            if (closing) {
                return;
            }
            closing = true;
        }
        stopTimer();
        try {
            await(stateRecovery.closeAll(), callTimeout);
        } catch (IOException | RuntimeException e) {
            LOG.debug("closing the opens: {}", e.toString());
        }
        State s = state;
        long deadline = System.nanoTime() + callTimeout.toNanos();
        while (s.slots.inUse() > 0 && System.nanoTime() < deadline && !s.retired) {
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        if (!s.retired) {
            destroy(new Ops.DestroySession(s.sessionId), "DESTROY_SESSION");
            destroy(new Ops.DestroyClientId(s.clientId), "DESTROY_CLIENTID");
        }
        closed = true;
        shutdownThreads();
    }

    private void destroy(Op op, String what) {
        try {
            CompoundRes r = await(callAlone(new Compound("close").add(op)), callTimeout);
            if (!r.isOk()) {
                LOG.debug("{}: {}", what, Nfs4Status.name(r.status()));
            }
        } catch (IOException | RuntimeException e) {
            LOG.debug("{} failed: {}", what, e.toString());
        }
    }

    private void shutdownThreads() {
        stopTimer();
        executor.shutdown();
    }

    private void runStage(Runnable r) {
        try {
            executor.execute(r);
        } catch (RejectedExecutionException closed) {
            r.run();
        }
    }

    /**
     * Stops the timer, and runs now what waited on it to be run once ({@link #schedule}): a COMPOUND's or
     * EXCHANGE_ID's back-off after DELAY, a waiting lock's next try. Each then ends as the session is closing (a new
     * COMPOUND fails at once), so no caller waits for good on a future that only the timer would have completed. The
     * renewal is dropped.
     */
    private void stopTimer() {
        timer.shutdownNow();
        for (Once r : java.util.List.copyOf(scheduled)) {
            try {
                r.run();
            } catch (RuntimeException e) {
                LOG.debug("a task left on the timer failed at close: {}", e.toString());
            }
        }
    }

    /**
     * Runs {@code r} once on the timer after {@code delayNanos}, or at once when the session closes first.
     *
     * @throws RejectedExecutionException the session is closed
     */
    void schedule(Runnable r, long delayNanos) {
        Once once = new Once(r);
        scheduled.add(once);
        try {
            timer.schedule(once, delayNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException closed) {
            scheduled.remove(once);
            throw closed;
        }
    }

    /** A task of {@link #schedule}: runs once, whether the timer or the close gets to it first. */
    private final class Once implements Runnable {
        private final Runnable task;
        private final java.util.concurrent.atomic.AtomicBoolean ran = new java.util.concurrent.atomic.AtomicBoolean();

        Once(Runnable task) {
            this.task = task;
        }

        @Override
        public void run() {
            if (ran.compareAndSet(false, true)) {
                scheduled.remove(this);
                task.run();
            }
        }
    }

    /** Whether {@link #close()} was called. */
    public boolean isClosed() {
        return closing;
    }

    @Override
    public String toString() {
        State s = state;
        return "NFSv4." + minorVersion + " session " + HexFormat.of().formatHex(s.sessionId) + " of client "
                + Long.toHexString(s.clientId) + " with " + transport.remoteAddress();
    }

    // for the tests of this package
    State currentState() {
        return state;
    }
}
