package org.rpcrdma4j.nfs.client.v4;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.v4.LockRanges;
import org.rpcrdma4j.nfs.v4.Nfs4;
import org.rpcrdma4j.nfs.v4.Nfs4Exception;
import org.rpcrdma4j.nfs.v4.Nfs4Status;

/**
 * The client's byte-range locks (RFC 8881 section 9): one lock owner for the whole client, as one process holds its
 * locks, so the client's own locks never conflict with each other and locking bytes it holds changes their type. A
 * LOCK needs an open of the file with the access its type needs (READ for a READ lock, WRITE for a WRITE lock), which
 * is made or upgraded first; the first LOCK of a file makes the lock owner's stateid there from that open, the later
 * ones use it. LOCKs and LOCKUs of one file go one after the other. The ranges held are kept in the file's
 * {@link OpenFiles} entry: an open holding locks is not closed for being idle, its CLOSE unlocks first, and a
 * recovery reclaims them. A conflict is a {@link LockDeniedException} naming the lock in the way; only
 * {@link #lockWaiting} asks again, for as long as the caller lets it.
 */
final class FileLocks {
    static final byte[] OWNER = "rpcrdma4j-lock-owner".getBytes(StandardCharsets.US_ASCII);
    static final long FIRST_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    static final long LONGEST_PAUSE_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

    private final Nfs41Session session;
    private final OpenFiles files;

    FileLocks(Nfs41Session session, OpenFiles files) {
        this.session = session;
        this.files = files;
    }

    CompletableFuture<Void> lock(FileHandle fh, LockType type, long offset, long length) {
        return lock(fh, type, false, offset, length);
    }

    /**
     * LOCK that waits up to {@code patience} for the locks in its way to go: denied, it asks again (as a waiting
     * request, READW_LT or WRITEW_LT) after a pause that grows from {@link #FIRST_PAUSE_NANOS} to
     * {@link #LONGEST_PAUSE_NANOS}, as Linux's client polls a server that does not call back. Fails with the last
     * {@link LockDeniedException} when the time is up.
     */
    CompletableFuture<Void> lockWaiting(FileHandle fh, LockType type, long offset, long length, Duration patience) {
        CompletableFuture<Void> out = new CompletableFuture<>();
        attempt(fh, type, offset, length, System.nanoTime() + patience.toNanos(), FIRST_PAUSE_NANOS, out);
        return out;
    }

    private void attempt(FileHandle fh, LockType type, long offset, long length, long deadline, long pause,
                         CompletableFuture<Void> out) {
        lock(fh, type, true, offset, length).whenComplete((v, x) -> {
            if (x == null) {
                out.complete(null);
                return;
            }
            Throwable t = Nfs41Session.unwrap(x);
            long left = deadline - System.nanoTime();
            if (!(t instanceof LockDeniedException) || left <= 0) {
                out.completeExceptionally(t);
                return;
            }
            try {
                session.schedule(() -> attempt(fh, type, offset, length, deadline,
                        Math.min(LONGEST_PAUSE_NANOS, pause * 2), out), Math.min(pause, left));
            } catch (RejectedExecutionException closed) {
                out.completeExceptionally(t);
            }
        });
    }

    private CompletableFuture<Void> lock(FileHandle fh, LockType type, boolean waiting, long offset, long length) {
        long last;
        try {
            last = LockRanges.last(offset, length);
        } catch (Nfs4Exception e) {
            return CompletableFuture.failedFuture(new Nfs4StatusException(e.status(), Nfs4.OP_LOCK, e.getMessage()));
        }
        int access = type == LockType.WRITE ? OpenFiles.WRITE : OpenFiles.READ;
        // a file whose locks were lost fails in the LOCK's preparation (LockOps.lockStateid), before it is sent
        return files.acquire(fh, access).thenCompose(e -> inTurn(e, () -> sendLock(e, type, waiting, offset, length,
                last)).whenComplete((v, x) -> files.release(e)));
    }

    CompletableFuture<Void> unlock(FileHandle fh, long offset, long length) {
        long last;
        try {
            last = LockRanges.last(offset, length);
        } catch (Nfs4Exception e) {
            return CompletableFuture.failedFuture(new Nfs4StatusException(e.status(), Nfs4.OP_LOCKU, e.getMessage()));
        }
        OpenFiles.Entry e = files.holdIfKnown(fh);
        if (e == null) {
            return DONE; // not open: nothing locked
        }
        return inTurn(e, () -> sendUnlock(e, offset, length, last)).whenComplete((v, x) -> files.release(e));
    }

    CompletableFuture<Optional<LockConflict>> test(FileHandle fh, LockType type, long offset, long length) {
        LockOps.LockT op = new LockOps.LockT(type, offset, length, OWNER);
        return session.call(new Compound("lockt").putfh(fh).add(op)).thenApply(r -> {
            if (r.status() == Nfs4Status.NFS4ERR_DENIED && op.denied() != null) {
                return Optional.of(op.denied());
            }
            OpenFiles.checked(r);
            return Optional.empty();
        });
    }

    /**
     * Runs {@code step} after the file's LOCKs and LOCKUs before it, on the session's executor: never under the
     * table's monitor, which the thread completing replies needs.
     */
    private CompletableFuture<Void> inTurn(OpenFiles.Entry e, Supplier<CompletableFuture<Void>> step) {
        synchronized (files) {
            CompletableFuture<Void> next = e.locking.handle((v, x) -> null)
                    .thenComposeAsync(v -> step.get(), session.executor());
            e.locking = next;
            return next;
        }
    }

    private CompletableFuture<Void> sendLock(OpenFiles.Entry e, LockType type, boolean waiting, long offset,
                                             long length, long last) {
        LockOps.Lock op = new LockOps.Lock(e, type, waiting, false, offset, length, OWNER);
        return session.call(new Compound("lock").putfh(e.fh).add(op)).thenApply(r -> {
            if (r.status() == Nfs4Status.NFS4ERR_DENIED && op.denied() != null) {
                throw new CompletionException(new LockDeniedException(Nfs4.OP_LOCK, op.denied()));
            }
            expired(e, r);
            Stateid4 got = OpenFiles.checked(r).result(1);
            synchronized (files) {
                e.lockStateid = got;
                e.held.add(offset, last, type.wire());
            }
            return null;
        });
    }

    /**
     * NFS4ERR_EXPIRED of a LOCK or LOCKU: the open or lock state it named is gone from the server (RFC 8881 section
     * 15.1.5.3), and the file's locks with it; the file is opened again, and the caller gets the error.
     */
    private void expired(OpenFiles.Entry e, CompoundRes r) {
        if (r.status() == Nfs4Status.NFS4ERR_EXPIRED) {
            files.reopen(e);
        }
    }

    private CompletableFuture<Void> sendUnlock(OpenFiles.Entry e, long offset, long length, long last) {
        if (e.lockStateid == null) {
            return DONE; // nothing locked
        }
        LockOps.LockU op = new LockOps.LockU(e, offset, length);
        return session.call(new Compound("locku").putfh(e.fh).add(op)).thenApply(r -> {
            expired(e, r);
            Stateid4 got = OpenFiles.checked(r).result(1);
            synchronized (files) {
                e.lockStateid = got;
                e.held.remove(offset, last);
            }
            return null;
        });
    }
}
