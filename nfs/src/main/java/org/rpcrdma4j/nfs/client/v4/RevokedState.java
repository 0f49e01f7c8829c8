package org.rpcrdma4j.nfs.client.v4;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs.v4.Nfs4;
import org.rpcrdma4j.nfs.v4.Nfs4Status;
import org.rpcrdma4j.nfs.xdr.BadXdrException;
import org.rpcrdma4j.nfs.xdr.Nfs3Xdr;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the client does when SEQUENCE says state of it was revoked (SEQ4_STATUS_EXPIRED_ALL_STATE_REVOKED,
 * EXPIRED_SOME_STATE_REVOKED, ADMIN_STATE_REVOKED; RFC 8881 section 18.46.3), as section 8.2.3 describes: it asks
 * which of the stateids it holds are still good (TEST_STATEID, section 18.48), frees the revoked ones (FREE_STATEID,
 * section 18.38; the server reports the flags until the client has), and keeps the good ones. A file whose open was
 * revoked is opened again and its locks are lost; a revoked lock stateid loses the file's locks. A stateid the server
 * does not know at all (BAD_STATEID) has nothing to free and is handled the same way.
 * <p>
 * The flags come with every reply until the round is done: one round runs at a time, and another starts at most
 * {@link #ROUND_INTERVAL_NANOS} after the last one ended, should the server keep reporting state the client cannot
 * find among its own (a delegation it no longer knows of). Thread-safe.
 */
final class RevokedState {
    private static final Logger LOG = LoggerFactory.getLogger(RevokedState.class);
    static final long ROUND_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** Stateids one TEST_STATEID asks about (16 bytes each, well within any request size a session allows). */
    static final int PER_TEST = 256;
    private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

    /** A stateid the client holds: an open's, or the lock owner's on that file. */
    record Held(OpenFiles.Entry entry, Stateid4 stateid, boolean lock) {
    }

    private final Nfs41Session session;
    private final OpenFiles files;
    private final AtomicBoolean running = new AtomicBoolean();
    private volatile long lastEnd;
    private final AtomicLong rounds = new AtomicLong();
    private final AtomicLong freed = new AtomicLong();
    /** The round running, or the last one. */
    private volatile CompletableFuture<Void> last = DONE;

    RevokedState(Nfs41Session session, OpenFiles files) {
        this.session = session;
        this.files = files;
    }

    /** SEQUENCE reported revoked state ({@code flags}): a round of TEST_STATEID and FREE_STATEID, unless one runs. */
    void reported(int flags) {
        if ((lastEnd != 0 && System.nanoTime() - lastEnd < ROUND_INTERVAL_NANOS)
                || !running.compareAndSet(false, true)) {
            return;
        }
        rounds.incrementAndGet();
        LOG.info("the server revoked state of this client (status flags 0x{}): testing its stateids",
                Integer.toHexString(flags));
        CompletableFuture<Void> round;
        try {
            round = round(files.stateids());
        } catch (RuntimeException e) {
            round = CompletableFuture.failedFuture(e);
        }
        last = round.handle((v, x) -> {
            if (x != null) {
                LOG.debug("testing the stateids after a revocation failed: {}", Nfs41Session.unwrap(x).toString());
            }
            lastEnd = System.nanoTime();
            running.set(false);
            return null;
        });
    }

    /** Completes when the round running now (or the last one) has ended, its opens made again. */
    CompletableFuture<Void> lastRound() {
        return last;
    }

    /** Rounds started. */
    long rounds() {
        return rounds.get();
    }

    /** Revoked stateids freed (FREE_STATEID answered NFS4_OK). */
    long freed() {
        return freed.get();
    }

    private CompletableFuture<Void> round(List<Held> held) {
        CompletableFuture<Void> chain = DONE;
        for (int from = 0; from < held.size(); from += PER_TEST) {
            List<Held> batch = held.subList(from, Math.min(held.size(), from + PER_TEST));
            chain = chain.thenCompose(v -> test(batch));
        }
        return chain;
    }

    private CompletableFuture<Void> test(List<Held> batch) {
        TestStateid op = new TestStateid(batch.stream().map(Held::stateid).toList());
        return session.call(new Compound("test_stateid").add(op)).thenCompose(r -> {
            int[] codes = OpenFiles.checked(r).result(0);
            List<CompletableFuture<Void>> all = new ArrayList<>();
            for (int i = 0; i < codes.length; i++) {
                all.add(settle(batch.get(i), codes[i]));
            }
            return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new));
        });
    }

    /** One stateid's answer: kept, or freed (when revoked) and its open made again or its locks lost. */
    private CompletableFuture<Void> settle(Held h, int code) {
        switch (code) {
            case Nfs4Status.NFS4_OK, Nfs4Status.NFS4ERR_OLD_STATEID -> {
                return DONE; // good (OLD: the client holds a newer seqid of it already)
            }
            case Nfs4Status.NFS4ERR_EXPIRED, Nfs4Status.NFS4ERR_ADMIN_REVOKED, Nfs4Status.NFS4ERR_DELEG_REVOKED -> {
                Compound c = new Compound("free_stateid").add(Ops.StateOp.freeStateid(h.stateid())).releasingState();
                return session.call(c).handle((r, x) -> {
                    if (x == null && r.isOk()) {
                        freed.incrementAndGet();
                    } else {
                        LOG.debug("FREE_STATEID of {}: {}", h.stateid(),
                                x != null ? Nfs41Session.unwrap(x).toString() : Nfs4Status.name(r.status()));
                    }
                    return files.revoked(h, Nfs4Status.name(code));
                }).thenCompose(f -> f);
            }
            case Nfs4Status.NFS4ERR_BAD_STATEID -> {
                return files.revoked(h, Nfs4Status.name(code));
            }
            default -> {
                LOG.debug("TEST_STATEID of {}: {}", h.stateid(), Nfs4Status.name(code));
                return DONE;
            }
        }
    }

    /** TEST_STATEID (RFC 8881 section 18.48): one status per stateid. */
    static final class TestStateid extends Op {
        final List<Stateid4> stateids;

        TestStateid(List<Stateid4> stateids) {
            super(Nfs4.OP_TEST_STATEID);
            this.stateids = stateids;
        }

        @Override
        void encode(XdrEncodingStream xdr) {
            xdr.xdrEncodeInt(stateids.size());
            for (Stateid4 s : stateids) {
                s.encode(xdr);
            }
        }

        @Override
        Object decodeOk(XdrDecodingStream xdr, ReplyDecoding mode) throws BadXdrException {
            long n = Nfs3Xdr.decodeUint(xdr);
            if (n != stateids.size()) {
                throw new BadXdrException(n + " statuses for " + stateids.size() + " stateids");
            }
            int[] codes = new int[stateids.size()];
            for (int i = 0; i < codes.length; i++) {
                codes[i] = Nfs3Xdr.decodeInt(xdr);
            }
            return codes;
        }
    }
}
