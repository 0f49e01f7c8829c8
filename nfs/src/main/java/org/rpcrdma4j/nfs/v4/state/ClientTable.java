package org.rpcrdma4j.nfs.v4.state;

import static org.rpcrdma4j.nfs.v4.Nfs4Status.*;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;
import java.util.function.LongSupplier;
import org.rpcrdma4j.nfs.v4.Nfs4Exception;

/**
 * The NFSv4.1 server's clients: client IDs (EXCHANGE_ID, DESTROY_CLIENTID), their leases, the grace period,
 * sessions (CREATE_SESSION, SEQUENCE, DESTROY_SESSION) and, through {@link #opens()}, their open state. See the
 * package documentation for the model and what may race.
 *
 * <p>Thread-safe. One lock guards every client, session and open; a session's {@link SlotTable} has its own, taken
 * only while this one is held or while none is, never the other way round.
 */
public final class ClientTable {
    private static final int OWNER_LIMIT = 1024;
    private static final int VERIFIER_SIZE = 8;
    private static final int EXPIRED_REMEMBERED = 4096;

    final Object lock = new Object();
    /** How long an unconfirmed client ID is kept from {@link #dropOldestUnconfirmed} (a CREATE_SESSION's time). */
    static final long UNCONFIRMED_MIN_AGE_NANOS = 1_000_000_000L;
    /** A slot's own record, counted with its cached reply in {@link StateConfig#replyCacheBytes()}. */
    static final long SLOT_RECORD_BYTES = 64;
    /** A new session's slots take at most this fraction (its inverse) of the reply cache memory left. */
    static final int REPLY_CACHE_SHARE = 8;

    private final StateConfig config;
    private final int bootId;
    private final LongSupplier clock;
    private final long leaseNanos;
    private final long courtesyNanos;
    /** Clients kept as a courtesy that were dropped because another client's request needed their state. */
    private long courtesyYielded;
    private final GracePeriod grace;
    private final Map<Long, ClientRecord> clients = new HashMap<>();
    private final Map<Bytes, ClientRecord> confirmedByOwner = new HashMap<>();
    private final Map<Bytes, ClientRecord> unconfirmedByOwner = new HashMap<>();
    private final Map<SessionId, Session> sessions = new HashMap<>();
    /** Client IDs whose lease ran out, newest last, so their stateids still answer NFS4ERR_EXPIRED. */
    private final LinkedHashSet<Long> expired = new LinkedHashSet<>();
    private final OpenStates opens;
    private final DelegationStates delegations;
    private int nextClient = 1;
    private int nextSession = 1;
    /** Reply cache memory the live sessions reserved, out of {@link StateConfig#replyCacheBytes()}. */
    private long replyCacheReserved;

    /**
     * @param config the lease, grace and session limits
     * @param bootId this server instance: the high 32 bits of its client IDs and the first word of its stateids;
     *               must differ from that of the instance before a restart
     * @param nanoClock a monotonic clock in nanoseconds ({@code System::nanoTime}; a fake one in tests)
     */
    public ClientTable(StateConfig config, int bootId, LongSupplier nanoClock) {
        this.config = Objects.requireNonNull(config, "config");
        this.bootId = bootId;
        this.clock = Objects.requireNonNull(nanoClock, "nanoClock");
        this.leaseNanos = config.leaseTime().toNanos();
        this.courtesyNanos = config.courtesyTime().toNanos();
        this.grace = new GracePeriod(nanoClock, config.graceTime().toNanos());
        this.opens = new OpenStates(this);
        this.delegations = opens.delegations();
    }

    public int bootId() {
        return bootId;
    }

    /** The table's settings. */
    public StateConfig config() {
        return config;
    }

    /** The open stateids of this table's clients. */
    public OpenStates opens() {
        return opens;
    }

    /** The read delegations of this table's clients. */
    public DelegationStates delegations() {
        return delegations;
    }

    /** The {@code lease_time} attribute. */
    public int leaseTimeSeconds() {
        return (int) config.leaseTime().toSeconds();
    }

