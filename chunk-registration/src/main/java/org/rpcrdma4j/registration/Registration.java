package org.rpcrdma4j.registration;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.TransportType;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.WorkCompletion;

/**
 * The handles exposed for one RPC: a per-request-slot context made once by {@link RegistrationPool#newRegistration()}
 * and reused for every RPC of that slot. Allocation-free in steady state.
 * <p>
 * Life of one RPC:
 * <ol>
 * <li>{@link #begin(int)} with the RPC's xid;</li>
 * <li>{@link #map(ScatterList, ChunkRole)} once per chunk; each call appends segments, read back with
 * {@link #handle(int)}, {@link #length(int)}, {@link #offset(int)} for the chunk lists. Map every chunk before
 * step 3;</li>
 * <li>post {@link #linkAfterPending(SendWorkRequest)}: the pending REG_MR work requests (FRWR) followed by the
 * RPC's Send;</li>
 * <li>when the reply arrives, {@link #invalidate(WorkCompletion, InvalidationListener)}: true means every handle is
 * invalid already; false means {@link InvalidationListener#onInvalidated} follows, from
 * {@link RegistrationPool#onCompletion}. Only then may the RPC complete to its caller.</li>
 * </ol>
 * Threads: one thread at a time. {@code begin} and {@code map} may run on a caller's thread (map may block waiting
 * for handles); {@code linkAfterPending}, {@code invalidate*} and {@code invalidatedByRead} run on the connection's
 * thread (the one that posts to the queue pair and polls the send completion queue). The transport hands the
 * registration from one to the other with a happens-before edge (its request queue).
 */
public final class Registration {
    enum State { IDLE, MAPPED, INVALIDATING }

    private final RegistrationPool pool;
    private final MemRegOps ops;
    private final int index;
    private final int[] handles;
    private final int[] lengths;
    private final long[] offsets;
    private final Mr[] mrs;
    private final Mr[] acquired;
    private int count;
    private SendWorkRequest chainHead;
    private SendWorkRequest chainTail;
    private int xid;
    private int epoch = -1;
    private volatile State state = State.IDLE;
    private InvalidationListener listener;
    /** Slot of the handle whose LOCAL_INV is the signaled last of the chain, or -1. */
    int lastInvSlot = -1;

    Registration(RegistrationPool pool, MemRegOps ops, int index, int maxSegments) {
        this.pool = pool;
        this.ops = ops;
        this.index = index;
        this.handles = new int[maxSegments];
        this.lengths = new int[maxSegments];
        this.offsets = new long[maxSegments];
        this.mrs = new Mr[maxSegments];
        this.acquired = new Mr[maxSegments];
    }

    /** This registration's slot in its pool. */
    public int index() {
        return index;
    }

    /**
     * Starts a new RPC. The registration must be idle: never used, invalidated, or left over from a connection that
     * has since been reset (its handles are gone then and are simply forgotten).
     *
     * @param xid the RPC's transaction id; FRWR and FMR put it in the high 32 bits of each segment's offset
     * @throws IllegalStateException when handles of this connection are still exposed or being invalidated
     */
    public Registration begin(int xid) {
        State s = state;
        if (s == State.INVALIDATING || (s == State.MAPPED && epoch == pool.epoch() && count > 0)) {
            throw new IllegalStateException("registration " + index + " is " + s + " with " + count
                    + " segments; invalidate it first");
        }
        forget();
        this.xid = xid;
        this.epoch = pool.epoch();
        state = State.MAPPED;
        return this;
    }

    /**
     * Maps a chunk's scatter list and appends its segments (one per handle): a new handle starts at every gap and
     * at the device's page-list depth. Access rights come from {@link AccessFlags#of}. On IB/RoCE an
     * {@link ChunkRole#RDMA_READ_SINK} needs no handle: its segments then carry the arenas' lkey and addresses
     * (one per contiguous run), and nothing needs invalidating.
     * <p>
     * Takes all the handles the list needs at once; when too few are free it waits (counted as POOL_WAITS) until
     * enough are returned or added by background growth. It never fails for lack of handles, so it must not be
     * called on the thread whose completion processing returns them; {@link #map(ScatterList, ChunkRole, long,
     * TimeUnit)} bounds the wait.
     *
     * @return the number of segments appended; they are {@code [segmentCount() - n, segmentCount())}
     * @throws VerbsException        a synchronous registration (FMR, REG_MR) failed: the segments mapped so far stay
     *                               and must be invalidated; or, as {@link RegistrationResetException}, the
     *                               connection was reset since {@link #begin(int)}
     * @throws InterruptedException  interrupted while waiting for handles
     * @throws IllegalStateException {@link #begin(int)} was not called, or the RPC would exceed the segment limit
     */
    public int map(ScatterList list, ChunkRole role) throws VerbsException, InterruptedException {
        return map(list, role, Long.MAX_VALUE);
    }

