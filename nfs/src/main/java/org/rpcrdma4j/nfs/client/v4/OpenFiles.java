package org.rpcrdma4j.nfs.client.v4;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicLong;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.v4.LockRanges;
import org.rpcrdma4j.nfs.v4.Nfs4Status;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The files the client holds open, one open per file (RFC 8881 section 9): READ, WRITE and SETATTR of the size need
 * an open stateid, which the caller never sees.
 *
 * <h2>Life of an open</h2>
 * <ul>
 * <li>Opened on first use: the first READ of a file OPENs it by handle (CLAIM_FH) for reading, the first WRITE for
 * writing; a later use that needs more access OPENs it again with both (an upgrade of the same open, same stateid
 * "other"). OPEN with create and OPEN by name ({@code create}, {@code open} of the client) register the open they
 * made. One open owner serves the whole client; share deny is always NONE.</li>
 * <li>Used with seqid 0 ("the current one"), so upgrades never make an I/O in flight fail with OLD_STATEID.</li>
 * <li>Closed (CLOSE) when it has not been used for {@link Nfs41Options#openIdleTimeout()}, no I/O holds it and it
 * holds no byte-range lock, when the caller asks ({@link #close(FileHandle)}; waits for the I/O that holds it), and
 * when the client closes. A CLOSE of a file with locks unlocks the whole file first (LOCKU), as a process's locks go
 * when it closes the file.</li>
 * </ul>
 * Byte-range locks ({@link FileLocks}) hang off the open: its entry keeps the lock stateid and the ranges held.
 *
 * <h2>Recovery</h2>
 * When the client ID is lost (server restart, lease expired) every open is reclaimed on the new client ID before
 * RECLAIM_COMPLETE (OPEN CLAIM_PREVIOUS, which the server accepts in its grace period); one the server no longer lets
 * the client reclaim (NFS4ERR_NO_GRACE) is opened again by handle after RECLAIM_COMPLETE. An open the server answers
 * BAD_STATEID (or STALE_STATEID, OLD_STATEID, ADMIN_REVOKED, EXPIRED) for is opened again by handle, and the I/O
 * retried once. When SEQUENCE says the server revoked state of the client, {@link RevokedState} finds which
 * (TEST_STATEID), frees it (FREE_STATEID) and opens again what went; the opens and locks still good are kept.
 * An open that cannot be had again is forgotten: I/O still in flight on it goes out with the anonymous stateid, the
 * next use opens again, and either way the server's answer reaches the caller.
 * <p>
 * The byte-range locks of a reclaimed open are reclaimed after it (LOCK with reclaim set). Locks that cannot be had
 * again (an open not reclaimed, a LOCK refused, the server revoking the open or the lock stateid) are lost: the
 * file's READs, WRITEs and LOCKs then fail with {@link LocksLostException} until the caller closes it, so no one goes
 * on writing under a lock another client may hold by now.
 * <p>
 * Thread-safe: the table's monitor guards the entries; OPENs of one file are chained one after the other.
 */
final class OpenFiles implements Nfs41Session.StateRecovery {
    private static final Logger LOG = LoggerFactory.getLogger(OpenFiles.class);
    static final int READ = Nfs4Ops.SHARE_ACCESS_READ;
    static final int WRITE = Nfs4Ops.SHARE_ACCESS_WRITE;
    private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);
    private static final byte[] OWNER = "rpcrdma4j-open-owner".getBytes(StandardCharsets.US_ASCII);

    private final Nfs41Session session;
    private final long idleNanos;
    private final Map<FileHandle, Entry> entries = new HashMap<>();
    /** Delegations granted unasked whose DELEGRETURN is under way (seqid 0), each with the end of its return. */
    private final Map<Stateid4, CompletableFuture<Void>> returning = new java.util.concurrent.ConcurrentHashMap<>();
    private final List<Entry> toReopen = new ArrayList<>();
    private final AtomicLong delegationsReturned = new AtomicLong();
    private final RevokedState revokedState;

    /** One open file. */
    final class Entry implements StateidSource {
        final FileHandle fh;
        /** The open's stateid as the server last gave it; null when not open (yet, or any more). */
        volatile Stateid4 stateid;
        /** Share access granted (READ, WRITE bits); guarded by the table. */
        int access;
        int refs;
        long lastUsed = System.nanoTime();
        boolean closeRequested;
        boolean closing;
        /** Completes when the entry is closed; set once a close is asked for. */
        CompletableFuture<Void> closed;
        /** The OPENs of this file, one after the other. */
        CompletableFuture<Void> ready = DONE;
        /** The lock stateid of the client's lock owner on this file, as the server last gave it, or null. */
        volatile Stateid4 lockStateid;
        /** The byte ranges locked, to unlock at CLOSE and to reclaim after a server restart. */
        final LockRanges held = new LockRanges();
        /** The LOCKs and LOCKUs of this file, one after the other. */
        CompletableFuture<Void> locking = DONE;
        /** Locks of this file were lost in a recovery: its I/O fails until it is closed. */
        volatile boolean locksLost;

        Entry(FileHandle fh) {
            this.fh = fh;
        }

        /**
         * The open's stateid for an attempt of an I/O; when the file's locks were lost, the attempt fails with
         * {@link LocksLostException} instead (also an I/O sent before the recovery that lost them, and retried after).
         */
        @Override
        public Stateid4 stateid() {
            if (locksLost) {
                throw new CompletionException(new LocksLostException(fh));
            }
            Stateid4 s = stateid;
            return s == null ? Stateid4.ANONYMOUS : s.current();
        }
    }

    OpenFiles(Nfs41Session session, long idleNanos) {
        this.session = session;
        this.idleNanos = idleNanos;
        this.revokedState = new RevokedState(session, this);
    }

    RevokedState revokedState() {
        return revokedState;
    }

    byte[] owner() {
        return OWNER;
    }

    /** Delegations the server granted unasked and took back (DELEGRETURN answered NFS4_OK). */
    long delegationsReturned() {
        return delegationsReturned.get();
    }

    /** How many files are open (or being opened) now. */
    synchronized int size() {
        return entries.size();
    }

    /** The stateid of the client's open of {@code fh} as the server gave it, or null. */
    synchronized Stateid4 stateidOf(FileHandle fh) {
        Entry e = entries.get(fh);
        return e == null ? null : e.stateid;
    }

    /**
     * The entry of {@code fh}, held (see {@link #release}), when the client has one that is not closing (its open's
     * stateid may be away for a moment, being made again); else null.
     */
    synchronized Entry holdIfKnown(FileHandle fh) {
        Entry e = entries.get(fh);
        if (e == null || e.closing) {
            return null;
        }
        e.refs++;
        return e;
    }

    synchronized boolean isOpen(FileHandle fh) {
        Entry e = entries.get(fh);
        return e != null && e.stateid != null && !e.closing;
    }

    /**
     * The open of {@code fh} with at least {@code access}, opening or upgrading it first when needed. Hold it for
     * the I/O and {@link #release} it after.
     */
    CompletableFuture<Entry> acquire(FileHandle fh, int access) {
        Entry e;
        CompletableFuture<Void> ready;
        synchronized (this) {
            e = entries.get(fh);
            if (e != null && e.closing) {
                return e.closed.handle((v, x) -> null).thenCompose(v -> acquire(fh, access));
            }
            if (e == null) {
                e = new Entry(fh);
                entries.put(fh, e);
            }
            e.refs++;
            e.lastUsed = System.nanoTime();
            if (covers(e, access) && e.ready.isDone()) {
                return CompletableFuture.completedFuture(e);
            }
            Entry en = e;
            e.ready = e.ready.handle((v, x) -> null).thenComposeAsync(v -> openIfNeeded(en, access),
                    session.executor());
            ready = e.ready;
        }
        Entry en = e;
        return ready.handle((v, x) -> {
            if (x != null) {
                release(en);
                throw new CompletionException(Nfs41Session.unwrap(x));
            }
            return en;
        });
    }

    private static boolean covers(Entry e, int access) {
        return e.stateid != null && (e.access & access) == access;
    }

    private CompletableFuture<Void> openIfNeeded(Entry e, int access) {
        int want;
        synchronized (this) {
            if (covers(e, access)) {
                return DONE;
            }
            want = (e.stateid == null ? 0 : e.access) | access;
        }
        return openByHandle(e, want, null);
    }

    /** OPEN by handle of {@code e}'s file for {@code want}, on the session or, during a recovery, on {@code on}. */
    private CompletableFuture<Void> openByHandle(Entry e, int want, Nfs41Session.State on) {
        Compound c = new Compound("open").putfh(e.fh).add(Ops.Open.byHandle(want, OWNER));
        CompletableFuture<CompoundRes> f = on == null ? session.call(c) : session.callOn(on, c);
        return f.thenApply(r -> {
            checked(r);
            opened(e.fh, e, r.result(1), want);
            return null;
        });
    }

    /** Throws the failure of {@code r} for a stage of a future. */
    static CompoundRes checked(CompoundRes r) {
        try {
            return r.check();
        } catch (Nfs4StatusException e) {
            throw new CompletionException(e);
        }
    }

    /** The I/O on {@code e} is done. */
    void release(Entry e) {
        synchronized (this) {
            e.refs--;
            e.lastUsed = System.nanoTime();
            if (e.refs == 0 && e.closeRequested && !e.closing) {
                startCloseLocked(e);
            }
        }
    }

    /**
     * Records an open an OPEN by name made (with or without create) for {@code access}; a delegation granted with it
     * is returned at once.
     */
    void opened(FileHandle fh, Ops.OpenOk ok, int access) {
        Entry e;
        synchronized (this) {
            e = entries.get(fh);
            if (e == null || e.closing) {
                e = new Entry(fh);
                entries.put(fh, e);
            }
        }
        opened(fh, e, ok, access);
    }

    private void opened(FileHandle fh, Entry e, Ops.OpenOk ok, int access) {
        synchronized (this) {
            e.access = (e.stateid == null ? 0 : e.access) | access;
            e.stateid = ok.stateid();
            e.lastUsed = System.nanoTime();
        }
        if (ok.delegation() != null) {
            returnDelegation(fh, ok.delegation());
        }
    }

    /**
     * DELEGRETURN of a delegation granted unasked, and FREE_STATEID of it when the server revoked it meanwhile; until
     * both are done, {@link #closeAll} waits for them and a CB_RECALL of it is answered as under way.
     */
    private void returnDelegation(FileHandle fh, Stateid4 delegation) {
        Stateid4 key = delegation.current();
        CompletableFuture<Void> done = new CompletableFuture<>();
        returning.put(key, done);
        Compound c = new Compound("delegreturn").putfh(fh).add(Ops.StateOp.delegReturn(delegation))
                .releasingState();
        // not from here: the OPEN may complete on the transport's own thread, which may not make calls
        CompletableFuture.supplyAsync(() -> session.call(c), session.executor()).thenCompose(f -> f)
                .handleAsync((r, x) -> {
                    if (x == null && r.isOk()) {
                        delegationsReturned.incrementAndGet();
                    }
                    LOG.debug("returned an unasked delegation of {}: {}", fh,
                            x != null ? x.toString() : Nfs4Status.name(r.status()));
                    if (x == null && r.status() == Nfs4Status.NFS4ERR_DELEG_REVOKED) {
                        return freeRevoked(fh, delegation);
                    }
                    return DONE;
                }, session.executor()).thenCompose(f -> f).whenComplete((v, x) -> {
                    returning.remove(key);
                    done.complete(null);
                });
    }

    /**
     * FREE_STATEID of a delegation the server revoked before its DELEGRETURN arrived (it recalled it meanwhile): until
     * the client frees it, the server reports revoked state in every SEQUENCE (RFC 8881 section 18.46.3), as Linux's
     * knfsd does.
     */
    private CompletableFuture<Void> freeRevoked(FileHandle fh, Stateid4 delegation) {
        return session.call(new Compound("free_stateid").add(Ops.StateOp.freeStateid(delegation)).releasingState())
                .handle((r, x) -> {
                    LOG.debug("freed a revoked delegation of {}: {}", fh,
                            x != null ? x.toString() : Nfs4Status.name(r.status()));
                    return null;
                });
    }

    /**
     * CB_RECALL: whether {@code stateid} is a delegation being returned (this client holds none beyond that: it asks
     * for none and returns one granted anyway at once). The return already under way answers the recall.
     */
    @Override
    public boolean recall(Stateid4 stateid) {
        return returning.containsKey(stateid.current());
    }

    /** The open of {@code fh} when it is open for writing, else the anonymous stateid. */
    synchronized StateidSource writeStateOf(FileHandle fh) {
        Entry e = entries.get(fh);
        return e != null && !e.closing && e.stateid != null && (e.access & WRITE) != 0 ? e : StateidSource.ANONYMOUS;
    }

    /**
     * Opens {@code e}'s file again (its stateid was refused); I/O then retries with the new stateid. The locks of the
     * refused open went with it on the server: they are lost.
     */
    CompletableFuture<Void> reopen(Entry e) {
        locksLost(e, "the server refused the open's stateid");
        synchronized (this) {
            if (e.closing || entries.get(e.fh) != e) {
                return DONE;
            }
            int want = e.access != 0 ? e.access : READ;
            e.stateid = null;
            e.ready = e.ready.handle((v, x) -> null).thenComposeAsync(v -> openByHandle(e, want, null),
                    session.executor());
            return e.ready;
        }
    }

    /** Closes the open of {@code fh}, once the I/O holding it is done. Completes when closed (or not open). */
    synchronized CompletableFuture<Void> close(FileHandle fh) {
        Entry e = entries.get(fh);
        if (e == null) {
            return DONE;
        }
        return closeLocked(e);
    }

    private CompletableFuture<Void> closeLocked(Entry e) {
        if (e.closing) {
            return e.closed;
        }
        if (e.refs > 0) {
            e.closeRequested = true;
            if (e.closed == null) {
                e.closed = new CompletableFuture<>();
            }
            return e.closed;
        }
        return startCloseLocked(e);
    }

    private CompletableFuture<Void> startCloseLocked(Entry e) {
        e.closing = true;
        if (e.closed == null) {
            e.closed = new CompletableFuture<>();
        }
        CompletableFuture<Void> done = e.closed;
        e.ready.handle((v, x) -> null).thenComposeAsync(v -> sendClose(e), session.executor()).whenComplete((v, x) -> {
            synchronized (this) {
                if (entries.get(e.fh) == e) {
                    entries.remove(e.fh);
                }
            }
            done.complete(null);
        });
        return done;
    }

    private CompletableFuture<Void> sendClose(Entry e) {
        Stateid4 s = e.stateid;
        if (s == null) {
            return DONE;
        }
        return e.locking.handle((v, x) -> null).thenCompose(v -> unlockAll(e)).thenCompose(v -> {
            Compound c = new Compound("close").putfh(e.fh).add(Ops.StateOp.close(s)).releasingState();
            return session.call(c);
        }).handle((r, x) -> {
            if (x != null) {
                LOG.debug("CLOSE of {} failed: {}", e.fh, Nfs41Session.unwrap(x).toString());
            } else if (!r.isOk()) {
                LOG.debug("CLOSE of {}: {}", e.fh, Nfs4Status.name(r.status()));
            }
            e.stateid = null;
            return null;
        });
    }

    /** LOCKU of the whole file when the entry holds locks (before its CLOSE); its result only logged. */
    private CompletableFuture<Void> unlockAll(Entry e) {
        synchronized (this) {
            if (e.held.isEmpty() || e.lockStateid == null) {
                e.held.clear();
                return DONE;
            }
            e.held.clear();
        }
        Compound c = new Compound("locku").putfh(e.fh).add(new LockOps.LockU(e, 0, LockRanges.TO_END))
                .releasingState();
        return session.call(c).handle((r, x) -> {
            if (x != null || !r.isOk()) {
                LOG.debug("unlocking {} before its CLOSE: {}", e.fh,
                        x != null ? Nfs41Session.unwrap(x).toString() : Nfs4Status.name(r.status()));
            }
            e.lockStateid = null;
            return null;
        });
    }

    /** The locks of {@code e} are gone from the server: its I/O fails until it is closed, if it held any. */
    private void locksLost(Entry e, String why) {
        synchronized (this) {
            e.lockStateid = null;
            if (e.held.isEmpty()) {
                return;
            }
            e.held.clear();
            e.locksLost = true;
        }
        LOG.warn("byte-range locks of {} were lost ({}): its I/O fails until it is closed", e.fh, why);
    }

    // ========================================================================================= StateRecovery

    @Override
    public void tick() {
        if (idleNanos <= 0) {
            return;
        }
        long now = System.nanoTime();
        synchronized (this) {
            for (Entry e : new ArrayList<>(entries.values())) {
                if (e.refs == 0 && !e.closing && e.ready.isDone() && now - e.lastUsed >= idleNanos && e.held.isEmpty()
                        && !e.locksLost) {
                    startCloseLocked(e);
                }
            }
        }
    }

    /**
     * Gives back everything the client holds, each file's locks before its open (LOCKU, then CLOSE), and waits for the
     * delegations being returned: what the session sends before DESTROY_SESSION and DESTROY_CLIENTID.
     */
    @Override
    public CompletableFuture<Void> closeAll() {
        List<CompletableFuture<Void>> all = new ArrayList<>(returning.values());
        synchronized (this) {
            for (Entry e : new ArrayList<>(entries.values())) {
                all.add(closeLocked(e));
            }
        }
        return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new));
    }

    @Override
    public CompletableFuture<Void> reclaim(Nfs41Session.State s) {
        List<Entry> open = new ArrayList<>();
        List<Integer> access = new ArrayList<>();
        synchronized (this) {
            toReopen.clear();
            for (Entry e : entries.values()) {
                if (e.stateid != null && !e.closing) {
                    open.add(e);
                    access.add(e.access);
                }
                e.stateid = null; // the old client ID's state is gone with it
                e.lockStateid = null;
            }
        }
        List<CompletableFuture<Void>> all = new ArrayList<>();
        for (int i = 0; i < open.size(); i++) {
            Entry e = open.get(i);
            int want = access.get(i);
            Compound c = new Compound("open_reclaim").putfh(e.fh).add(Ops.Open.reclaim(want, OWNER));
            all.add(session.callOn(s, c).handle((r, x) -> {
                if (x != null) {
                    LOG.info("reclaiming the open of {} failed: {}", e.fh, Nfs41Session.unwrap(x).toString());
                    locksLost(e, "the open was not reclaimed");
                } else if (r.isOk()) {
                    opened(e.fh, e, r.result(1), want);
                    return relock(e, s);
                } else if (r.status() == Nfs4Status.NFS4ERR_NO_GRACE || r.status() == Nfs4Status.NFS4ERR_RECLAIM_BAD) {
                    synchronized (this) {
                        e.access = want;
                        toReopen.add(e);
                    }
                    locksLost(e, "the server would not let the open be reclaimed: " + Nfs4Status.name(r.status()));
                } else {
                    LOG.info("reclaiming the open of {}: {}", e.fh, Nfs4Status.name(r.status()));
                    locksLost(e, "the open was not reclaimed: " + Nfs4Status.name(r.status()));
                }
                return DONE;
            }).thenCompose(f -> f));
        }
        return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new));
    }

    /**
     * Reclaims the byte-range locks of a reclaimed open, range by range, on the recovery's client ID: LOCK with
     * reclaim set, the first for the lock owner new to the server. Any refusal loses the file's locks.
     */
    private CompletableFuture<Void> relock(Entry e, Nfs41Session.State s) {
        List<LockRanges.Range> ranges;
        synchronized (this) {
            ranges = e.held.ranges();
        }
        CompletableFuture<Void> chain = DONE;
        for (LockRanges.Range range : ranges) {
            chain = chain.thenCompose(v -> {
                LockOps.Lock op = new LockOps.Lock(e, LockType.fromWire(range.type()), true, range.first(),
                        range.length(), FileLocks.OWNER);
                return session.callOn(s, new Compound("lock_reclaim").putfh(e.fh).add(op)).thenApply(r -> {
                    Stateid4 got = checked(r).result(1);
                    synchronized (this) {
                        e.lockStateid = got;
                    }
                    return (Void) null;
                });
            });
        }
        return chain.handle((v, x) -> {
            if (x != null) {
                locksLost(e, "reclaiming them failed: " + Nfs41Session.unwrap(x));
            }
            return null;
        });
    }

    @Override
    public CompletableFuture<Void> afterReclaimComplete(Nfs41Session.State s) {
        List<Entry> list;
        synchronized (this) {
            list = new ArrayList<>(toReopen);
            toReopen.clear();
        }
        List<CompletableFuture<Void>> all = new ArrayList<>();
        for (Entry e : list) {
            int want;
            synchronized (this) {
                want = e.access;
            }
            all.add(openByHandle(e, want, s).handle((v, x) -> {
                if (x != null) {
                    LOG.info("opening {} again failed: {}", e.fh, Nfs41Session.unwrap(x).toString());
                }
                return null;
            }));
        }
        return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new));
    }

    /**
     * The server revoked state of the client: {@link RevokedState} finds which stateids (TEST_STATEID), frees them and
     * makes those opens again, keeping the rest. When only delegations or layouts went (RECALLABLE_STATE_REVOKED
     * alone), nothing changes: this client keeps neither (a delegation it returned too late is freed when DELEGRETURN
     * says so).
     */
    @Override
    public void stateRevoked(int flags) {
        if ((flags & ~Nfs4Ops.SEQ4_STATUS_RECALLABLE_STATE_REVOKED) == 0) {
            LOG.debug("the server revoked delegations or layouts of this client (status flags 0x{})",
                    Integer.toHexString(flags));
            return;
        }
        revokedState.reported(flags);
    }

    /** The open and lock stateids the client holds now. */
    synchronized List<RevokedState.Held> stateids() {
        List<RevokedState.Held> all = new ArrayList<>();
        for (Entry e : entries.values()) {
            if (e.closing) {
                continue;
            }
            if (e.stateid != null) {
                all.add(new RevokedState.Held(e, e.stateid, false));
            }
            if (e.lockStateid != null) {
                all.add(new RevokedState.Held(e, e.lockStateid, true));
            }
        }
        return all;
    }

    /**
     * The server revoked {@code h}'s stateid (or knows it no more; {@code why}): a lock stateid's locks are lost, an
     * open is made again (and its locks are lost). Nothing happens when the entry holds another state by now.
     * Completes when that is done (a failure to open again is logged).
     */
    CompletableFuture<Void> revoked(RevokedState.Held h, String why) {
        Entry e = h.entry();
        synchronized (this) {
            Stateid4 now = h.lock() ? e.lockStateid : e.stateid;
            if (e.closing || entries.get(e.fh) != e || now == null
                    || !java.util.Arrays.equals(now.other(), h.stateid().other())) {
                return DONE;
            }
        }
        if (h.lock()) {
            locksLost(e, "the server revoked the lock stateid: " + why);
            return DONE;
        }
        LOG.info("the server revoked the open of {} ({}): opening it again", e.fh, why);
        return reopen(e).handle((v, x) -> {
            if (x != null) {
                LOG.info("opening {} again failed: {}", e.fh, Nfs41Session.unwrap(x).toString());
            }
            return null;
        });
    }
}
