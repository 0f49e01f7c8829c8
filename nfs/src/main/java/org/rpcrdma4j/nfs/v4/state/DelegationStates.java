package org.rpcrdma4j.nfs.v4.state;

import static org.rpcrdma4j.nfs.v4.Nfs4Status.*;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.v4.Nfs4Exception;

/**
 * The read delegations of a {@link ClientTable}'s clients (RFC 8881 section 10.4): a client that holds one on a file
 * may open and read it, and trust what it cached of it, without asking the server, until the server recalls it.
 * Thread-safe under the table's lock; everything of a client goes with its client record.
 *
 * <p><b>Granting.</b> {@link #grantRead} grants one, when asked, only while no open of the file may write (of any
 * client), none of the file's delegations is being recalled, the client has none of the file yet, a back channel of
 * the client works (the server could not recall it else), the grace period is over, the file is quiet (below), and
 * the client holds fewer than {@link StateConfig#maxOpensPerClient()}. Whether to ask at all is the COMPOUND server's
 * choice.
 *
 * <p><b>Conflicts.</b> A change of a file by anyone but the holder (an OPEN that may write or denies reads, a WRITE, a
 * SETATTR, a REMOVE or RENAME of one of its names, a LINK to it; from NFSv4 or NFSv3) conflicts with its delegations:
 * {@link #checkChange} (and {@link OpenStates#open} and {@link OpenStates#checkIo} for writes, under the same lock hold
 * as the open or I/O check, so that no delegation is granted between the two) asks for their recall once and answers
 * NFS4ERR_DELAY until they are returned or revoked. A holder kept only as a courtesy (its lease ran out) is dropped
 * instead, as for any other conflict. The {@link Recaller} sends the CB_RECALLs; it is called with the lock held and
 * must only hand the work off.
 *
 * <p><b>Quiet files.</b> A file is not delegated while another client's change of it may be under way, nor soon after
 * a recall: every change notes its file first ({@link #checkChange}, and the open and I/O checks), which keeps it
 * from new delegations to anyone but the changing client for {@link #CHANGE_QUIET_NANOS} (a client's own change does
 * not keep a delegation from it: it knows of it), and a recall keeps it from everyone for
 * {@link #RECALL_QUIET_NANOS} (as Linux's server holds back delegations of a file recalled lately, so that a writer
 * is not starved by readers that get a new one each time). {@link #grantRead} looks again once it has made a delegation, and takes it back if a change noted its
 * file meanwhile: the change, which looks for delegations after it noted its file, either sees the delegation or is
 * seen. Noting costs nothing while the server grants none ({@link #granting}).
 *
 * <p><b>Revocation.</b> A delegation recalled longer ago than the lease and not returned is revoked
 * ({@link ClientTable#expire()}, on the laundromat's timer), as is one whose recall cannot reach its client
 * ({@link #revoke}). Its stateid then answers NFS4ERR_DELEG_REVOKED, the client's SEQUENCE replies carry
 * SEQ4_STATUS_RECALLABLE_STATE_REVOKED, and FREE_STATEID lets it go (at most 1024 are kept per client, the oldest let
 * go first).
 *
 * <p>Delegation stateids are made like opens' ({@link OwnedState}), with bit 30 of the number set; their seqid
 * stays 1.
 */
public final class DelegationStates {
    /** The bit of a delegation's number; open numbers stay below it, lock numbers have the bit above it. */
    static final int NUMBER_BIT = 0x40000000;
    static final int REVOKED_KEPT = 1024;
    /** How long a file changed (or about to be) gets no new delegation: longer than any one change takes. */
    static final long CHANGE_QUIET_NANOS = 2_000_000_000L;
    /** How long a file whose delegation was recalled gets no new one. */
    static final long RECALL_QUIET_NANOS = 30_000_000_000L;
    /** Quiet files kept before the expired ones are swept out. */
    static final int QUIET_SWEEP = 4096;