    /**
     * As {@link #map(ScatterList, ChunkRole)}, waiting for free handles at most {@code timeout}: handles that are free
     * are taken even when the timeout is 0 or less. A mapping that times out takes no handle; the segments mapped
     * before it stay and must be invalidated.
     *
     * @throws RegistrationPoolExhaustedException too few handles were free within the timeout
     */
    public int map(ScatterList list, ChunkRole role, long timeout, TimeUnit unit)
            throws VerbsException, InterruptedException {
        return map(list, role, unit.toNanos(timeout));
    }

    private int map(ScatterList list, ChunkRole role, long timeoutNanos) throws VerbsException, InterruptedException {
        if (state != State.MAPPED) {
            throw new IllegalStateException("registration " + index + " is " + state + "; call begin() first");
        }
        int pieces = list.pieceCount();
        if (pieces == 0) {
            return 0;
        }
        TransportType transport = pool.transportType();
        if (!AccessFlags.needsHandle(transport, role)) {
            return mapLocal(list);
        }
        int access = AccessFlags.of(transport, role);
        int maxPages = ops.maxPages();
        boolean pageLists = ops.pageLists();
        int needed = 0;
        for (int from = 0; from < pieces; needed++) {
            from += MemRegOps.run(list, from, pieces - from, maxPages, pageLists);
        }
        checkRoom(needed);
        pool.acquire(this, needed, acquired, timeoutNanos);
        int used = 0;
        int from = 0;
        Mr current = null;
        try {
            while (from < pieces) {
                current = acquired[used];
                acquired[used++] = null;
                int covered = ops.map(current, list, from, pieces - from, access, this);
                append(current, current.rkey, current.length, current.iova);
                current = null;
                from += covered;
            }
            return needed;
        } catch (VerbsException | RuntimeException e) {
            boolean reset = epoch != pool.epoch(); // the handle was closed under the mapping, not broken by it
            if (!reset) {
                pool.counters().increment(RegistrationCounter.REGISTRATION_FAILURES);
            }
            if (current != null) {
                current.failed = true;
                pool.recover(current);
            }
            for (int i = used; i < needed; i++) {
                pool.release(acquired[i]);
                acquired[i] = null;
            }
            if (reset && !(e instanceof RegistrationResetException)) {
                throw new RegistrationResetException("the connection was reset while mapping (" + e.getMessage()
                        + "); marshal the RPC again", e);
            }
            throw e;
        }
    }

    private int mapLocal(ScatterList list) {
        int pieces = list.pieceCount();
        int n = 0;
        for (int from = 0; from < pieces; n++) {
            from += MemRegOps.run(list, from, pieces - from, Integer.MAX_VALUE, false);
        }
        checkRoom(n);
        for (int from = 0; from < pieces; ) {
            int covered = MemRegOps.run(list, from, pieces - from, Integer.MAX_VALUE, false);
            long length = list.contiguousLength(from, covered);
            RegisteredArena arena = list.arena(from);
            append(null, arena.lkey(), (int) length, arena.address(list.arenaOffset(from)));
            from += covered;
        }
        return n;
    }

    private void checkRoom(int segments) {
        if (count + segments > handles.length) {
            throw new IllegalStateException("an RPC may expose at most " + handles.length + " segments; it has "
                    + count + " and needs " + segments + " more");
        }
    }

    private void append(Mr mr, int handle, int length, long offset) {
        mrs[count] = mr;
        handles[count] = handle;
        lengths[count] = length;
        offsets[count] = offset;
        count++;
    }

    /** Appends a REG_MR work request to the pending chain (FRWR). */
    void appendToChain(SendWorkRequest wr) {
        wr.next = null;
        if (chainHead == null) {
            chainHead = wr;
        } else {
            chainTail.next = wr;
        }
        chainTail = wr;
    }

    /** Segments appended since {@link #begin}. */
    public int segmentCount() {
        return count;
    }

    /** The STag of segment {@code i} (RDMA segment "handle"); the lkey for a handle-less read-sink segment. */
    public int handle(int i) {
        checkSegment(i);
        return handles[i];
    }

    public int length(int i) {
        checkSegment(i);
        return lengths[i];
    }

    /** The segment's offset: the IOVA (tagged offset) of its first byte. */
    public long offset(int i) {
        checkSegment(i);
        return offsets[i];
    }

    /** Whether segment {@code i} is backed by a per-I/O handle (false for an IB/RoCE read sink over an arena lkey). */
    public boolean hasHandle(int i) {
        checkSegment(i);
        return mrs[i] != null;
    }

    public int xid() {
        return xid;
    }

    private void checkSegment(int i) {
        if (i < 0 || i >= count) {
            throw new IndexOutOfBoundsException("segment " + i + " of " + count);
        }
    }

    /**
     * The head of the pending work request chain that must run before the RPC's Send (FRWR's REG_MRs, unsignaled),
     * or null when there is none. The caller takes it for posting: the handles count as posted from now on.
     */
    public SendWorkRequest pendingChain() {
        SendWorkRequest head = chainHead;
        markPosted();
        chainHead = null;
        chainTail = null;
        return head;
    }

