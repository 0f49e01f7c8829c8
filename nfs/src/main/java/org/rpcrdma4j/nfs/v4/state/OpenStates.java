package org.rpcrdma4j.nfs.v4.state;

import static org.rpcrdma4j.nfs.v4.Nfs4Status.*;

import java.util.Objects;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.v4.Nfs4Exception;

/**
 * The open stateids of a {@link ClientTable}'s clients (RFC 8881 sections 8.2, 9.7, 18.16, 18.2, 18.18, 18.38,
 * 18.48): one open per client, open owner and file, whose share reservation is the union of the OPENs that made or
 * upgraded it. Thread-safe under the table's lock; everything of a client goes with its client record.
 *
 * <p>Every operation on a stateid takes the client ID of the COMPOUND's session: in NFSv4.1 a stateid is only good
 * for the client that was given it, and another client's is NFS4ERR_BAD_STATEID. The order of the checks: a special
 * value, then the boot id (NFS4ERR_STALE_STATEID), then an expired owner (NFS4ERR_EXPIRED), then the client, the
 * open, the seqid and the file.
 *
 * <p>The lock stateids derived from the opens are {@link LockStates}'s, reached through {@link #locks()}: wherever a
 * stateid is taken here (I/O, TEST_STATEID, FREE_STATEID) a lock stateid is good too, and CLOSE ends the open's.
 */
public final class OpenStates {
    public static final int SHARE_ACCESS_READ = 1;
    public static final int SHARE_ACCESS_WRITE = 2;
    public static final int SHARE_ACCESS_BOTH = 3;
    public static final int SHARE_DENY_NONE = 0;
    public static final int SHARE_DENY_READ = 1;
    public static final int SHARE_DENY_WRITE = 2;
    public static final int SHARE_DENY_BOTH = 3;

    private static final int OWNER_LIMIT = 1024;

    private final ClientTable table;
    private final StateIndex<OpenState> index = new StateIndex<>(0, DelegationStates.NUMBER_BIT - 1);
    private final LockStates locks;
    private final DelegationStates delegations;

    OpenStates(ClientTable table) {
        this.table = table;
        this.locks = new LockStates(table, this);
        this.delegations = new DelegationStates(table, this);
    }

    /** The read delegations of the table's clients. */
    DelegationStates delegations() {
        return delegations;
    }

    /** The byte-range locks of the opens' owners. */
    public LockStates locks() {
        return locks;
    }

    /**
     * OPEN's state change: a new open (seqid 1), or the client's open of the same owner and file upgraded to the
     * union of both reservations (seqid + 1). The want and signal bits above the access mode are ignored here (a
     * delegation is {@link DelegationStates#grantRead}'s). The grace check is {@link ClientTable#checkOpen}'s, before
     * this.
     *
     * @throws Nfs4Exception NFS4ERR_STALE_CLIENTID if the client ID is not a live confirmed one; NFS4ERR_INVAL for an
     *                       access of none, a deny above BOTH or an owner over 1024 bytes; NFS4ERR_SHARE_DENIED when
     *                       another owner's open denies what this one asks or asks what this one denies;
     *                       NFS4ERR_SERVERFAULT for a new open of a client that holds
     *                       {@link StateConfig#maxOpensPerClient()} already; NFS4ERR_DELAY for an open that may write
     *                       or denies reads while another client holds a delegation of the file (its recall asked)
     */
    public Stateid open(long clientId, byte[] openOwner, FileHandle file, int shareAccess, int shareDeny)
            throws Nfs4Exception {
        Objects.requireNonNull(file, "file");
        int access = shareAccess & SHARE_ACCESS_BOTH;
        if (access == 0 || shareDeny < 0 || shareDeny > SHARE_DENY_BOTH) {
            throw new Nfs4Exception(NFS4ERR_INVAL, "share access " + Integer.toHexString(shareAccess) + ", deny "
                    + Integer.toHexString(shareDeny));
        }
        if (openOwner == null || openOwner.length > OWNER_LIMIT) {
            throw new Nfs4Exception(NFS4ERR_INVAL, "an open owner has at most " + OWNER_LIMIT + " bytes");
        }
        synchronized (table.lock) {
            ClientRecord c = table.clientOrNullLocked(clientId);
            if (c == null || !c.confirmed) {
                throw new Nfs4Exception(NFS4ERR_STALE_CLIENTID, "no confirmed client " + Long.toHexString(clientId));
            }
            Bytes owner = new Bytes(openOwner);
            OpenState existing = index.byOwnerFile(clientId, owner, file);
            int most = table.config().maxOpensPerClient();
            if (existing == null && index.count(clientId) >= most) {
                // before any conflict is settled: a refused OPEN takes nobody's state
                throw new Nfs4Exception(NFS4ERR_SERVERFAULT, "a client may hold at most " + most + " opens");
            }
            for (OpenState o = conflicting(file, existing, access, shareDeny); o != null;
                    o = conflicting(file, existing, access, shareDeny)) {
                if (o.clientId == clientId || !table.yieldCourtesyLocked(o.clientId)) {
                    throw new Nfs4Exception(NFS4ERR_SHARE_DENIED, "access " + access + " deny " + shareDeny
                            + " against another open's access " + o.access + " deny " + o.deny);
                }
            }
            if ((access & SHARE_ACCESS_WRITE) != 0 || (shareDeny & SHARE_DENY_READ) != 0) {
                delegations.checkChangeLocked(file, clientId);
            }
            if (existing != null) {
                existing.access |= access;
                existing.deny |= shareDeny;
                existing.bump();
                return existing.stateid();
            }
            OpenState o = new OpenState(index.newNumber(), clientId, owner, file, access, shareDeny);
            index.add(o);
            return o.stateid();
        }
    }

