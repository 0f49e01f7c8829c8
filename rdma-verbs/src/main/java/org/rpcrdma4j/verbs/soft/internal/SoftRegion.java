package org.rpcrdma4j.verbs.soft.internal;

import java.nio.ByteBuffer;

import org.rpcrdma4j.verbs.MemoryRegion;
import org.rpcrdma4j.verbs.MrState;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.Stag;

/**
 * A memory region of the software device: its STag state and the way to its bytes.
 * <p>
 * State (STag, state, IOVA, length, access and the mapping) changes under the region's monitor: by verbs on consumer
 * threads (register, FMR map/unmap, close) and by work requests on engine threads (REG_MR, invalidation). Every
 * tagged or local access first calls {@link #check} (under the same monitor), which also publishes the mapping to
 * the checking thread; the piece methods that follow read it without locking.
 * <p>
 * Every such change also advances the region's {@link #generation}. A transfer checked once but carried out piece
 * by piece (a tagged message's segments, a Send's receive, a Read Response's source) reads the generation before its
 * check and compares it before each scattering read or gathering write: one field read, so that memory invalidated,
 * mapped anew or deregistered meanwhile is neither written nor read any more (siw checks the memory for every part
 * it places). A change that comes while a socket call is already under way lets that call finish.
 * <p>
 * Bytes are reached through "pieces": the buffer that holds the byte at a mapping offset, its index there and how
 * many bytes follow contiguously. Engine threads set position and limit on those buffers just before a socket call;
 * other threads use only absolute accessors.
 */
abstract class SoftRegion implements MemoryRegion {
    /** {@link #check} result: the STag is unknown, not valid, or its key does not match. */
    static final long INVALID_STAG = -1;
    /** {@link #check} result: the region belongs to another protection domain. */
    static final long PD_MISMATCH = -2;
    /** {@link #check} result: an access right is missing. */
    static final long ACCESS_VIOLATION = -3;
    /** {@link #check} result: the range leaves the region. */
    static final long BOUNDS_VIOLATION = -4;
    /** {@link #check} result: tagged offset plus length wraps around 2^64. */
    static final long TO_WRAP = -5;

    /** {@link #invalidate} result: the region may not be invalidated this way (memory registered synchronously). */
    static final int INVALIDATE_NOT_ALLOWED = -6;

    final SoftDevice device;
    final SoftPd pd;
    private final int index;

    private volatile int stag;
    private volatile MrState state;
    /** Advanced (under the monitor) by every change of state, STag or mapping; see the class comment. */
    private volatile int generation;
    private long iova;
    private long length;
    private int access;

    SoftRegion(SoftDevice device, SoftPd pd, int index, MrState initialState) {
        this.device = device;
        this.pd = pd;
        this.index = index;
        this.stag = Stag.of(index, 0);
        this.state = initialState;
    }

    final int index() {
        return index;
    }

    @Override
    public final ProtectionDomain protectionDomain() {
        return pd;
    }

    @Override
    public final int lkey() {
        return stag;
    }

    @Override
    public final int rkey() {
        return stag;
    }

    @Override
    public final synchronized long iova() {
        return iova;
    }

    @Override
    public final synchronized long length() {
        return length;
    }

    @Override
    public final synchronized int access() {
        return access;
    }

    @Override
    public final MrState state() {
        return state;
    }

    /**
     * The count of changes of state, STag or mapping so far. Read before {@link #check}: while it is unchanged, what
     * the check allowed still holds.
     */
    final int generation() {
        return generation;
    }

    /** Whether a peer's Send with Invalidate or a local invalidation may invalidate this region. */
    abstract boolean invalidatable();

    /**
     * Checks an access and returns the mapping offset of {@code address}, or a negative result. Order as siw: STag
     * (state and key), protection domain, access rights, bounds.
     *
     * @param rights {@link org.rpcrdma4j.verbs.Access} flags needed (0 for a local read)
     */
    final synchronized long check(int stag, SoftPd domain, int rights, long address, long len) {
        if (state != MrState.VALID || stag != this.stag) {
            return INVALID_STAG;
        }
        if (domain != pd) {
            return PD_MISMATCH;
        }
        if ((access & rights) != rights) {
            return ACCESS_VIOLATION;
        }
        long end = address + len;
        if (Long.compareUnsigned(end, address) < 0) {
            return TO_WRAP;
        }
        if (Long.compareUnsigned(address, iova) < 0 || Long.compareUnsigned(end, iova + length) > 0) {
            return BOUNDS_VIOLATION;
        }
        return address - iova;
    }