    /**
     * EXCHANGE_ID for an AUTH_SYS client without SSV (RFC 8881 section 18.35.5; the principal is not compared, so the
     * client collision and wrong principal cases do not arise): a new owner gets a new unconfirmed client ID (case 1);
     * an owner with a confirmed record of the same verifier gets that record (case 2, and case 6 with
     * {@link ExchangeIdResult#FLAG_UPD_CONFIRMED_REC_A}); an owner with only an unconfirmed record gets a new one in
     * its place (case 4); a confirmed owner with another verifier, a restarted client, gets a new unconfirmed record
     * while the old one keeps its state until CREATE_SESSION confirms the new one (case 5). An update without a
     * confirmed record is NFS4ERR_NOENT (case 7), with another verifier NFS4ERR_NOT_SAME (case 8).
     *
     * @throws Nfs4Exception NFS4ERR_INVAL for an owner over 1024 bytes, a verifier not of 8, or flags a client may not
     *                       send
     */
    public ExchangeIdResult exchangeId(byte[] ownerId, byte[] verifier, int flags) throws Nfs4Exception {
        if (ownerId == null || ownerId.length > OWNER_LIMIT) {
            throw new Nfs4Exception(NFS4ERR_INVAL, "a client owner has at most " + OWNER_LIMIT + " bytes");
        }
        if (verifier == null || verifier.length != VERIFIER_SIZE) {
            throw new Nfs4Exception(NFS4ERR_INVAL, "a verifier has " + VERIFIER_SIZE + " bytes");
        }
        if ((flags & ~ExchangeIdResult.ARGUMENT_FLAGS) != 0) {
            throw new Nfs4Exception(NFS4ERR_INVAL, "EXCHANGE_ID flags " + Integer.toHexString(flags));
        }
        Bytes owner = new Bytes(ownerId);
        synchronized (lock) {
            long now = clock.getAsLong();
            ClientRecord conf = confirmedByOwner.get(owner);
            if (conf != null && expireIfDue(conf, now)) {
                conf = null;
            }
            ClientRecord unconf = unconfirmedByOwner.get(owner);
            if (unconf != null && expireIfDue(unconf, now)) {
                unconf = null;
            }
            boolean sameVerifier = conf != null && Arrays.equals(conf.verifier, verifier);
            if ((flags & ExchangeIdResult.FLAG_UPD_CONFIRMED_REC_A) != 0) {
                if (conf == null) {
                    throw new Nfs4Exception(NFS4ERR_NOENT, "no confirmed client ID to update");
                }
                if (!sameVerifier) {
                    throw new Nfs4Exception(NFS4ERR_NOT_SAME, "the update's verifier is not the client ID's");
                }
            }
            if (sameVerifier) {
                conf.lastRenewed = now;
                return exchangeIdResult(conf);
            }
            if (unconf != null) {
                removeClient(unconf, false);
            } else if (clients.size() >= config.maxClients() && expireLocked(now) == 0
                    && !dropOldestUnconfirmed(now) && !dropOldestCourtesy(now)) {
                throw new Nfs4Exception(NFS4ERR_DELAY, "the server holds the most client IDs it keeps ("
                        + config.maxClients() + "); one comes free when a client's lease runs out");
            }
            ClientRecord created = new ClientRecord((long) bootId << 32 | (nextClient++ & 0xffffffffL), owner,
                    verifier, now);
            clients.put(created.id, created);
            unconfirmedByOwner.put(owner, created);
            return exchangeIdResult(created);
        }
    }

    private static ExchangeIdResult exchangeIdResult(ClientRecord c) {
        return new ExchangeIdResult(c.id, c.createSessionSequence + 1,
                ExchangeIdResult.FLAG_USE_NON_PNFS | (c.confirmed ? ExchangeIdResult.FLAG_CONFIRMED_R : 0));
    }

    /** A CREATE_SESSION with {@code sequence} failed as {@code e}: the sequence is used up; a replay gets the same. */
    private static Nfs4Exception createSessionFailed(ClientRecord c, int sequence, Nfs4Exception e) {
        c.createSessionSequence = sequence;
        c.lastCreateSession = null;
        c.lastCreateSessionFailure = e;
        return e;
    }