    /** Sends CB_RECALLs: called with the table's lock held, so it must only hand the recall to another thread. */
    @FunctionalInterface
    public interface Recaller {
        void recall(Recall recall);
    }

    private final ClientTable table;
    private final OpenStates opens;
    private final StateIndex<DelegationState> index = new StateIndex<>(NUMBER_BIT, NUMBER_BIT - 1);
    /** Numbers of the revoked delegations each client has not freed yet, oldest first. */
    private final Map<Long, Set<Integer>> revoked = new HashMap<>();
    private volatile Recaller recaller = r -> { };
    /** Until when (the table's clock) each file gets no new delegation, and for whom. */
    private final java.util.concurrent.ConcurrentHashMap<FileHandle, Quiet> quiet =
            new java.util.concurrent.ConcurrentHashMap<>();
    /** A {@link Quiet#changer} that stands for more than one client, or for a recall: no client is spared. */
    private static final long ANYONE = -1;

    /** Until when a file gets no new delegation, and the one client whose changes these are (spared), or ANYONE. */
    private static final class Quiet {
        long until;
        long changer;
    }
    private volatile boolean granting;
    /** How many delegations are held: read without the lock to skip the look-up of a change when there are none. */
    private volatile int held;
    private long granted;
    private long recalls;
    private long returned;
    private long revocations;

    DelegationStates(ClientTable table, OpenStates opens) {
        this.table = table;
        this.opens = opens;
    }

    /** Where recalls go from now on. */
    public void recaller(Recaller r) {
        this.recaller = Objects.requireNonNull(r, "recaller");
    }

    /** Whether delegations may be granted at all: until then changes note no files. */
    public void granting(boolean may) {
        this.granting = may;
    }

    /** Whether delegations may be granted ({@link #granting(boolean)}): changes then note their files. */
    public boolean granting() {
        return granting;
    }

    /** Whether any delegation is held: when none is, no change needs to look for conflicts. */
    public boolean any() {
        return held > 0;
    }

    /**
     * A read delegation of {@code file} for {@code clientId}, or null when none may be granted now (see the class
     * documentation).
     *
     * @param grantedBy the OPEN asking, named in a later recall; null when not known
     */
    public Stateid grantRead(long clientId, FileHandle file, ReferringCall grantedBy) {
        Objects.requireNonNull(file, "file");
        synchronized (table.lock) {
            ClientRecord c = table.clientOrNullLocked(clientId);
            if (c == null || !c.confirmed || table.inGrace() || !table.callbackPathLocked(clientId)
                    || index.count(clientId) >= table.config().maxOpensPerClient()
                    || index.byOwnerFile(clientId, DelegationState.NO_OWNER, file) != null
                    || opens.writableLocked(file)) {
                return null;
            }
            for (DelegationState d : index.onFile(file)) {
                if (d.recalled) {
                    return null;
                }
            }
            if (quietNow(file, clientId)) {
                return null;
            }
            DelegationState d = new DelegationState(index.newNumber(), clientId, file, grantedBy);
            index.add(d);
            held = index.size();
            if (quietNow(file, clientId)) {
                // a change noted the file after the look above and may have missed the delegation: none
                removeLocked(d);
                return null;
            }
            granted++;
            return d.stateid();
        }
    }

    /**
     * Before a change of {@code file} by {@code clientId} (0: not an NFSv4 client): NFS4ERR_DELAY while another
     * client holds a delegation of it, whose recall this asks for if it was not asked yet.
     */
    public void checkChange(FileHandle file, long clientId) throws Nfs4Exception {
        noteChange(file, CHANGE_QUIET_NANOS, clientId);
        if (held == 0) {
            return;
        }
        synchronized (table.lock) {
            checkChangeLocked(file, clientId);
        }
    }

    /** {@link #checkChange} with the table's lock held. */
    void checkChangeLocked(FileHandle file, long clientId) throws Nfs4Exception {
        noteChange(file, CHANGE_QUIET_NANOS, clientId);
        if (conflictLocked(file, clientId, true)) {
            throw new Nfs4Exception(NFS4ERR_DELAY, "a delegation of the file is being recalled");
        }
    }