    /** An owner's open of a file as it was before an OPEN that may have to be taken back ({@link #withdraw}). */
    public record Held(int access, int deny, int seqid) {
    }

    /** What {@code openOwner} of {@code clientId} holds on {@code file} now; null when it has no open of it. */
    public Held held(long clientId, byte[] openOwner, FileHandle file) {
        synchronized (table.lock) {
            OpenState o = index.byOwnerFile(clientId, new Bytes(openOwner), file);
            return o == null ? null : new Held(o.access, o.deny, o.seqid);
        }
    }

    /**
     * Takes back what {@link #open} made or added (the stateid {@code opened}) for an OPEN that failed after it: the
     * open goes when the owner had none of the file before ({@code before} null), else gets back its reservation and
     * seqid. Nothing when the open changed since.
     */
    public void withdraw(long clientId, byte[] openOwner, FileHandle file, Stateid opened, Held before) {
        synchronized (table.lock) {
            OpenState o = index.byOwnerFile(clientId, new Bytes(openOwner), file);
            if (o == null || o.seqid != opened.seqid()) {
                return;
            }
            if (before == null) {
                locks.dropOpenLocked(o);
                index.remove(o);
            } else {
                o.access = before.access();
                o.deny = before.deny();
                o.seqid = before.seqid();
            }
        }
    }

    /**
     * Refuses, before an OPEN changes anything, an open the client has no room for: NFS4ERR_SERVERFAULT when it
     * holds {@link StateConfig#maxOpensPerClient()} opens and none of {@code openOwner} and {@code file} (null: a
     * file that does not exist yet) to upgrade. {@link #open} checks again.
     */
    public void checkRoom(long clientId, byte[] openOwner, FileHandle file) throws Nfs4Exception {
        synchronized (table.lock) {
            int most = table.config().maxOpensPerClient();
            if (index.count(clientId) >= most
                    && (file == null || index.byOwnerFile(clientId, new Bytes(openOwner), file) == null)) {
                throw new Nfs4Exception(NFS4ERR_SERVERFAULT, "a client may hold at most " + most + " opens");
            }
        }
    }