    /**
     * CREATE_SESSION (RFC 8881 section 18.36.4). {@code sequence} one more than that of the client's last
     * CREATE_SESSION makes a session (and confirms an unconfirmed client ID, dropping an older confirmed record of the
     * same owner with its sessions and opens); the same as the last returns that one's result again, making nothing.
     *
     * @throws Nfs4Exception NFS4ERR_STALE_CLIENTID for a client ID unknown, of another boot, or expired;
     *                       NFS4ERR_SEQ_MISORDERED for another sequence (those two leave the sequence where it was);
     *                       NFS4ERR_INVAL for unknown flags; NFS4ERR_TOOSMALL for a fore channel that cannot carry a
     *                       SEQUENCE; NFS4ERR_NOSPC when the client has {@link StateConfig#maxSessionsPerClient()}
     *                       sessions. Those three use up the sequence, as a session made does, and its replay gets
     *                       them again, as from Linux's server (whose client goes on with the next sequence after any
     *                       answer but DELAY and STALE_CLIENTID).
     */
    public CreateSessionResult createSession(long clientId, int sequence, int flags, ChannelAttributes fore,
            ChannelAttributes back, int callbackProgram) throws Nfs4Exception {
        Objects.requireNonNull(fore, "fore");
        Objects.requireNonNull(back, "back");
        synchronized (lock) {
            long now = clock.getAsLong();
            ClientRecord c = clientLocked(clientId, now);
            if (sequence == c.createSessionSequence && c.lastCreateSessionFailure != null) {
                Nfs4Exception e = c.lastCreateSessionFailure;
                throw new Nfs4Exception(e.status(), "CREATE_SESSION sequence " + Integer.toUnsignedString(sequence)
                        + " again, which failed: " + e.getMessage());
            }
            if (sequence == c.createSessionSequence && c.lastCreateSession != null) {
                return c.lastCreateSession;
            }
            if (sequence != c.createSessionSequence + 1) {
                throw new Nfs4Exception(NFS4ERR_SEQ_MISORDERED, "CREATE_SESSION sequence "
                        + Integer.toUnsignedString(sequence) + ", expected "
                        + Integer.toUnsignedString(c.createSessionSequence + 1));
            }
            if ((flags & ~CreateSessionResult.ARGUMENT_FLAGS) != 0) {
                throw createSessionFailed(c, sequence, new Nfs4Exception(NFS4ERR_INVAL, "CREATE_SESSION flags "
                        + Integer.toHexString(flags)));
            }
            if (!fore.carriesSequence()) {
                throw createSessionFailed(c, sequence, new Nfs4Exception(NFS4ERR_TOOSMALL, "fore channel of "
                        + Integer.toUnsignedString(fore.maxRequestSize()) + "-byte requests and "
                        + Integer.toUnsignedString(fore.maxResponseSize()) + "-byte replies: SEQUENCE alone needs "
                        + ChannelAttributes.SMALLEST_REQUEST + " and " + ChannelAttributes.SMALLEST_REPLY));
            }
            if (c.sessions.size() >= config.maxSessionsPerClient()) {
                throw createSessionFailed(c, sequence, new Nfs4Exception(NFS4ERR_NOSPC, "client "
                        + Long.toHexString(clientId) + " has " + c.sessions.size() + " sessions"));
            }
            ChannelAttributes granted = ChannelAttributes.negotiate(fore, config.foreLimits());
            long slotBytes = replyCacheSlotBytes(granted);
            int slots = replyCacheSlots(granted.maxRequests(), slotBytes);
            Session s = new Session(SessionId.forClient(clientId, nextSession++), clientId,
                    flags & CreateSessionResult.FLAG_CONN_BACK_CHAN, granted.withMaxRequests(slots),
                    ChannelAttributes.grantBack(back, config.backLimits()), callbackProgram, slots * slotBytes);
            replyCacheReserved += s.replyCacheBytes;
            if (!c.confirmed) {
                confirm(c);
            }
            c.sessions.put(s.id(), s);
            sessions.put(s.id(), s);
            c.createSessionSequence = sequence;
            c.lastCreateSessionFailure = null;
            c.lastCreateSession = new CreateSessionResult(s.id(), sequence, s.flags(), s.fore(), s.back());
            c.lastRenewed = now;
            return c.lastCreateSession;
        }
    }

    private void confirm(ClientRecord c) {
        ClientRecord old = confirmedByOwner.get(c.owner);
        if (old != null && old != c) {
            removeClient(old, false);
        }
        unconfirmedByOwner.remove(c.owner, c);
        c.confirmed = true;
        confirmedByOwner.put(c.owner, c);
    }

