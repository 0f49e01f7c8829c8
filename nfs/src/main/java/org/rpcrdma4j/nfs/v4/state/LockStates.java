package org.rpcrdma4j.nfs.v4.state;

import static org.rpcrdma4j.nfs.v4.Nfs4Status.*;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.v4.LockRanges;
import org.rpcrdma4j.nfs.v4.Nfs4Exception;

/**
 * Byte-range locks (RFC 8881 sections 9, 18.10-18.12): advisory, POSIX-style record locks of lock owners, each owner's
 * locks on a file under one lock stateid that its first LOCK derived from one of its client's opens. A WRITE lock
 * conflicts with every other owner's lock over any byte of its range, a READ lock with other owners' WRITE locks; an
 * owner's own locks never conflict, and locking a range it holds changes that range's type. Blocking requests
 * (READW_LT, WRITEW_LT) are answered at once: a conflict is NFS4ERR_DENIED, and the client asks again. I/O is not
 * checked against locks; a lock stateid is good for READ and WRITE as its open is (the open of the owner's latest
 * LOCK that named one). CLOSE of the open ends its lock stateids and their locks, as a client's expiry or destruction
 * does. A client holds at most {@value #CLIENT_LOCK_STATES} lock stateids and {@value #CLIENT_RANGES} separate ranges
 * in all, so that a client cannot fill the server's memory with locks. Thread-safe under the table's lock.
 *
 * <p>A lock stateid's number, the last word of its {@code other} field, has its top bit set; an open's does not.
 */
public final class LockStates {
    public static final int READ_LT = LockRanges.READ;
    public static final int WRITE_LT = LockRanges.WRITE;
    public static final int READW_LT = 3;
    public static final int WRITEW_LT = 4;
    /** A {@code length4} of all ones: to the end of any file. */
    public static final long TO_END = LockRanges.TO_END;
    /** The top bit of a lock stateid's number. */
    static final int NUMBER_BIT = 0x80000000;
    private static final int OWNER_LIMIT = 1024;
    /** The most separate ranges the lock owners of one client may hold in all (each kept range costs memory). */
    static final int CLIENT_RANGES = 16384;
    /** The most lock stateids one client may hold (one per lock owner and file). */
    static final int CLIENT_LOCK_STATES = 1024;

    /** {@code LOCK4denied}: the lock that stands in the way. */
    public record Denied(long offset, long length, int type, long ownerClientId, byte[] owner) {
        public Denied {
            owner = owner.clone();
        }

        @Override
        public byte[] owner() {
            return owner.clone();
        }
    }

    /** NFS4ERR_DENIED, with the conflicting lock that LOCK and LOCKT return. */
    public static final class DeniedException extends Nfs4Exception {
        private static final long serialVersionUID = 1L;
        private final transient Denied denied;

        DeniedException(Denied denied, String message) {
            super(NFS4ERR_DENIED, message);
            this.denied = denied;
        }

        public Denied denied() {
            return denied;
        }
    }

    private final ClientTable table;
    private final OpenStates opens;
    private final StateIndex<LockState> index = new StateIndex<>(NUMBER_BIT, Integer.MAX_VALUE);

    LockStates(ClientTable table, OpenStates opens) {
        this.table = table;
        this.opens = opens;
    }

    /**
     * LOCK for a lock owner new to the server ({@code open_to_lock_owner4}): the lock stateid of {@code lockOwner} on
     * the open's file, made from the open {@code openStateid} (or the owner's existing one on that file), holding the
     * range. The grace check is the caller's ({@link ClientTable#checkOpen(long, boolean)}), before this.
     *
     * @throws Nfs4Exception as {@link #lock}; also NFS4ERR_INVAL for an owner over 1024 bytes, and what an open
     *                       stateid that names no open of the file is ({@link OpenStates#checkIo})
     */
    public Stateid lockNew(long clientId, Stateid openStateid, byte[] lockOwner, FileHandle file, int type,
                           long offset, long length) throws Nfs4Exception {
        Objects.requireNonNull(file, "file");
        if (lockOwner == null || lockOwner.length > OWNER_LIMIT) {
            throw new Nfs4Exception(NFS4ERR_INVAL, "a lock owner has at most " + OWNER_LIMIT + " bytes");
        }
        long last = LockRanges.last(offset, length);
        int base = baseType(type);
        synchronized (table.lock) {
            OpenState open = opens.resolveOpenLocked(clientId, openStateid, file);
            checkOpenMode(open, base);
            Bytes owner = new Bytes(lockOwner);
            LockState l = index.byOwnerFile(clientId, owner, file);
            boolean made = l == null;
            if (made) {
                if (index.count(clientId) >= CLIENT_LOCK_STATES) {
                    throw new Nfs4Exception(NFS4ERR_SERVERFAULT, "a client may hold at most " + CLIENT_LOCK_STATES
                            + " lock stateids");
                }
                l = new LockState(index.newNumber(), clientId, owner, file, open);
            }
            lockLocked(l, base, offset, last);
            if (made) {
                index.add(l);
            } else {
                l.open = open;
                l.bump();
            }
            return l.stateid();
        }
    }