    /**
     * Whether READ ({@code write} false) or WRITE / SETATTR of the size may use {@code stateid} on {@code file}. The
     * anonymous stateid (and the READ bypass stateid for a write) is subject to share reservations (NFS4ERR_LOCKED
     * against an open denying that access) and, as it may conflict with state not yet reclaimed, refused in grace
     * (NFS4ERR_GRACE); the READ bypass stateid reads regardless. A READ through a write-only open is allowed.
     *
     * A lock stateid stands for the open it was made through.
     *
     * @throws Nfs4Exception NFS4ERR_BAD_STATEID for another special value, an unknown or closed open, another
     *                       client's, another file or a seqid newer than the open's (or lock state's); NFS4ERR_OLD_STATEID for an
     *                       older seqid (0 means the current one); NFS4ERR_STALE_STATEID for one of another server
     *                       instance; NFS4ERR_EXPIRED for one of a client whose lease ran out; NFS4ERR_OPENMODE for a
     *                       write through a read-only open or a read delegation; NFS4ERR_DELEG_REVOKED for a delegation
     *                       revoked; NFS4ERR_DELAY for a write while another client holds a delegation of the file
     */
    public void checkIo(long clientId, Stateid stateid, FileHandle file, boolean write) throws Nfs4Exception {
        synchronized (table.lock) {
            if (stateid.isAnonymous() || stateid.isReadBypass()) {
                if (stateid.isReadBypass() && !write) {
                    return;
                }
                if (table.inGrace()) {
                    throw new Nfs4Exception(NFS4ERR_GRACE, "I/O with a special stateid in the grace period");
                }
                int deny = write ? SHARE_DENY_WRITE : SHARE_DENY_READ;
                for (OpenState o = denying(file, deny); o != null; o = denying(file, deny)) {
                    if (!table.yieldCourtesyLocked(o.clientId)) {
                        throw new Nfs4Exception(NFS4ERR_LOCKED, "an open denies " + (write ? "writes" : "reads"));
                    }
                }
                if (write) {
                    delegations.checkChangeLocked(file, clientId);
                }
                return;
            }
            int number = stateid.otherWord(2);
            if (DelegationStates.isDelegationNumber(number)) {
                delegations.resolveLocked(clientId, stateid, file);
                if (write) {
                    throw new Nfs4Exception(NFS4ERR_OPENMODE, "a read delegation does not write");
                }
                return;
            }
            OpenState o = LockStates.isLockNumber(number)
                    ? locks.resolveLocked(clientId, stateid, file).open : resolveOpenLocked(clientId, stateid, file);
            if (write && (o.access & SHARE_ACCESS_WRITE) == 0) {
                throw new Nfs4Exception(NFS4ERR_OPENMODE, "the open is for reading only");
            }
            if (write) {
                delegations.checkChangeLocked(file, clientId);
            }
        }
    }

    /**
     * CLOSE: removes the open, and the lock stateids made through it with their locks (as Linux's server does; its
     * client unlocks before it closes). Returns {@link Stateid#INVALID}, as RFC 8881 section 18.2.4 asks of NFSv4.1
     * servers.
     *
     * @throws Nfs4Exception as {@link #checkIo} does for a stateid naming no open of {@code file}
     */
    public Stateid close(long clientId, Stateid stateid, FileHandle file) throws Nfs4Exception {
        synchronized (table.lock) {
            OpenState o = resolveOpenLocked(clientId, stateid, file);
            locks.dropOpenLocked(o);
            index.remove(o);
            return Stateid.INVALID;
        }
    }

    /**
     * OPEN_DOWNGRADE (RFC 8881 section 18.18): the open's reservation becomes {@code shareAccess} and
     * {@code shareDeny}, which must be within what it holds (else NFS4ERR_INVAL); seqid + 1.
     */
    public Stateid openDowngrade(long clientId, Stateid stateid, FileHandle file, int shareAccess, int shareDeny)
            throws Nfs4Exception {
        synchronized (table.lock) {
            OpenState o = resolveOpenLocked(clientId, stateid, file);
            int access = shareAccess & SHARE_ACCESS_BOTH;
            if (access == 0 || (access & ~o.access) != 0 || shareDeny < 0 || (shareDeny & ~o.deny) != 0) {
                throw new Nfs4Exception(NFS4ERR_INVAL, "downgrade to access " + access + " deny " + shareDeny
                        + " from access " + o.access + " deny " + o.deny);
            }
            o.access = access;
            o.deny = shareDeny;
            o.bump();
            return o.stateid();
        }
    }

    /**
     * TEST_STATEID of one stateid for the client of the session (RFC 8881 section 18.48.3): NFS4_OK,
     * NFS4ERR_OLD_STATEID, NFS4ERR_EXPIRED, or NFS4ERR_BAD_STATEID for anything else: special stateids, those of other
     * clients or server instances, closed or unknown ones, newer seqids.
     */
    public int testStateid(long clientId, Stateid stateid) {
        synchronized (table.lock) {
            return ownStatus(clientId, stateid);
        }
    }

    /**
     * FREE_STATEID (RFC 8881 section 18.38.3): an open still open holds a lock, so it is NFS4ERR_LOCKS_HELD (CLOSE
     * frees it); a lock stateid is freed when it holds no lock, else NFS4ERR_LOCKS_HELD; a revoked delegation is
     * freed, a live one NFS4ERR_LOCKS_HELD (DELEGRETURN gives it back); otherwise the {@link #testStateid} failure.
     */
    public int freeStateid(long clientId, Stateid stateid) {
        synchronized (table.lock) {
            if (!stateid.isSpecial() && stateid.otherWord(0) == table.bootId()
                    && LockStates.isLockNumber(stateid.otherWord(2))) {
                return locks.freeLocked(clientId, stateid);
            }
            if (!stateid.isSpecial() && stateid.otherWord(0) == table.bootId()
                    && DelegationStates.isDelegationNumber(stateid.otherWord(2))) {
                return delegations.freeLocked(clientId, stateid);
            }
            int status = ownStatus(clientId, stateid);
            return status == NFS4_OK ? NFS4ERR_LOCKS_HELD : status;
        }
    }