    /**
     * SEQUENCE (RFC 8881 section 18.46.3): takes the request onto its slot and, unless that fails, renews the
     * client's lease. A COMPOUND told EXECUTE ends with {@link #completeSequence} or {@link #releaseSlot}.
     *
     * @throws Nfs4Exception NFS4ERR_BADSESSION for a session unknown, destroyed or of an expired client;
     *                       NFS4ERR_BADSLOT, NFS4ERR_BAD_HIGH_SLOT (a highest slot id beyond the table) and the
     *                       slot table's verdicts ({@link SlotTable#acquire})
     */
    public SequenceResult sequence(byte[] sessionId, int seqId, int slotId, int highestSlotId, boolean cacheThis)
            throws Nfs4Exception {
        return sequence(sessionId, seqId, slotId, highestSlotId, cacheThis, null);
    }

    /**
     * {@link #sequence(byte[], int, int, int, boolean)} for a request described by {@code request}: a retry of another
     * request is NFS4ERR_SEQ_FALSE_RETRY ({@link SlotTable#acquire(int, int, boolean, Object)}).
     */
    public SequenceResult sequence(byte[] sessionId, int seqId, int slotId, int highestSlotId, boolean cacheThis,
                                   Object request) throws Nfs4Exception {
        synchronized (lock) {
            long now = clock.getAsLong();
            Session s = sessionLocked(sessionId, now);
            SlotTable slots = s.slots();
            if (slots.hasSlot(slotId) && (highestSlotId < 0 || highestSlotId > slots.highestSlotId())) {
                throw new Nfs4Exception(NFS4ERR_BAD_HIGH_SLOT, "highest slot id "
                        + Integer.toUnsignedString(highestSlotId) + " beyond " + slots.highestSlotId());
            }
            SlotVerdict verdict = slots.acquire(slotId, seqId, cacheThis, request);
            ClientRecord c = clients.get(s.clientId());
            c.lastRenewed = now;
            return new SequenceResult(s, verdict, slots.highestSlotId(), slots.targetHighestSlotId(),
                    statusFlags(c, s));
        }
    }

    private int statusFlags(ClientRecord c, Session s) {
        int flags = s.backChannel && s.backChannelDown ? SequenceResult.STATUS_CB_PATH_DOWN_SESSION : 0;
        if (delegations.hasRevokedLocked(c.id)) {
            flags |= SequenceResult.STATUS_RECALLABLE_STATE_REVOKED;
        }
        boolean asked = false;
        boolean usable = false;
        for (Session x : c.sessions.values()) {
            asked |= x.backChannel;
            usable |= x.backChannelWorks();
        }
        return asked && !usable ? flags | SequenceResult.STATUS_CB_PATH_DOWN : flags;
    }

    /**
     * Ends an EXECUTE on {@code slotId} with the COMPOUND's encoded {@code reply} ({@link SlotTable#complete}) and
     * renews the client's lease again (the request may have run long). Harmless on a session destroyed meanwhile.
     */
    public void completeSequence(Session session, int slotId, byte[] reply) {
        synchronized (lock) {
            session.slots().complete(slotId, reply);
            renewAfterRequest(session);
        }
    }

    /** Ends an EXECUTE on {@code slotId} that produced no reply ({@link SlotTable#release}), renewing the lease. */
    public void releaseSlot(Session session, int slotId) {
        synchronized (lock) {
            session.slots().release(slotId);
            renewAfterRequest(session);
        }
    }

    /** In the same hold of the lock as the slot's end, so expiry cannot slip between the two. */
    private void renewAfterRequest(Session session) {
        ClientRecord c = clients.get(session.clientId());
        if (c != null && !session.destroyed()) {
            c.lastRenewed = clock.getAsLong();
        }
    }

    /**
     * Tells the table whether the session's back channel works: {@code down} true after a callback path failed, false
     * once one is bound and works (which also counts as the session having asked for a back channel).
     */
    public void backChannelDown(byte[] sessionId, boolean down) throws Nfs4Exception {
        synchronized (lock) {
            Session s = sessionLocked(sessionId, clock.getAsLong());
            s.backChannel |= !down;
            s.backChannelDown = down;
        }
    }

