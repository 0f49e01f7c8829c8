package org.rpcrdma4j.registration;

import java.util.Arrays;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.DeviceAttributes;
import org.rpcrdma4j.verbs.DeviceCapability;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.TransportType;
import org.rpcrdma4j.verbs.MemoryRegion;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.WcStatus;
import org.rpcrdma4j.verbs.WorkCompletion;
import org.rpcrdma4j.verbs.util.EnumCounters;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A connection's registration handles: allocated up front when the connection is set up, sized from the device's
 * fast-register depth and the credit limit, lent to {@link Registration}s (one per request slot) while an RPC
 * exposes memory, and destroyed and rebuilt when the connection is lost.
 * <p>
 * Set-up order for the transport:
 * <pre>
 * pool = RegistrationPool.create(pd, config);          // chooses the strategy, allocates the handles
 * CompletionQueue sendCq = pool.wrap(deviceSendCq);   // poll this one (FMR inserts its unmap completions)
 * qp = pd.createQueuePair(... deviceSendCq ...);       // the device queue, not the wrapper
 * pool.attach(qp);                                     // LOCAL_INV chains are posted here
 * registration = pool.newRegistration();               // once per request slot
 * </pre>
 * Threads: taking handles (inside {@link Registration#map}) is safe from any thread and is the only place that
 * blocks. {@link #attach}, {@link #onCompletion}, {@link #onDisconnect()} and the invalidation methods of
 * {@link Registration} belong to the connection's thread (the one that posts to the QP and polls the send CQ).
 * {@link #owns}, the gauges and the counters may be read anywhere.
 */
public final class RegistrationPool implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RegistrationPool.class);
    private static final long GROW_BACKOFF_FIRST_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final long GROW_BACKOFF_MAX_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final AtomicInteger THREADS = new AtomicInteger();

    private final ProtectionDomain pd;
    private final RegistrationConfig config;
    private final DeviceAttributes attributes;
    private final MemRegOps ops;
    private final EnumCounters<RegistrationCounter> counters = new EnumCounters<>(RegistrationCounter.class);
    private final int targetHandles;
    private final int maxHandles;
    private final int maxSegments;
    private final int handlesPerRpc;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition returned = lock.newCondition();
    /** Handle table by slot; null = empty slot. Guarded by lock. */
    private final Mr[] table;
    /** Free slots, as a stack. Guarded by lock. */
    private final int[] free;
    private int freeCount;
    private int allocated;
    private boolean growing;
    /**
     * After a growth that failed (the device out of memory regions, say): no new growth before this time on
     * {@code System.nanoTime()}'s clock, so that waiters wait instead of retrying the device in a loop.
     */
    private long growBlockedUntil;
    /** The pause after the last failed growth (100 ms, doubling to 1 s); 0 once a growth worked. */
    private long growBackoffNanos;
    /** Why the last growth failed, while no growth has worked since (named when a waiter gives up). */
    private Throwable growFailure;
    /** Slots being filled by background growth outside the lock. */
    private int reserved;
    private boolean closed;
    /** Set by {@link #refuseWaits()}: a request for handles that are not free fails instead of waiting. */
    private boolean refusingWaits;
    private volatile int epoch;
    private volatile QueuePair qp;
    private volatile Registration[] registrations = new Registration[0];
    private final Executor executor;
    private final ExecutorService ownedExecutor;

    private RegistrationPool(ProtectionDomain pd, RegistrationConfig config, RegistrationMode mode)
            throws VerbsException {
        this.pd = pd;
        this.config = config;
        this.attributes = pd.device().attributes();
        int depth = attributes.maxFastRegDepth();
        if (config.maxPagesPerHandle() > 0) {
            depth = depth > 0 ? Math.min(depth, config.maxPagesPerHandle()) : config.maxPagesPerHandle();
        }
        switch (mode) {
            case FRWR:
                ops = new FrwrOps(this, depth, attributes.has(DeviceCapability.MEMORY_WINDOW));
                break;
            case FMR:
                ops = new FmrOps(this, depth);
                break;
            case REG_MR:
                ops = new RegMrOps(this, config.maxPagesPerHandle() > 0 ? config.maxPagesPerHandle()
                        : Integer.MAX_VALUE);
                break;
            default:
                throw new IllegalStateException("unresolved mode " + mode);
        }
        int perRpcDepth = Math.min(ops.maxPages(), (config.maxPayloadBytes() / RegistrationConfig.PAGE_SIZE) + 2);
        this.handlesPerRpc = config.handlesPerRpc(Math.max(1, perRpcDepth));
        this.targetHandles = config.handles() > 0 ? config.handles() : handlesPerRpc * config.credits();
        this.maxHandles = config.maxHandles() > 0 ? Math.max(config.maxHandles(), targetHandles) : 2 * targetHandles;
        this.maxSegments = config.maxSegmentsPerRpc() > 0 ? config.maxSegmentsPerRpc()
                : Math.max(16, 2 * handlesPerRpc);
        this.table = new Mr[maxHandles];
        this.free = new int[maxHandles];
        if (config.executor() != null) {
            this.executor = config.executor();
            this.ownedExecutor = null;
        } else {
            this.ownedExecutor = Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, "rpcrdma-registration-" + THREADS.incrementAndGet());
                t.setDaemon(true);
                return t;
            });
            this.executor = ownedExecutor;
        }
    }

    /**
     * Creates a connection's pool: resolves the strategy from the device's capabilities and the configured mode,
     * and allocates every handle up front.
     *
     * @param pd borrowed; the pool's handles live in it
     * @throws UnsupportedModeException when the configured mode needs a capability the device lacks
     * @throws VerbsException           when allocating the handles failed (nothing is left allocated)
     */
    public static RegistrationPool create(ProtectionDomain pd, RegistrationConfig config) throws VerbsException {
        RegistrationMode mode = config.mode().resolve(pd.device().attributes());
        RegistrationPool pool = new RegistrationPool(pd, config, mode);
        try {
            pool.fill();
        } catch (VerbsException | RuntimeException e) {
            pool.close();
            throw e;
        }
        LOG.debug("registration pool: {} handles of {} pages ({} per RPC), up to {}", pool.targetHandles,
                pool.ops.maxPages(), pool.handlesPerRpc, pool.maxHandles);
        return pool;
    }

    /** Allocates handles until the target count is reached. */
    private void fill() throws VerbsException {
        lock.lock();
        try {
            for (int slot = 0; slot < maxHandles && allocated < targetHandles; slot++) {
                if (table[slot] == null) {
                    Mr mr = ops.open(slot);
                    install(mr);
                }
            }
        } finally {
            lock.unlock();
        }
    }

    private void install(Mr mr) {
        table[mr.slot] = mr;
        free[freeCount++] = mr.slot;
        allocated++;
        counters.increment(RegistrationCounter.MRS_ALLOCATED);
    }

    // ------------------------------------------------------------------ set-up

    /** The strategy in use. */
    public RegistrationMode mode() {
        return ops.mode();
    }

    /**
     * The completion queue the transport polls instead of the device's send CQ: the same queue for FRWR and REG_MR;
     * for FMR a wrapper that returns the unmap completions ({@link org.rpcrdma4j.verbs.WcOpcode#FMR_UNMAP}) ahead of
     * the device's and fires the listener for them when armed. Closing the wrapper closes the device queue. Call
     * once per connection, before {@link #attach}.
     */
    public CompletionQueue wrap(CompletionQueue deviceSendCq) {
        return ops.wrap(deviceSendCq);
    }

    /** The queue pair of the current connection: LOCAL_INV chains are posted to its send queue. */
    public void attach(QueuePair qp) {
        this.qp = qp;
    }

    /**
     * A new per-RPC context, owned by the caller (a request slot) for the pool's lifetime; it survives
     * {@link #onDisconnect()}. Set-up path (allocates).
     */
    public Registration newRegistration() {
        synchronized (this) {
            Registration[] old = registrations;
            Registration registration = new Registration(this, ops, old.length, maxSegments);
            Registration[] grown = Arrays.copyOf(old, old.length + 1);
            grown[old.length] = registration;
            registrations = grown;
            return registration;
        }
    }

    // ------------------------------------------------------------------ completions

    /** Whether a send-queue completion belongs to the registration pool (see {@link WrIds}). */
    public boolean owns(long wrId) {
        return WrIds.isRegistration(wrId);
    }

    /**
     * Handles a completion the pool {@link #owns}: a failed or flushed REG_MR or LOCAL_INV marks its handle for
     * recovery; the signaled last LOCAL_INV of a chain, or an FMR unmap completion, finishes its registration and
     * calls its {@link InvalidationListener}. Completions of an earlier connection are counted and ignored.
     * Connection thread; allocation-free.
     */
    public void onCompletion(WorkCompletion wc) {
        long wrId = wc.wrId;
        if (WrIds.epoch(wrId) != epoch) {
            counters.increment(RegistrationCounter.STALE_COMPLETIONS);
            return;
        }
        int index = WrIds.index(wrId);
        switch (WrIds.kind(wrId)) {
            case FAST_REG: {
                Mr mr = handleAt(index);
                if (mr != null && !wc.ok()) {
                    mr.failed = true;
                    if (wc.status != WcStatus.WR_FLUSH_ERR) {
                        counters.increment(RegistrationCounter.REGISTRATION_FAILURES);
                        LOG.warn("fast registration of {} failed: {}", mr, wc);
                    }
                }
                break;
            }
            case LOCAL_INV: {
                Mr mr = handleAt(index);
                if (mr == null) {
                    break;
                }
                if (!wc.ok()) {
                    mr.failed = true;
                    if (wc.status != WcStatus.WR_FLUSH_ERR) {
                        LOG.warn("local invalidation of {} failed: {}", mr, wc);
                    }
                }
                Registration owner = mr.owner;
                if (owner != null && owner.lastInvSlot == index && owner.state() == Registration.State.INVALIDATING) {
                    owner.complete(true);
                }
                break;
            }
            case FMR_UNMAP: {
                Registration[] all = registrations;
                if (index >= 0 && index < all.length && all[index].state() == Registration.State.INVALIDATING) {
                    Registration registration = all[index];
                    if (!wc.ok()) {
                        for (int i = 0; i < registration.count(); i++) {
                            Mr mr = registration.mr(i);
                            if (mr != null) {
                                mr.failed = true;
                            }
                        }
                    }
                    registration.complete(true);
                }
                break;
            }
            default:
                LOG.warn("completion not owned by the registration pool: {}", wc);
        }
    }

    private Mr handleAt(int slot) {
        if (slot < 0 || slot >= table.length) {
            return null;
        }
        lock.lock();
        try {
            return table[slot];
        } finally {
            lock.unlock();
        }
    }

    // ------------------------------------------------------------------ connection loss

    /**
     * The connection is gone (its QP is in error or destroyed): destroys every handle, free or in use (a new QP
     * cannot vouch for their state), rebuilds a full pool for the next connection, and bumps the epoch so that late
     * completions of the old QP are ignored. Registrations waiting for an invalidation are finished (their memory is
     * no longer reachable: its STags are gone) and their listeners called; mapped registrations forget their handles
     * at their next {@code begin} or {@code invalidate}. Detaches the QP; call {@link #attach} for the next one.
     * Connection thread.
     *
     * @throws VerbsException when the rebuild could not allocate handles (the pool is then smaller; it grows back
     *                        on demand)
     */
    public void onDisconnect() throws VerbsException {
        lock.lock();
        try {
            epoch = (epoch + 1) & WrIds.EPOCH_MASK;
            for (int slot = 0; slot < table.length; slot++) {
                Mr mr = table[slot];
                if (mr != null) {
                    ops.destroy(mr);
                    mr.state = Mr.State.DEAD;
                    table[slot] = null;
                }
            }
            freeCount = 0;
            allocated = 0;
            qp = null;
            returned.signalAll();
        } finally {
            lock.unlock();
        }
        ops.reset();
        for (Registration registration : registrations) {
            if (registration.state() == Registration.State.INVALIDATING) {
                registration.abandonForReset();
            }
        }
        fill();
    }

    // ------------------------------------------------------------------ handle lending

    /**
     * Takes {@code n} handles at once into {@code into[0..n)}, waiting while too few are free, at most
     * {@code timeoutNanos} ({@code Long.MAX_VALUE}: without end). Free handles are taken even when the timeout is 0 or
     * less. Any thread.
     *
     * @throws RegistrationPoolExhaustedException when too few were free within the timeout (none was taken)
     */
    void acquire(Registration registration, int n, Mr[] into, long timeoutNanos)
            throws VerbsException, InterruptedException {
        if (n > maxHandles) {
            throw new IllegalStateException("an RPC needs " + n + " handles but the pool holds at most " + maxHandles);
        }
        lock.lock();
        try {
            boolean waited = false;
            long remaining = timeoutNanos;
            while (true) {
                if (closed) {
                    throw new VerbsException("registration pool is closed");
                }
                if (refusingWaits && freeCount < n) {
                    throw new VerbsException("registration pool is closing: " + n + " handles are not free now");
                }
                if (registration.epoch() != epoch) {
                    throw new RegistrationResetException(
                            "the connection was reset while mapping; marshal the RPC again");
                }
                if (freeCount >= n) {
                    break;
                }
                if (!waited) {
                    waited = true;
                    counters.increment(RegistrationCounter.POOL_WAITS);
                }
                long now = System.nanoTime();
                boolean blocked = growBackoffNanos != 0 && growBlockedUntil - now > 0;
                if (!growing && !blocked && allocated < maxHandles) {
                    blocked = !startGrowth();
                }
                if (remaining <= 0) {
                    throw new RegistrationPoolExhaustedException("too few free registration handles within "
                            + TimeUnit.NANOSECONDS.toMillis(Math.max(0, timeoutNanos)) + " ms: needs " + n + ", "
                            + freeCount + " of " + allocated + " free, at most " + maxHandles
                            + (growFailure == null ? "" : "; adding handles failed: " + growFailure));
                }
                // while growth is paused after a failure, look again when the pause ends
                long wait = !growing && blocked && allocated < maxHandles
                        ? Math.min(remaining, growBlockedUntil - now) : remaining;
                remaining -= wait - returned.awaitNanos(wait);
            }
            for (int i = 0; i < n; i++) {
                Mr mr = table[free[--freeCount]];
                mr.take(registration);
                into[i] = mr;
            }
        } finally {
            lock.unlock();
        }
    }

    /** Starts a background growth; false when the executor refused it. Under the lock. */
    private boolean startGrowth() {
        growing = true;
        try {
            executor.execute(this::grow);
            return true;
        } catch (RejectedExecutionException e) {
            growing = false; // else no growth would ever start again
            growthFailed(e);
            return false;
        }
    }

    /**
     * A growth failed: the next waits a pause, from 100 ms doubling to 1 s, so that waiters do not ask the device again
     * and again. Logged once until a growth works again. Under the lock.
     */
    private void growthFailed(Throwable e) {
        if (growFailure == null) {
            LOG.warn("registration pool could not add handles ({} of at most {}): {}; trying again after pauses",
                    allocated, maxHandles, e.toString());
        } else {
            LOG.debug("registration pool could not add handles: {}", e.toString());
        }
        growFailure = e;
        growBackoffNanos = growBackoffNanos == 0 ? GROW_BACKOFF_FIRST_NANOS
                : Math.min(growBackoffNanos * 2, GROW_BACKOFF_MAX_NANOS);
        growBlockedUntil = System.nanoTime() + growBackoffNanos;
    }

    /** Background growth: adds handles (a quarter of the target, at least one) up to the bound. */
    private void grow() {
        int step = Math.max(1, targetHandles / 4);
        try {
            for (int i = 0; i < step; i++) {
                int slot;
                lock.lock();
                try {
                    if (closed || allocated + reserved >= maxHandles) {
                        return;
                    }
                    slot = emptySlot();
                    if (slot < 0) {
                        return;
                    }
                    // reserve the slot while the device call runs outside the lock
                    reserved++;
                } finally {
                    lock.unlock();
                }
                Mr mr = null;
                try {
                    mr = ops.open(slot);
                } finally {
                    lock.lock();
                    try {
                        reserved--;
                        if (mr != null) {
                            if (closed || table[slot] != null) {
                                ops.destroy(mr);
                            } else {
                                install(mr);
                                growFailure = null;
                                growBackoffNanos = 0;
                                returned.signalAll();
                            }
                        }
                    } finally {
                        lock.unlock();
                    }
                }
            }
        } catch (VerbsException | RuntimeException e) {
            lock.lock();
            try {
                growthFailed(e);
            } finally {
                lock.unlock();
            }
        } finally {
            lock.lock();
            try {
                growing = false;
                returned.signalAll();
            } finally {
                lock.unlock();
            }
        }
    }

    private int emptySlot() {
        for (int slot = 0; slot < table.length; slot++) {
            if (table[slot] == null) {
                return slot;
            }
        }
        return -1;
    }

    /** Returns a handle, invalid on the device, to the free list. */
    void release(Mr mr) {
        lock.lock();
        try {
            mr.owner = null;
            if (table[mr.slot] != mr) {
                return; // destroyed by a reset meanwhile
            }
            mr.state = Mr.State.FREE;
            free[freeCount++] = mr.slot;
            counters.increment(RegistrationCounter.MRS_RECYCLED);
            returned.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Gives {@code mr} the region a synchronous registration (REG_MR) just made, unless a reset destroyed the handle
     * while the region was being made: the reset could not close a region it did not see, so the caller must.
     *
     * @return false when the handle was destroyed meanwhile (the region is the caller's to close)
     */
    boolean publish(Mr mr, MemoryRegion region) {
        lock.lock();
        try {
            if (mr.state == Mr.State.DEAD || table[mr.slot] != mr) {
                return false;
            }
            mr.region = region;
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Destroys a handle whose state is unknown and puts a new one in its slot (never reused: a flushed or failed
     * registration may still be valid on the device).
     */
    void recover(Mr mr) {
        lock.lock();
        try {
            mr.owner = null;
            if (table[mr.slot] != mr) {
                return;
            }
            ops.destroy(mr);
            mr.state = Mr.State.DEAD;
            table[mr.slot] = null;
            allocated--;
            counters.increment(RegistrationCounter.MRS_ORPHANED);
            if (!closed) {
                try {
                    install(ops.open(mr.slot));
                    returned.signalAll();
                } catch (VerbsException | RuntimeException e) {
                    LOG.warn("could not replace registration handle {}: {}", mr.slot, e.toString());
                }
            }
        } finally {
            lock.unlock();
        }
    }

    // ------------------------------------------------------------------ for the strategies

    int epoch() {
        return epoch;
    }

    QueuePair queuePair() {
        return qp;
    }

    ProtectionDomain protectionDomain() {
        return pd;
    }

    EnumCounters<RegistrationCounter> counters() {
        return counters;
    }

    TransportType transportType() {
        return attributes.transportType();
    }

    // ------------------------------------------------------------------ gauges

    /** The registration counters (live; snapshot with {@code counters().snapshot()}). */
    public EnumCounters<RegistrationCounter> registrationCounters() {
        return counters;
    }

    /** Handles that exist now (free + in use). */
    public int allocatedHandles() {
        lock.lock();
        try {
            return allocated;
        } finally {
            lock.unlock();
        }
    }

    public int freeHandles() {
        lock.lock();
        try {
            return freeCount;
        } finally {
            lock.unlock();
        }
    }

    /** Handles lent to registrations. */
    public int inUseHandles() {
        lock.lock();
        try {
            return allocated - freeCount;
        } finally {
            lock.unlock();
        }
    }

    /** Handles allocated up front and after each {@link #onDisconnect()}. */
    public int targetHandles() {
        return targetHandles;
    }

    /** The bound of background growth. */
    public int maxHandles() {
        return maxHandles;
    }

    /** Handles the largest configured RPC takes. */
    public int handlesPerRpc() {
        return handlesPerRpc;
    }

    /** Pages one handle maps at most. */
    public int maxPagesPerHandle() {
        return ops.maxPages();
    }

    /** Segments one {@link Registration} holds at most. */
    public int maxSegmentsPerRpc() {
        return maxSegments;
    }

    /**
     * Whether a server should read a client's read chunk with RDMA READ with Invalidate into a per-I/O sink handle
     * (FRWR on a device with READ_WITH_INV, on a transport where the sink needs a handle), then call
     * {@link Registration#invalidatedByRead}.
     */
    public boolean readWithInvalidate() {
        return ops.mode() == RegistrationMode.FRWR && attributes.has(DeviceCapability.READ_WITH_INV)
                && AccessFlags.needsHandle(attributes.transportType(), ChunkRole.RDMA_READ_SINK);
    }

    /**
     * From now on a request for handles that are not free fails ({@link VerbsException}) instead of waiting for them,
     * and the requests waiting now fail too: for an owner that is closing. Requests that can be met still are.
     */
    public void refuseWaits() {
        lock.lock();
        try {
            refusingWaits = true;
            returned.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Destroys every handle and stops background work. Idempotent. */
    @Override
    public void close() {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            epoch = (epoch + 1) & WrIds.EPOCH_MASK;
            for (int slot = 0; slot < table.length; slot++) {
                if (table[slot] != null) {
                    ops.destroy(table[slot]);
                    table[slot].state = Mr.State.DEAD;
                    table[slot] = null;
                }
            }
            freeCount = 0;
            allocated = 0;
            returned.signalAll();
        } finally {
            lock.unlock();
        }
        ops.close();
        if (ownedExecutor != null) {
            ownedExecutor.shutdownNow();
        }
    }

    @Override
    public String toString() {
        return "RegistrationPool[" + mode() + ", " + allocatedHandles() + " handles, " + freeHandles() + " free]";
    }
}