    /**
     * Whether another client than {@code clientId} holds a delegation of {@code file}, dropping holders kept as a
     * courtesy; with {@code recall}, asks for the recall of those not recalled yet.
     */
    private boolean conflictLocked(FileHandle file, long clientId, boolean recall) {
        boolean conflict = false;
        for (DelegationState d : List.copyOf(index.onFile(file))) {
            if (d.clientId == clientId || table.yieldCourtesyLocked(d.clientId)) {
                continue;
            }
            conflict = true;
            if (recall && !d.recalled) {
                noteChange(file, RECALL_QUIET_NANOS, ANYONE);
                d.recalled = true;
                d.recalledAt = table.now();
                recalls++;
                recaller.recall(new Recall(d.clientId, d.stateid(), d.file, d.grantedBy));
            }
        }
        return conflict;
    }

    /**
     * Waits at most {@code timeoutNanos} for the delegations of {@code file} held by others than {@code clientId}
     * to be returned or revoked; whether none is left.
     */
    public boolean awaitReturn(FileHandle file, long clientId, long timeoutNanos) throws InterruptedException {
        long end = System.nanoTime() + timeoutNanos;
        synchronized (table.lock) {
            while (conflictLocked(file, clientId, false)) {
                long left = end - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                table.lock.wait(Math.max(1, left / 1_000_000), 0);
            }
            return true;
        }
    }

    /** Whether {@code recall}'s delegation is still held, and recalled: a recall to send or send again. */
    public boolean stillRecalled(Recall recall) {
        synchronized (table.lock) {
            DelegationState d = index.byNumber(recall.stateid().otherWord(2));
            return d != null && d.clientId == recall.clientId() && d.recalled;
        }
    }

    /**
     * An OPEN that claims the delegation {@code stateid} (CLAIM_DELEGATE_CUR, CLAIM_DELEG_CUR_FH): it must be one of
     * {@code clientId}'s on {@code file}, recalled or not.
     *
     * @throws Nfs4Exception as {@link #delegReturn}
     */
    public void checkHeld(long clientId, Stateid stateid, FileHandle file) throws Nfs4Exception {
        synchronized (table.lock) {
            resolveLocked(clientId, stateid, file);
        }
    }

    /**
     * DELEGRETURN (RFC 8881 section 18.6): the delegation goes.
     *
     * @throws Nfs4Exception NFS4ERR_DELEG_REVOKED for one revoked (FREE_STATEID frees it); else as
     *                       {@link OpenStates#checkIo} for a stateid naming no delegation of {@code file}
     */
    public void delegReturn(long clientId, Stateid stateid, FileHandle file) throws Nfs4Exception {
        synchronized (table.lock) {
            DelegationState d = resolveLocked(clientId, stateid, file);
            removeLocked(d);
            returned++;
        }
    }

    /**
     * Revokes {@code recall}'s delegation now, if it is still held: its recall cannot reach the client. False when it
     * went meanwhile.
     */
    public boolean revoke(Recall recall) {
        synchronized (table.lock) {
            DelegationState d = index.byNumber(recall.stateid().otherWord(2));
            if (d == null || d.clientId != recall.clientId()) {
                return false;
            }
            revokeLocked(d);
            return true;
        }
    }

    /** Delegations granted, recalls asked for, delegations returned and revoked, since the table was made. */
    public long[] counts() {
        synchronized (table.lock) {
            return new long[] {granted, recalls, returned, revocations};
        }
    }

    /** The delegations {@code clientId} holds (revoked ones not counted). */
    public int count(long clientId) {
        synchronized (table.lock) {
            return index.count(clientId);
        }
    }

    /** The delegations held, of every client. */
    public int count() {
        return held;
    }

