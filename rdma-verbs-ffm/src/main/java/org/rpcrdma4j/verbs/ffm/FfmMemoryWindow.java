package org.rpcrdma4j.verbs.ffm;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicBoolean;

import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.FastRegMemoryRegion;
import org.rpcrdma4j.verbs.MrState;
import org.rpcrdma4j.verbs.PageList;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.Stag;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.ffm.internal.Errno;
import org.rpcrdma4j.verbs.ffm.internal.Ibv;
import org.rpcrdma4j.verbs.ffm.internal.IbvAbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A type 2 memory window ({@code ibv_alloc_mw}), the ffm provider's fast-register region: REG_MR binds it
 * ({@code IBV_WR_BIND_MW}) over a run of memory registered on its domain, at that memory's address; LOCAL_INV or a
 * peer's Send with Invalidate unbinds it. Its local key is the bound memory's (a window is for remote access). The
 * state follows the requests as they are posted, in order: a bind posted makes it valid, an invalidation posted or
 * received makes it invalid.
 */
final class FfmMemoryWindow implements FastRegMemoryRegion {
    private static final Logger LOG = LoggerFactory.getLogger(FfmMemoryWindow.class);
    /** The rights a window can grant; local access is the bound memory's. */
    private static final int REMOTE = Access.REMOTE_WRITE | Access.REMOTE_READ;

    private final FfmProtectionDomain pd;
    private final MemorySegment mw;
    private final int maxPages;
    private final int index;
    private volatile int rkey;
    private volatile int lkey;
    private volatile long iova;
    private volatile long length;
    private volatile int access;
    private volatile MrState state = MrState.INVALID;
    private final AtomicBoolean closed = new AtomicBoolean();

    FfmMemoryWindow(FfmProtectionDomain pd, int maxPages) throws VerbsException {
        FfmDevice device = pd.ffmDevice();
        try (Arena arena = Arena.ofConfined()) {
            this.mw = Ibv.allocMw(device.context(), pd.pd(), IbvAbi.MW_TYPE_2, Errno.allocate(arena));
        }
        this.pd = pd;
        this.maxPages = maxPages;
        this.rkey = mw.get(JAVA_INT, IbvAbi.MW_RKEY);
        this.lkey = rkey;
        this.index = Stag.index(rkey);
        pd.users.incrementAndGet();
        device.mrs.incrementAndGet();
        device.windows.add(this);
        device.open.add(this);
    }

    /**
     * Why {@code wr} (a REG_MR on this provider) cannot be posted, or null when it can: its region must be a window of
     * {@code pd}, and its page list one run of a table over memory registered on {@code pd}, at that memory's address.
     */
    static String refusal(SendWorkRequest wr, FfmProtectionDomain pd) {
        if (!(wr.mr instanceof FfmMemoryWindow w) || w.pd != pd) {
            return "REG_MR needs a region from allocFastRegMr on the queue pair's protection domain";
        }
        PageList list = wr.pageList;
        if (list == null || list.count() > w.maxPages) {
            return "REG_MR of " + (list == null ? "no page list" : list.count() + " pages") + " on a window of "
                    + w.maxPages;
        }
        String refusal = list.windowRefusal(pd);
        if (refusal != null) {
            return refusal;
        }
        if (Stag.index(wr.key) != w.index) {
            // rxe takes only the new key's low 8 bits and binds under the window's own index: the consumer would
            // advertise an STag nobody can use
            return "REG_MR's new STag " + Stag.toString(wr.key) + " has another index than the window's "
                    + Stag.toString(w.rkey);
        }
        return null;
    }

    /** The native window. */
    MemorySegment mw() {
        return mw;
    }

    int index() {
        return index;
    }

    /** The rights of {@code access} a bind grants (libibverbs' values). */
    static int windowAccess(int access) {
        return access & REMOTE;
    }

    /**
     * A bind of this window was posted (on the posting thread, in posting order). The native window's key follows,
     * as {@code ibv_bind_mw} keeps it for type 1 windows: providers name a window by it in the next bind (rxe refuses
     * a stale one).
     */
    void bound(int key, long iova, long length, int access, int backingLkey) {
        mw.set(JAVA_INT, IbvAbi.MW_RKEY, key);
        this.rkey = key;
        this.iova = iova;
        this.length = length;
        this.access = access;
        this.lkey = backingLkey;
        this.state = MrState.VALID;
    }

    /** An invalidation of {@code stag} was posted or received: the window is invalid if that is its current key. */
    void invalidated(int stag) {
        if (stag == rkey && state == MrState.VALID) {
            state = MrState.INVALID;
        }
    }

    @Override
    public int maxPages() {
        return maxPages;
    }

    @Override
    public ProtectionDomain protectionDomain() {
        return pd;
    }

    @Override
    public int lkey() {
        return lkey;
    }

    @Override
    public int rkey() {
        return rkey;
    }

    @Override
    public long iova() {
        return state == MrState.VALID ? iova : 0;
    }

    @Override
    public long length() {
        return state == MrState.VALID ? length : 0;
    }

    @Override
    public int access() {
        return state == MrState.VALID ? access : 0;
    }

    @Override
    public MrState state() {
        return closed.get() ? MrState.FREE : state;
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        FfmDevice device = pd.ffmDevice();
        device.open.remove(this);
        device.windows.remove(this);
        try {
            Ibv.deallocMw(device.context(), mw);
        } catch (VerbsException e) {
            LOG.warn("ibv_dealloc_mw failed: {}", e.getMessage());
        }
        device.mrs.decrementAndGet();
        pd.users.decrementAndGet();
    }
}
