package org.rpcrdma4j.registration;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import io.netty.util.IllegalReferenceCountException;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.RegisteredMemory;
import org.rpcrdma4j.verbs.Stag;
import org.rpcrdma4j.verbs.VerbsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Registered memory for bulk data and transport buffers: big direct arenas registered once with LOCAL_WRITE, handed
 * out page-granular as {@link RegisteredBuffer}s (contiguous runs of pages within one arena).
 * <p>
 * Bounded by {@link BufferPoolConfig#maxArenas()}. When no arena has room:
 * <ul>
 * <li>{@link #allocate(int)} registers a new arena if the bound allows, otherwise waits (counted in
 * {@link #waits()}) for released pages, and after {@link BufferPoolConfig#allocateTimeout()} throws
 * {@link BufferPoolExhaustedException};</li>
 * <li>{@link #tryAllocate(int)} never waits: it returns {@code null}.</li>
 * </ul>
 * Registering a new arena is a synchronous device call made on the allocating thread.
 * <p>
 * Thread-safe: allocate and release from any thread. Buffers are tracked by Netty's leak detector (its level, e.g.
 * {@code -Dio.netty.leakDetection.level=paranoid}, applies); {@link #pagesInUse()} gives an exact count for tests.
 * The pool owns its arenas: {@link #close()} deregisters them.
 */
public final class RegisteredBufferPool implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RegisteredBufferPool.class);
    private static final ResourceLeakDetector<RegisteredBuffer> LEAKS =
            ResourceLeakDetectorFactory.instance().newResourceLeakDetector(RegisteredBuffer.class);

    private final ProtectionDomain pd;
    private final BufferPoolConfig config;
    private final int pageSize = BufferPoolConfig.PAGE_SIZE;
    private final int pagesPerArena;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition released = lock.newCondition();
    private final List<RegisteredArena> arenas = new ArrayList<>();
    /** Per arena, one bit per page: set = in use. Guarded by lock. */
    private final List<long[]> used = new ArrayList<>();
    /** Per arena, per page: the live buffer holding it, or null. Guarded by lock. */
    private final List<RegisteredBuffer[]> owners = new ArrayList<>();
    /** Per arena, its pages not in use (an arena with fewer than a request needs is not searched). Guarded by lock. */
    private int[] freePages = new int[0];
    private int pagesInUse;
    private boolean closed;
    /** Set by {@link #refuseWaits()}: an allocation that cannot be had at once fails instead of waiting. */
    private boolean refusingWaits;
    private final AtomicLong waits = new AtomicLong();
    private final AtomicLong timeouts = new AtomicLong();

    private RegisteredBufferPool(ProtectionDomain pd, BufferPoolConfig config) {
        this.pd = pd;
        this.config = config;
        this.pagesPerArena = config.arenaSize() / pageSize;
    }

    /** Creates a pool and registers its initial arenas with {@code pd} (which the pool borrows). */
    public static RegisteredBufferPool create(ProtectionDomain pd, BufferPoolConfig config) throws VerbsException {
        RegisteredBufferPool pool = new RegisteredBufferPool(pd, config);
        try {
            for (int i = 0; i < config.initialArenas(); i++) {
                pool.lock.lock();
                try {
                    pool.addArena();
                } finally {
                    pool.lock.unlock();
                }
            }
        } catch (VerbsException | RuntimeException e) {
            pool.close();
            throw e;
        }
        return pool;
    }

    public BufferPoolConfig config() {
        return config;
    }

    /**
     * A buffer of {@code size} bytes (taking whole pages), waiting up to the configured timeout for room.
     *
     * @throws BufferPoolExhaustedException when no room appeared in time
     * @throws InterruptedException         when interrupted while waiting
     * @throws VerbsException               when registering a new arena failed
     */
    public RegisteredBuffer allocate(int size) throws VerbsException, InterruptedException {
        return allocate(size, config.allocateTimeout().toNanos());
    }

    /** As {@link #allocate(int)} with an explicit timeout. */
    public RegisteredBuffer allocate(int size, long timeout, TimeUnit unit) throws VerbsException, InterruptedException {
        return allocate(size, unit.toNanos(timeout));
    }

    /** A buffer of {@code size} bytes, or {@code null} when there is no room now (never waits). */
    public RegisteredBuffer tryAllocate(int size) throws VerbsException {
        int pages = pagesFor(size);
        lock.lock();
        try {
            ensureOpen();
            return tryAllocateLocked(size, pages);
        } finally {
            lock.unlock();
        }
    }

    private RegisteredBuffer allocate(int size, long timeoutNanos) throws VerbsException, InterruptedException {
        int pages = pagesFor(size);
        lock.lock();
        try {
            ensureOpen();
            RegisteredBuffer buffer = tryAllocateLocked(size, pages);
            if (buffer != null) {
                return buffer;
            }
            waits.incrementAndGet();
            long remaining = timeoutNanos;
            while (true) {
                if (refusingWaits) {
                    throw new VerbsException("registered buffer pool is closing: no room for " + size + " bytes now");
                }
                if (remaining <= 0) {
                    timeouts.incrementAndGet();
                    throw new BufferPoolExhaustedException("no room for " + size + " bytes (" + pages
                            + " pages) in " + arenas.size() + " arenas of " + config.arenaSize() + " bytes after "
                            + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms; " + pagesInUse + " of "
                            + arenas.size() * pagesPerArena + " pages in use");
                }
                remaining = released.awaitNanos(remaining);
                ensureOpen();
                buffer = tryAllocateLocked(size, pages);
                if (buffer != null) {
                    return buffer;
                }
            }
        } finally {
            lock.unlock();
        }
    }

    private int pagesFor(int size) {
        if (size <= 0 || size > config.arenaSize()) {
            throw new IllegalArgumentException("buffer size must be 1.." + config.arenaSize() + ": " + size);
        }
        return (size + pageSize - 1) / pageSize;
    }

    private RegisteredBuffer tryAllocateLocked(int size, int pages) throws VerbsException {
        for (int a = 0; a < arenas.size(); a++) {
            if (freePages[a] < pages) {
                continue;
            }
            int first = findRun(used.get(a), pages);
            if (first >= 0) {
                return take(a, first, pages, size);
            }
        }
        if (arenas.size() < config.maxArenas()) {
            int a = addArena();
            return take(a, 0, pages, size);
        }
        return null;
    }

    private RegisteredBuffer take(int arenaIndex, int first, int pages, int size) {
        long[] bits = used.get(arenaIndex);
        for (int p = first; p < first + pages; p++) {
            bits[p >>> 6] |= 1L << p;
        }
        pagesInUse += pages;
        freePages[arenaIndex] -= pages;
        RegisteredBuffer buffer = new RegisteredBuffer(this, arenas.get(arenaIndex), first, pages, size);
        buffer.leakTracker(LEAKS.track(buffer));
        Arrays.fill(owners.get(arenaIndex), first, first + pages, buffer);
        return buffer;
    }

    /**
     * First fit: the lowest page starting {@code pages} free pages in a row, or -1. A word of 64 pages at a time when
     * it is all used or all free (most are, in a busy pool of large buffers), page by page only where they mix.
     */
    static int findRun(long[] bits, int pagesPerArena, int pages) {
        int run = 0;
        for (int w = 0, base = 0; base < pagesPerArena; w++, base += 64) {
            long word = bits[w];
            int inWord = Math.min(64, pagesPerArena - base);
            if (word == -1L) {
                run = 0;
            } else if (word == 0L) {
                if (run + inWord >= pages) {
                    return base - run;
                }
                run += inWord;
            } else {
                for (int b = 0; b < inWord; b++) {
                    if ((word & (1L << b)) != 0) {
                        run = 0;
                    } else if (++run == pages) {
                        return base + b - pages + 1;
                    }
                }
            }
        }
        return -1;
    }

    private int findRun(long[] bits, int pages) {
        return findRun(bits, pagesPerArena, pages);
    }

    private int addArena() throws VerbsException {
        int id = arenas.size();
        RegisteredArena arena;
        ByteBuffer memory = RegisteredArena.allocateAligned(config.arenaSize(), pageSize);
        RegisteredMemory region = pd.registerMemory(memory.duplicate().clear(), Access.LOCAL_WRITE);
        arena = new RegisteredArena(id, memory, pageSize, region);
        arenas.add(arena);
        used.add(new long[(pagesPerArena + 63) / 64]);
        owners.add(new RegisteredBuffer[pagesPerArena]);
        if (freePages.length < arenas.size()) {
            freePages = Arrays.copyOf(freePages, Math.max(4, freePages.length * 2));
        }
        freePages[id] = pagesPerArena;
        LOG.debug("registered arena {} ({} bytes), lkey {}", id, config.arenaSize(),
                Stag.toString(region.lkey()));
        return id;
    }

    void free(RegisteredArena arena, int first, int pages) {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            long[] bits = used.get(arena.id());
            for (int p = first; p < first + pages; p++) {
                long mask = 1L << p;
                if ((bits[p >>> 6] & mask) == 0) {
                    throw new IllegalStateException("page " + p + " of arena " + arena.id() + " freed twice");
                }
                bits[p >>> 6] &= ~mask;
            }
            Arrays.fill(owners.get(arena.id()), first, first + pages, null);
            pagesInUse -= pages;
            freePages[arena.id()] += pages;
            released.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private void ensureOpen() throws VerbsException {
        if (closed) {
            throw new VerbsException("registered buffer pool is closed");
        }
    }

    /**
     * The live buffer of this pool whose memory holds all of {@code range} (a direct buffer's position..limit, such as
     * a view a caller made of one of this pool's buffers), retained for the caller, who must release it; or null when
     * the range is not wholly inside one live buffer of this pool (heap or foreign memory, or a buffer already
     * released). The match is by native address: it finds a buffer from its plain NIO views, which no longer know where
     * they came from. {@link RegisteredBuffer#indexOf(ByteBuffer)} then gives the range's index in it.
     */
    public RegisteredBuffer retainOwner(ByteBuffer range) {
        long address = range.hasRemaining() ? DirectAddresses.atPosition(range) : 0;
        if (address == 0) {
            return null;
        }
        long end = address + range.remaining();
        lock.lock();
        try {
            if (closed) {
                return null;
            }
            for (int a = 0; a < arenas.size(); a++) {
                RegisteredArena arena = arenas.get(a);
                long base = arena.nativeAddress();
                if (base == 0 || address < base || end > base + arena.size()) {
                    continue;
                }
                RegisteredBuffer owner = owners.get(a)[(int) ((address - base) / pageSize)];
                if (owner == null || end > base + owner.arenaOffset() + owner.capacity()) {
                    return null;
                }
                try {
                    owner.retain();
                } catch (IllegalReferenceCountException released) {
                    return null; // being released on another thread: its pages are going back
                }
                return owner;
            }
            return null;
        } finally {
            lock.unlock();
        }
    }

    /** Pages currently held by live buffers. */
    public int pagesInUse() {
        lock.lock();
        try {
            return pagesInUse;
        } finally {
            lock.unlock();
        }
    }

    /** Pages in all registered arenas. */
    public int pagesTotal() {
        lock.lock();
        try {
            return arenas.size() * pagesPerArena;
        } finally {
            lock.unlock();
        }
    }

    public int arenaCount() {
        lock.lock();
        try {
            return arenas.size();
        } finally {
            lock.unlock();
        }
    }

    /** Allocations that had to wait for room. */
    public long waits() {
        return waits.get();
    }

    /** Allocations that gave up after the timeout. */
    public long timeouts() {
        return timeouts.get();
    }

    /**
     * From now on an allocation that cannot be had at once fails ({@link VerbsException}) instead of waiting for
     * memory to come back, and the allocations waiting now fail too: for an owner that is closing, whose callers must
     * not wait for memory that only its own close would give back. Allocations that fit still succeed.
     */
    public void refuseWaits() {
        lock.lock();
        try {
            refusingWaits = true;
            released.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Deregisters every arena and wakes waiters (they fail). Buffers still alive keep their Java memory but lose
     * their registration; their release is then a no-op. Idempotent.
     */
    @Override
    public void close() {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            if (pagesInUse != 0) {
                LOG.warn("closing registered buffer pool with {} pages still in use", pagesInUse);
            }
            for (RegisteredArena arena : arenas) {
                arena.region().close();
            }
            released.signalAll();
        } finally {
            lock.unlock();
        }
    }
}