    /**
     * Keeps {@code file} from new delegations for {@code nanos} from now (or longer, if it is kept so already), for
     * every client but {@code changer} (ANYONE: for all).
     */
    private void noteChange(FileHandle file, long nanos, long changer) {
        if (!granting) {
            return;
        }
        long now = table.now();
        long until = now + nanos;
        while (true) {
            Quiet q = quiet.get(file);
            if (q == null) {
                if (quiet.size() >= QUIET_SWEEP) {
                    quiet.values().removeIf(x -> quietUntil(x) - now < 0);
                }
                q = quiet.computeIfAbsent(file, f -> new Quiet());
            }
            synchronized (q) {
                if (q.until - now <= 0) {
                    q.until = until;
                    q.changer = changer;
                } else {
                    q.until = q.until - until < 0 ? until : q.until;
                    q.changer = q.changer == changer ? changer : ANYONE;
                }
            }
            if (quiet.get(file) == q) {
                return; // not swept out meanwhile
            }
        }
    }

    private static long quietUntil(Quiet q) {
        synchronized (q) {
            return q.until;
        }
    }

    /** Whether {@code file} gets no new delegation for {@code clientId} now. */
    private boolean quietNow(FileHandle file, long clientId) {
        Quiet q = quiet.get(file);
        if (q == null) {
            return false;
        }
        synchronized (q) {
            return q.until - table.now() > 0 && q.changer != clientId;
        }
    }

    // --- for the table and OpenStates, with the lock held ---

    static boolean isDelegationNumber(int number) {
        return (number & (LockStates.NUMBER_BIT | NUMBER_BIT)) == NUMBER_BIT;
    }

    /** The live delegation of {@code clientId} that {@code stateid} names, on {@code file} unless that is null. */
    DelegationState resolveLocked(long clientId, Stateid stateid, FileHandle file) throws Nfs4Exception {
        opens.checkStateidOwnerLocked(clientId, stateid);
        int number = stateid.otherWord(2);
        Set<Integer> gone = revoked.get(clientId);
        if (gone != null && gone.contains(number)) {
            throw new Nfs4Exception(NFS4ERR_DELEG_REVOKED, stateid + " was revoked");
        }
        return index.resolve(clientId, stateid, file, "delegation");
    }

    /** FREE_STATEID of a delegation stateid: a revoked one goes; a live one is NFS4ERR_LOCKS_HELD. */
    int freeLocked(long clientId, Stateid stateid) {
        Set<Integer> gone = revoked.get(clientId);
        if (gone != null && gone.remove(stateid.otherWord(2))) {
            if (gone.isEmpty()) {
                revoked.remove(clientId);
            }
            return NFS4_OK;
        }
        try {
            resolveLocked(clientId, stateid, null);
            return NFS4ERR_LOCKS_HELD;
        } catch (Nfs4Exception e) {
            return e.status();
        }
    }

    /** Revokes the delegations recalled longer than {@code leaseNanos} ago; how many. */
    int revokeOverdueLocked(long now, long leaseNanos) {
        List<DelegationState> overdue = new ArrayList<>();
        for (DelegationState d : index.all()) {
            if (d.recalled && now - d.recalledAt > leaseNanos) {
                overdue.add(d);
            }
        }
        overdue.forEach(this::revokeLocked);
        return overdue.size();
    }

    boolean hasRevokedLocked(long clientId) {
        return revoked.containsKey(clientId);
    }

    int countLocked(long clientId) {
        return index.count(clientId);
    }

    void dropClientLocked(long clientId) {
        index.ofClient(clientId).forEach(this::removeLocked);
        revoked.remove(clientId);
    }

    private void revokeLocked(DelegationState d) {
        removeLocked(d);
        revocations++;
        Set<Integer> gone = revoked.computeIfAbsent(d.clientId, id -> new LinkedHashSet<>());
        gone.add(d.number);
        if (gone.size() > REVOKED_KEPT) {
            Iterator<Integer> oldest = gone.iterator();
            oldest.next();
            oldest.remove();
        }
    }

    private void removeLocked(DelegationState d) {
        index.remove(d);
        held = index.size();
        table.lock.notifyAll();
    }
}