    /**
     * Checks a range for an inline copy at post time (no key or rights check: inline data is copied by the CPU) and
     * returns its mapping offset, or a negative result.
     */
    final synchronized long checkInline(long address, long len) {
        if (state == MrState.FREE || state == MrState.INVALID) {
            return INVALID_STAG;
        }
        long end = address + len;
        if (Long.compareUnsigned(address, iova) < 0 || Long.compareUnsigned(end, iova + length) > 0
                || Long.compareUnsigned(end, address) < 0) {
            return BOUNDS_VIOLATION;
        }
        return address - iova;
    }

    /**
     * Invalidates the region named by {@code stag}. Invalidating an invalid region is not an error; a valid region
     * whose key differs is.
     *
     * @return 0, or {@link #INVALID_STAG}, {@link #PD_MISMATCH}, {@link #INVALIDATE_NOT_ALLOWED}
     */
    final synchronized int invalidate(int stag, SoftPd domain) {
        if (state == MrState.FREE) {
            return (int) INVALID_STAG;
        }
        if (domain != pd) {
            return (int) PD_MISMATCH;
        }
        if (!invalidatable()) {
            return INVALIDATE_NOT_ALLOWED;
        }
        if (state == MrState.VALID && stag != this.stag) {
            return (int) INVALID_STAG;
        }
        state = MrState.INVALID;
        generation++;
        return 0;
    }

    /** Makes the region valid with a new STag, range and rights (caller holds the monitor). */
    final void validate(int newStag, long newIova, long newLength, int newAccess) {
        stag = newStag;
        iova = newIova;
        length = newLength;
        access = newAccess;
        state = MrState.VALID;
        generation++;
    }

    /** Sets the state (caller holds the monitor). */
    final void setState(MrState newState) {
        state = newState;
        generation++;
    }

    /** The buffer holding the byte at mapping offset {@code offset}, for use on engine {@code engineId}. */
    abstract ByteBuffer piece(long offset, int engineId);

    /**
     * Another buffer object over the same bytes as {@link #piece}, number {@code variant} (from 1), or null when the
     * region has no more: lets one gathering write name the same memory several times (a region has one position
     * per buffer object). Engine thread only.
     */
    ByteBuffer pieceVariant(long offset, int engineId, int variant) {
        return null;
    }

    /** The index within {@link #piece} of the byte at mapping offset {@code offset}. */
    abstract int pieceIndex(long offset);

    /**
     * Bytes of the piece holding mapping offset {@code offset} that come before it: what a DDP segment ending at
     * {@code offset} would take of a piece whose rest starts the next segment. Such a next segment needs the same
     * buffer object again in the same gathering write, which a region without {@link #pieceVariant}s cannot give,
     * so the write would end after one segment. 0 where it costs nothing: at a piece boundary, or for a region that
     * has variants.
     */
    int pieceCut(long offset) {
        return 0;
    }

    /** Bytes that follow contiguously in {@link #piece} from mapping offset {@code offset}. */
    abstract int pieceRemaining(long offset);

    /** Copies bytes out with absolute accessors only (safe on any thread). */
    abstract void copyOut(long offset, ByteBuffer dst, int dstIndex, int len);

    /** Releases the region: its STag leaves the table and it becomes FREE. Idempotent. */
    @Override
    public final void close() {
        synchronized (this) {
            if (state == MrState.FREE) {
                return;
            }
            state = MrState.FREE;
            generation++;
            onFree();
        }
        device.stags.remove(this);
        pd.regionClosed(this);
    }

    /** Called once, under the monitor, when the region is freed. */
    void onFree() {
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[stag=" + Stag.toString(stag) + ", " + state + "]";
    }
}