    /** The opens the client holds. */
    public int openCount(long clientId) {
        synchronized (table.lock) {
            return openCountLocked(clientId);
        }
    }

    private int ownStatus(long clientId, Stateid stateid) {
        if (stateid.otherWord(0) != table.bootId()) {
            return NFS4ERR_BAD_STATEID; // TEST_STATEID has no NFS4ERR_STALE_STATEID
        }
        try {
            if (LockStates.isLockNumber(stateid.otherWord(2))) {
                locks.resolveLocked(clientId, stateid, null);
            } else if (DelegationStates.isDelegationNumber(stateid.otherWord(2))) {
                delegations.resolveLocked(clientId, stateid, null);
            } else {
                resolveOpenLocked(clientId, stateid, null);
            }
            return NFS4_OK;
        } catch (Nfs4Exception e) {
            return e.status();
        }
    }

    /** The open of {@code clientId} that {@code stateid} names, on {@code file} unless that is null. */
    OpenState resolveOpenLocked(long clientId, Stateid stateid, FileHandle file) throws Nfs4Exception {
        checkStateidOwnerLocked(clientId, stateid);
        return index.resolve(clientId, stateid, file, "open");
    }

    /**
     * The checks every stateid of this table passes before its state is looked up: not special, of this server
     * instance, of a client whose lease has not run out, of {@code clientId}.
     */
    void checkStateidOwnerLocked(long clientId, Stateid stateid) throws Nfs4Exception {
        if (stateid.isSpecial()) {
            throw new Nfs4Exception(NFS4ERR_BAD_STATEID, "special " + stateid + " names no state");
        }
        if (stateid.otherWord(0) != table.bootId()) {
            throw new Nfs4Exception(NFS4ERR_STALE_STATEID, stateid + " is of another server instance");
        }
        long owner = (long) table.bootId() << 32 | (stateid.otherWord(1) & 0xffffffffL);
        table.clientOrNullLocked(owner); // expires the owner now if its lease ran out
        if (table.wasExpiredLocked(owner)) {
            throw new Nfs4Exception(NFS4ERR_EXPIRED, "the lease of the client of " + stateid + " ran out");
        }
        if (owner != clientId) {
            throw new Nfs4Exception(NFS4ERR_BAD_STATEID, stateid + " is not a stateid of client "
                    + Long.toHexString(clientId));
        }
    }

    /** NFS4ERR_BAD_STATEID for a seqid newer than {@code current}, NFS4ERR_OLD_STATEID for an older one; 0 is now. */
    static void checkSeqid(Stateid stateid, int current, String what) throws Nfs4Exception {
        int ahead = stateid.seqid() - current;
        if (stateid.seqid() != 0 && ahead > 0) {
            throw new Nfs4Exception(NFS4ERR_BAD_STATEID, stateid + " is newer than the " + what + "'s seqid "
                    + Integer.toUnsignedString(current));
        }
        if (stateid.seqid() != 0 && ahead < 0) {
            throw new Nfs4Exception(NFS4ERR_OLD_STATEID, stateid + " is older than the " + what + "'s seqid "
                    + Integer.toUnsignedString(current));
        }
    }

    /** The first open of {@code file} other than {@code existing} whose reservation conflicts with the asked one. */
    private OpenState conflicting(FileHandle file, OpenState existing, int access, int shareDeny) {
        for (OpenState o : index.onFile(file)) {
            if (o != existing && o.conflicts(access, shareDeny)) {
                return o;
            }
        }
        return null;
    }

    /** Whether some open of {@code file}, of any client, may write it. */
    boolean writableLocked(FileHandle file) {
        for (OpenState o : index.onFile(file)) {
            if ((o.access & SHARE_ACCESS_WRITE) != 0) {
                return true;
            }
        }
        return false;
    }

    /** The first open of {@code file} that denies {@code deny}. */
    private OpenState denying(FileHandle file, int deny) {
        for (OpenState o : index.onFile(file)) {
            if ((o.deny & deny) != 0) {
                return o;
            }
        }
        return null;
    }

    boolean hasOpensLocked(long clientId) {
        return openCountLocked(clientId) > 0;
    }

    int openCountLocked(long clientId) {
        return index.count(clientId);
    }

    void dropClientLocked(long clientId) {
        locks.dropClientLocked(clientId);
        index.ofClient(clientId).forEach(index::remove);
    }
}
