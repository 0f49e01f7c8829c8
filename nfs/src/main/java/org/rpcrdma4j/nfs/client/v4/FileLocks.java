package org.rpcrdma4j.nfs.client.v4;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
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
 * recovery reclaims them. A conflict is a {@link LockDeniedException} naming the lock in the way; the client does not
 * wait and retry: the caller decides.
 */
final class FileLocks {
    static final byte[] OWNER = "rpcrdma4j-lock-owner".getBytes(StandardCharsets.US_ASCII);
    private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

    private final Nfs41Session session;
    private final OpenFiles files;

    FileLocks(Nfs41Session session, OpenFiles files) {
        this.session = session;
        this.files = files;
    }

    CompletableFuture<Void> lock(FileHandle fh, LockType type, long offset, long length) {
        long last;
        try {
            last = LockRanges.last(offset, length);
        } catch (Nfs4Exception e) {
            return CompletableFuture.failedFuture(new Nfs4StatusException(e.status(), Nfs4.OP_LOCK, e.getMessage()));
        }
        int access = type == LockType.WRITE ? OpenFiles.WRITE : OpenFiles.READ;
        return files.acquire(fh, access).thenCompose(e -> {
            if (e.locksLost) {
                files.release(e);
                return CompletableFuture.failedFuture(new LocksLostException(fh));
            }
            CompletableFuture<Void> done = inTurn(e, () -> sendLock(e, type, offset, length, last));
            return done.whenComplete((v, x) -> files.release(e));
        });
    }

    CompletableFuture<Void> unlock(FileHandle fh, long offset, long length) {
        long last;
        try {
            last = LockRanges.last(offset, length);
        } catch (Nfs4Exception e) {
            return CompletableFuture.failedFuture(new Nfs4StatusException(e.status(), Nfs4.OP_LOCKU, e.getMessage()));
        }
        OpenFiles.Entry e = files.holdIfOpen(fh);
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

    private CompletableFuture<Void> sendLock(OpenFiles.Entry e, LockType type, long offset, long length, long last) {
        LockOps.Lock op = new LockOps.Lock(e, type, false, offset, length, OWNER);
        return session.call(new Compound("lock").putfh(e.fh).add(op)).thenApply(r -> {
            if (r.status() == Nfs4Status.NFS4ERR_DENIED && op.denied() != null) {
                throw new CompletionException(new LockDeniedException(Nfs4.OP_LOCK, op.denied()));
            }
            Stateid4 got = OpenFiles.checked(r).result(1);
            synchronized (files) {
                e.lockStateid = got;
                e.held.add(offset, last, type.wire());
            }
            return null;
        });
    }

    private CompletableFuture<Void> sendUnlock(OpenFiles.Entry e, long offset, long length, long last) {
        if (e.lockStateid == null) {
            return DONE; // nothing locked
        }
        LockOps.LockU op = new LockOps.LockU(e, offset, length);
        return session.call(new Compound("locku").putfh(e.fh).add(op)).thenApply(r -> {
            Stateid4 got = OpenFiles.checked(r).result(1);
            synchronized (files) {
                e.lockStateid = got;
                e.held.remove(offset, last);
            }
            return null;
        });
    }
}