    /**
     * Links {@code send} (the RPC's Send, or any chain) after the pending work requests and returns the head of the
     * whole chain, to post as one unit; {@code send} itself when nothing is pending. The handles count as posted.
     */
    public SendWorkRequest linkAfterPending(SendWorkRequest send) {
        SendWorkRequest head = chainHead;
        if (head == null) {
            markPosted();
            return send;
        }
        chainTail.next = send;
        markPosted();
        chainHead = null;
        chainTail = null;
        return head;
    }

    private void markPosted() {
        for (int i = 0; i < count; i++) {
            if (mrs[i] != null) {
                mrs[i].posted = true;
            }
        }
    }

    /**
     * Marks the handle of segment {@code i} as invalidated by the device already, because this side posted an RDMA
     * READ with Invalidate naming it (server, {@link ChunkRole#RDMA_READ_SINK}) and the READ completed successfully.
     * Its LOCAL_INV is then skipped.
     */
    public void invalidatedByRead(int i) {
        checkSegment(i);
        if (mrs[i] != null) {
            mrs[i].invalidated = true;
        }
    }

    /**
     * Invalidates every handle, taking the reply's receive completion into account: when it carries
     * {@link WorkCompletion#WITH_INVALIDATE}, see {@link #invalidateAfterRemote}.
     */
    public boolean invalidate(WorkCompletion receive, InvalidationListener listener) {
        if (receive != null && receive.withInvalidate()) {
            return invalidateAfterRemote(receive.invalidatedStag, listener);
        }
        return invalidate(listener);
    }

    /**
     * Invalidates every handle this RPC exposed (LOCAL_INV chained, only the last signaled; FMR unmap; REG_MR
     * deregistration).
     *
     * @return true when every handle is invalid on return (the listener is not called); false when
     * {@code listener.onInvalidated(this)} follows from {@link RegistrationPool#onCompletion}
     */
    public boolean invalidate(InvalidationListener listener) {
        return invalidate(false, 0, listener);
    }

    /**
     * As {@link #invalidate(InvalidationListener)} after a peer's Send with Invalidate named {@code stag}: if it is
     * one of this RPC's handles (counted REMOTE_INV_HONOURED) its LOCAL_INV is skipped; otherwise it is counted as
     * REMOTE_INV_REFUSED and ignored — a peer may not invalidate another RPC's memory on our behalf.
     */
    public boolean invalidateAfterRemote(int stag, InvalidationListener listener) {
        return invalidate(true, stag, listener);
    }

    private boolean invalidate(boolean remote, int stag, InvalidationListener listener) {
        State s = state;
        if (s == State.INVALIDATING) {
            throw new IllegalStateException("registration " + index + " is already being invalidated");
        }
        if (s == State.IDLE || epoch != pool.epoch()) {
            // nothing mapped, or the connection was reset: the pool destroyed the handles already
            forget();
            return true;
        }
        if (remote) {
            Mr match = null;
            for (int i = 0; i < count; i++) {
                Mr mr = mrs[i];
                if (mr != null && mr.rkey == stag && mr.posted) {
                    match = mr;
                    break;
                }
            }
            if (match != null) {
                match.invalidated = true;
                pool.counters().increment(RegistrationCounter.REMOTE_INV_HONOURED);
            } else {
                pool.counters().increment(RegistrationCounter.REMOTE_INV_REFUSED);
            }
        }
        this.listener = listener;
        state = State.INVALIDATING;
        lastInvSlot = -1;
        if (ops.invalidate(this)) {
            complete(false);
            return true;
        }
        return false;
    }

    /**
     * Finishes an invalidation: every handle still INVALIDATING goes back to the free list, or is recovered when it
     * failed. Then the listener is told (when {@code notify}). Connection thread.
     */
    void complete(boolean notify) {
        for (int i = 0; i < count; i++) {
            Mr mr = mrs[i];
            if (mr != null && mr.state == Mr.State.INVALIDATING) {
                if (mr.failed) {
                    pool.recover(mr);
                } else {
                    pool.release(mr);
                }
            }
        }
        InvalidationListener l = listener;
        forget();
        if (notify && l != null) {
            l.onInvalidated(this);
        }
    }

    /** Drops every segment without touching the handles (they were released, or destroyed by a reset). */
    private void forget() {
        Arrays.fill(mrs, 0, count, null);
        count = 0;
        chainHead = null;
        chainTail = null;
        listener = null;
        lastInvSlot = -1;
        state = State.IDLE;
    }

    /** Called by {@link RegistrationPool#onDisconnect()} for a registration whose invalidation can no longer finish. */
    void abandonForReset() {
        InvalidationListener l = listener;
        forget();
        if (l != null) {
            l.onInvalidated(this);
        }
    }

    // --- for the strategies ---

    State state() {
        return state;
    }

    int epoch() {
        return epoch;
    }

    int count() {
        return count;
    }

    Mr mr(int i) {
        return mrs[i];
    }

    RegistrationPool pool() {
        return pool;
    }

    @Override
    public String toString() {
        return "Registration[" + index + " " + state + ", xid=0x" + Integer.toHexString(xid) + ", " + count
                + " segments]";
    }
}