    /**
     * The sessions of {@code clientId} whose back channel was asked for and works, newest first: where a callback to
     * the client goes. Empty for a client unknown or expired.
     */
    public java.util.List<SessionId> callbackSessions(long clientId) {
        synchronized (lock) {
            ClientRecord c = clientOrNullLocked(clientId);
            java.util.List<SessionId> ids = new ArrayList<>();
            if (c != null) {
                for (Session s : c.sessions.values()) {
                    if (s.backChannelWorks()) {
                        ids.add(0, s.id());
                    }
                }
            }
            return ids;
        }
    }

    /** The live session of {@code sessionId}; NFS4ERR_BADSESSION if none. */
    public Session session(byte[] sessionId) throws Nfs4Exception {
        synchronized (lock) {
            return sessionLocked(sessionId, clock.getAsLong());
        }
    }

    /** DESTROY_SESSION; requests still executing on it complete normally. NFS4ERR_BADSESSION if unknown. */
    public void destroySession(byte[] sessionId) throws Nfs4Exception {
        synchronized (lock) {
            Session s = sessionLocked(sessionId, clock.getAsLong());
            clients.get(s.clientId()).sessions.remove(s.id());
            dropSessionLocked(s);
        }
    }

    /**
     * DESTROY_CLIENTID (RFC 8881 section 18.50): drops a client ID, confirmed or not, that has no state left.
     *
     * @throws Nfs4Exception NFS4ERR_STALE_CLIENTID for an unknown one; NFS4ERR_CLIENTID_BUSY while it has sessions or
     *                       opens
     */
    public void destroyClientId(long clientId) throws Nfs4Exception {
        synchronized (lock) {
            ClientRecord c = clientLocked(clientId, clock.getAsLong());
            if (!c.sessions.isEmpty() || opens.hasOpensLocked(clientId) || delegations.countLocked(clientId) > 0) {
                throw new Nfs4Exception(NFS4ERR_CLIENTID_BUSY, "client " + Long.toHexString(clientId) + " has "
                        + c.sessions.size() + " sessions, " + opens.openCountLocked(clientId) + " opens and "
                        + delegations.countLocked(clientId) + " delegations");
            }
            removeClient(c, false);
        }
    }

    /**
     * RECLAIM_COMPLETE (RFC 8881 section 18.51). With {@code oneFs} it is accepted and not recorded (this server keeps
     * no per-file-system reclaim state); without, the second one of a client ID is NFS4ERR_COMPLETE_ALREADY.
     */
    public void reclaimComplete(long clientId, boolean oneFs) throws Nfs4Exception {
        synchronized (lock) {
            ClientRecord c = clientLocked(clientId, clock.getAsLong());
            if (oneFs) {
                return;
            }
            if (c.reclaimComplete) {
                throw new Nfs4Exception(NFS4ERR_COMPLETE_ALREADY, "client " + Long.toHexString(clientId));
            }
            c.reclaimComplete = true;
        }
    }

    /** Whether the grace period (the configured time from this table's creation) still runs. */
    public boolean inGrace() {
        return grace.inGrace();
    }

    /** An OPEN's grace check: NFS4ERR_GRACE for a non-reclaim OPEN in grace, NFS4ERR_NO_GRACE for a reclaim after. */
    public void checkOpen(boolean reclaim) throws Nfs4Exception {
        grace.checkOpen(reclaim);
    }

    /**
     * {@link #checkOpen(boolean)} with the client's own reclaim state (RFC 8881 section 18.51.3): also NFS4ERR_NO_GRACE
     * for a reclaim after the client's RECLAIM_COMPLETE, and NFS4ERR_GRACE for a non-reclaim OPEN before it.
     */
    public void checkOpen(long clientId, boolean reclaim) throws Nfs4Exception {
        checkOpen(reclaim);
        synchronized (lock) {
            ClientRecord c = clientLocked(clientId, clock.getAsLong());
            if (reclaim && c.reclaimComplete) {
                throw new Nfs4Exception(NFS4ERR_NO_GRACE, "the client sent RECLAIM_COMPLETE");
            }
            if (!reclaim && !c.reclaimComplete) {
                throw new Nfs4Exception(NFS4ERR_GRACE, "the client has not sent RECLAIM_COMPLETE");
            }
        }
    }