    /**
     * LOCK for a lock owner with a lock stateid on the file ({@code exist_lock_owner4}): the range is locked, and the
     * stateid's seqid advances.
     *
     * @throws Nfs4Exception NFS4ERR_INVAL for a length of zero or a range past the last byte offset; NFS4ERR_DENIED
     *                       ({@link DeniedException}) when another owner's lock conflicts; NFS4ERR_OPENMODE for a
     *                       WRITE lock through an open for reading only or a READ lock through one for writing only;
     *                       the stateid failures of {@link OpenStates#checkIo}
     */
    public Stateid lock(long clientId, Stateid lockStateid, FileHandle file, int type, long offset, long length)
            throws Nfs4Exception {
        long last = LockRanges.last(offset, length);
        int base = baseType(type);
        synchronized (table.lock) {
            LockState l = resolveLocked(clientId, lockStateid, file);
            checkOpenMode(l.open, base);
            lockLocked(l, base, offset, last);
            l.bump();
            return l.stateid();
        }
    }

    /**
     * LOCKT: whether {@code lockOwner} of {@code clientId} could lock the range; returns when it could.
     *
     * @throws Nfs4Exception NFS4ERR_DENIED ({@link DeniedException}) naming a conflicting lock; NFS4ERR_INVAL for a bad
     *                       range or type
     */
    public void test(long clientId, byte[] lockOwner, FileHandle file, int type, long offset, long length)
            throws Nfs4Exception {
        long last = LockRanges.last(offset, length);
        int base = baseType(type);
        Bytes owner = new Bytes(lockOwner == null ? new byte[0] : lockOwner);
        synchronized (table.lock) {
            Denied d = conflictLocked(clientId, owner, file, base, offset, last);
            if (d != null) {
                throw new DeniedException(d, "LOCKT of " + LockRanges.text(offset, last));
            }
        }
    }

    /**
     * LOCKU: the range is unlocked (whatever parts of it the owner held; the type is not compared), and the stateid's
     * seqid advances.
     *
     * @throws Nfs4Exception NFS4ERR_INVAL for a bad range or type; the stateid failures of {@link OpenStates#checkIo}
     */
    public Stateid unlock(long clientId, Stateid lockStateid, FileHandle file, int type, long offset, long length)
            throws Nfs4Exception {
        long last = LockRanges.last(offset, length);
        baseType(type);
        synchronized (table.lock) {
            LockState l = resolveLocked(clientId, lockStateid, file);
            List<LockRanges.Range> before = l.ranges.ranges();
            l.ranges.remove(offset, last);
            if (!recount(l, before)) {
                throw new Nfs4Exception(NFS4ERR_LOCK_RANGE, "cutting " + LockRanges.text(offset, last) + " out would "
                        + "leave the client more than " + CLIENT_RANGES + " separate ranges");
            }
            l.bump();
            return l.stateid();
        }
    }

    /** The ranges {@code lockStateid} holds now, for tests and diagnostics; empty for a stateid naming none. */
    public List<long[]> heldRanges(long clientId, Stateid lockStateid) {
        synchronized (table.lock) {
            LockState l = index.byNumber(lockStateid.otherWord(2));
            if (l == null || l.clientId != clientId) {
                return List.of();
            }
            List<long[]> out = new ArrayList<>();
            for (LockRanges.Range r : l.ranges.ranges()) {
                out.add(new long[] {r.first(), r.last(), r.type()});
            }
            return out;
        }
    }

    /** The lock stateids the client holds. */
    public int lockStateCount(long clientId) {
        synchronized (table.lock) {
            return index.count(clientId);
        }
    }

    // --- for OpenStates, with the lock held ---

    static boolean isLockNumber(int number) {
        return (number & NUMBER_BIT) != 0;
    }

    /** The lock state of {@code clientId} that {@code stateid} names, on {@code file} unless that is null. */
    LockState resolveLocked(long clientId, Stateid stateid, FileHandle file) throws Nfs4Exception {
        opens.checkStateidOwnerLocked(clientId, stateid);
        return index.resolve(clientId, stateid, file, "lock state");
    }

    /** FREE_STATEID of a lock stateid: NFS4ERR_LOCKS_HELD while it holds a range, else gone. */
    int freeLocked(long clientId, Stateid stateid) {
        try {
            LockState l = resolveLocked(clientId, stateid, null);
            if (!l.ranges.isEmpty()) {
                return NFS4ERR_LOCKS_HELD;
            }
            index.remove(l);
            return NFS4_OK;
        } catch (Nfs4Exception e) {
            return e.status();
        }
    }

    /** The open is closed: the lock states made through it go, with their locks. */
    void dropOpenLocked(OpenState open) {
        for (LockState l : index.ofClient(open.clientId)) {
            if (l.open == open) {
                index.remove(l);
            }
        }
    }

    void dropClientLocked(long clientId) {
        index.ofClient(clientId).forEach(index::remove);
    }

    // --- internals ---

    private void lockLocked(LockState l, int base, long first, long last) throws Nfs4Exception {
        Denied d = conflictLocked(l.clientId, l.owner, l.file, base, first, last);
        if (d != null) {
            throw new DeniedException(d, (base == WRITE_LT ? "WRITE" : "READ") + " lock of "
                    + LockRanges.text(first, last));
        }
        List<LockRanges.Range> before = l.ranges.ranges();
        l.ranges.add(first, last, base);
        if (!recount(l, before)) {
            throw new Nfs4Exception(NFS4ERR_SERVERFAULT, "a client may hold at most " + CLIENT_RANGES
                    + " separate ranges locked");
        }
    }

    /**
     * Checks the change of {@code l}'s ranges from {@code before} against its client's limit: when they grew past it,
     * puts them back and returns false.
     */
    private boolean recount(LockState l, List<LockRanges.Range> before) {
        if (l.ranges.size() <= before.size()) {
            return true;
        }
        int held = l.ranges.size();
        for (LockState other : index.ofClient(l.clientId)) {
            held += other == l ? 0 : other.ranges.size();
        }
        if (held > CLIENT_RANGES) {
            l.ranges.restore(before);
            return false;
        }
        return true;
    }

    /**
     * The first lock of another owner that conflicts with the range, or null. A conflicting lock of a client kept
     * only as a courtesy ({@link ClientTable#yieldCourtesyLocked}) goes with that client, and the search starts again.
     */
    private Denied conflictLocked(long clientId, Bytes owner, FileHandle file, int base, long first, long last) {
        search:
        for (;;) {
            for (LockState other : index.onFile(file)) {
                if (other.ownedBy(clientId, owner)) {
                    continue;
                }
                LockRanges.Range r = other.ranges.conflict(base, first, last);
                if (r != null) {
                    if (other.clientId != clientId && table.yieldCourtesyLocked(other.clientId)) {
                        continue search;
                    }
                    return new Denied(r.first(), r.length(), r.type(), other.clientId, other.owner.toByteArray());
                }
            }
            return null;
        }
    }

    private static void checkOpenMode(OpenState open, int base) throws Nfs4Exception {
        int needed = base == WRITE_LT ? OpenStates.SHARE_ACCESS_WRITE : OpenStates.SHARE_ACCESS_READ;
        if ((open.access & needed) == 0) {
            throw new Nfs4Exception(NFS4ERR_OPENMODE, (base == WRITE_LT ? "a WRITE lock through an open without "
                    + "write access" : "a READ lock through an open without read access"));
        }
    }

    /** READ_LT or WRITE_LT for any of the four types; NFS4ERR_INVAL for another value. */
    static int baseType(int type) throws Nfs4Exception {
        return switch (type) {
            case READ_LT, READW_LT -> READ_LT;
            case WRITE_LT, WRITEW_LT -> WRITE_LT;
            default -> throw new Nfs4Exception(NFS4ERR_INVAL, "nfs_lock_type4 " + type);
        };
    }
}