    /**
     * Drops every client whose lease ran out while no request of it executed, but for those kept as a courtesy
     * ({@link StateConfig#courtesyTime()}), and revokes the delegations recalled longer than the lease ago.
     * @return how many clients
     */
    public int expire() {
        synchronized (lock) {
            long now = clock.getAsLong();
            delegations.revokeOverdueLocked(now, leaseNanos);
            return expireLocked(now);
        }
    }

    /**
     * Makes room for a client ID by dropping the unconfirmed one renewed longest ago, if that was at least
     * {@link #UNCONFIRMED_MIN_AGE_NANOS} ago: it holds no state, and its owner that still wants it asks again
     * (CREATE_SESSION answers NFS4ERR_STALE_CLIENTID). So a peer that keeps making client IDs it never confirms cannot
     * keep the table full, while a client between its EXCHANGE_ID and its CREATE_SESSION keeps its own. False when
     * none may go.
     */
    private boolean dropOldestUnconfirmed(long now) {
        ClientRecord oldest = null;
        for (ClientRecord c : unconfirmedByOwner.values()) {
            if (oldest == null || c.lastRenewed - oldest.lastRenewed < 0) {
                oldest = c;
            }
        }
        if (oldest == null || now - oldest.lastRenewed < UNCONFIRMED_MIN_AGE_NANOS) {
            return false;
        }
        removeClient(oldest, false);
        return true;
    }

    /**
     * Makes room for a client ID by dropping the client kept as a courtesy that was renewed longest ago (its opens and
     * locks released): a table full of them must not turn live clients away. False when there is none.
     */
    private boolean dropOldestCourtesy(long now) {
        ClientRecord oldest = null;
        for (ClientRecord c : clients.values()) {
            if (c.leasePassed(now, leaseNanos) && !c.busy() && (oldest == null
                    || c.lastRenewed - oldest.lastRenewed < 0)) {
                oldest = c;
            }
        }
        return oldest != null && yieldLocked(oldest, now);
    }

    private int expireLocked(long now) {
        int n = 0;
        for (ClientRecord c : new ArrayList<>(clients.values())) {
            if (expireIfDue(c, now)) {
                n++;
            }
        }
        return n;
    }

    /** Whether {@code clientId} names a live confirmed client. */
    public boolean isConfirmed(long clientId) {
        synchronized (lock) {
            ClientRecord c = clientOrNullLocked(clientId);
            return c != null && c.confirmed;
        }
    }

    // --- for OpenStates, with the lock held ---

    /** The live client of {@code clientId} (expiring it if its lease ran out), or null. */
    ClientRecord clientOrNullLocked(long clientId) {
        ClientRecord c = clients.get(clientId);
        return c == null || expireIfDue(c, clock.getAsLong()) ? null : c;
    }

    /** The table's clock (no lock needed). */
    long now() {
        return clock.getAsLong();
    }

    /** Whether a session of {@code clientId} has a back channel that was asked for and works. */
    boolean callbackPathLocked(long clientId) {
        ClientRecord c = clients.get(clientId);
        return c != null && c.sessions.values().stream().anyMatch(Session::backChannelWorks);
    }

    boolean wasExpiredLocked(long clientId) {
        return expired.contains(clientId);
    }

    /**
     * Another client's request conflicts with {@code clientId}'s state: when that client is kept only as a courtesy
     * (its lease ran out and none of its requests executes), it is dropped now, its opens and locks released, and
     * the caller looks again. False when its lease still runs: the conflict stands.
     */
    boolean yieldCourtesyLocked(long clientId) {
        ClientRecord c = clients.get(clientId);
        return c != null && yieldLocked(c, clock.getAsLong());
    }

    /** Drops {@code c}, kept as a courtesy, for another client: when its lease ran out and none of its requests runs. */
    private boolean yieldLocked(ClientRecord c, long now) {
        if (!c.leasePassed(now, leaseNanos) || c.busy()) {
            return false;
        }
        removeClient(c, c.confirmed);
        courtesyYielded++;
        return true;
    }

    /**
     * Clients kept past their lease as a courtesy that were dropped because another client's request conflicted
     * with their state, or the table needed room.
     */
    public long courtesyYielded() {
        synchronized (lock) {
            return courtesyYielded;
        }
    }

    /** Clients whose lease ran out that the table keeps, with their state, as a courtesy. */
    public int courtesyClients() {
        synchronized (lock) {
            long now = clock.getAsLong();
            int n = 0;
            for (ClientRecord c : clients.values()) {
                if (c.leasePassed(now, leaseNanos) && courteous(c, now)) {
                    n++;
                }
            }
            return n;
        }
    }

    /**
     * The reply cache memory the live sessions reserved, out of {@link StateConfig#replyCacheBytes()} (a little more
     * when sessions got the one slot they always get with too little left).
     */
    public long replyCacheReserved() {
        synchronized (lock) {
            return replyCacheReserved;
        }
    }

    // --- internals, with the lock held ---

    private ClientRecord clientLocked(long clientId, long now) throws Nfs4Exception {
        if ((int) (clientId >>> 32) != bootId) {
            throw new Nfs4Exception(NFS4ERR_STALE_CLIENTID, "client " + Long.toHexString(clientId)
                    + " is of another server instance");
        }
        ClientRecord c = clients.get(clientId);
        if (c == null || expireIfDue(c, now)) {
            throw new Nfs4Exception(NFS4ERR_STALE_CLIENTID, "no client " + Long.toHexString(clientId));
        }
        return c;
    }

    private Session sessionLocked(byte[] sessionId, long now) throws Nfs4Exception {
        SessionId key = SessionId.lookupKey(sessionId);
        Session s = key == null ? null : sessions.get(key);
        if (s == null || expireIfDue(clients.get(s.clientId()), now)) {
            throw new Nfs4Exception(NFS4ERR_BADSESSION, "no session " + (key != null ? key : "of that length"));
        }
        return s;
    }

    /**
     * Drops {@code c} if its lease ran out, none of its requests executes, and it is not kept as a courtesy. A client
     * kept so is found by its own requests, which renew its lease: it carries on as if it had never been away.
     */
    private boolean expireIfDue(ClientRecord c, long now) {
        if (!c.leasePassed(now, leaseNanos) || c.busy() || courteous(c, now)) {
            return false;
        }
        removeClient(c, c.confirmed);
        return true;
    }

    /**
     * Whether {@code c}, whose lease ran out, is kept as a courtesy: confirmed, holding opens (what it would lose),
     * and not longer than the courtesy time past its lease.
     */
    private boolean courteous(ClientRecord c, long now) {
        return c.confirmed && now - c.lastRenewed - leaseNanos <= courtesyNanos
                && (opens.hasOpensLocked(c.id) || delegations.countLocked(c.id) > 0);
    }

    /**
     * What one slot of a session with {@code fore} can hold in its reply cache: a reply of
     * {@code ca_maxresponsesize_cached} and the slot's own record.
     */
    private static long replyCacheSlotBytes(ChannelAttributes fore) {
        return Integer.toUnsignedLong(fore.maxResponseSizeCached()) + SLOT_RECORD_BYTES;
    }

    /**
     * How many of the {@code asked} slots a new session gets: as many as take at most an eighth of the reply cache
     * memory left, and at least one (Linux's server shares its reply cache memory out the same way).
     */
    private int replyCacheSlots(int asked, long slotBytes) {
        long left = Math.max(0, config.replyCacheBytes() - replyCacheReserved);
        long fits = left / REPLY_CACHE_SHARE / slotBytes;
        return (int) Math.max(1, Math.min(asked, fits));
    }

    private void dropSessionLocked(Session s) {
        if (sessions.remove(s.id()) != null) {
            replyCacheReserved -= s.replyCacheBytes;
        }
        s.markDestroyed();
    }

    private void removeClient(ClientRecord c, boolean rememberExpired) {
        clients.remove(c.id);
        confirmedByOwner.remove(c.owner, c);
        unconfirmedByOwner.remove(c.owner, c);
        for (Session s : c.sessions.values()) {
            dropSessionLocked(s);
        }
        c.sessions.clear();
        opens.dropClientLocked(c.id);
        delegations.dropClientLocked(c.id);
        if (rememberExpired) {
            expired.add(c.id);
            if (expired.size() > EXPIRED_REMEMBERED) {
                Iterator<Long> oldest = expired.iterator();
                oldest.next();
                oldest.remove();
            }
        }
    }
}
