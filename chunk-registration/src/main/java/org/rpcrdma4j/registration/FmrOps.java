package org.rpcrdma4j.registration;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.Fmr;
import org.rpcrdma4j.verbs.PageList;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.WcStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * FMR: fast memory regions. Map is a synchronous {@code fmr.map(pageList)} at send (the device gives every mapping a
 * new key). Invalidation queues the registration for an unmap thread, which unmaps the FMRs of every queued
 * registration in one {@code unmapFmrs} batch and then hands one synthetic {@code FMR_UNMAP} completion per
 * registration to the {@link FmrCompletionQueue}, so the transport's flow is the same as for FRWR.
 * <p>
 * An FMR's access rights are fixed when it is allocated, so every handle gets REMOTE_READ | REMOTE_WRITE |
 * LOCAL_WRITE, whatever the role (as Linux's FMR mode did): a read-chunk source is remotely writable while exposed.
 * One of the reasons FRWR is preferred. IOVA as for FRWR (xid in the high 32 bits).
 */
final class FmrOps implements MemRegOps {
    private static final Logger LOG = LoggerFactory.getLogger(FmrOps.class);
    private static final AtomicInteger THREADS = new AtomicInteger();
    static final int FMR_ACCESS = Access.REMOTE_READ | Access.REMOTE_WRITE | Access.LOCAL_WRITE;

    private final RegistrationPool pool;
    private final int depth;
    private volatile FmrCompletionQueue cq;
    /** Registrations waiting for their unmap. Guarded by itself. */
    private final ArrayDeque<Registration> queue = new ArrayDeque<>();
    private final ArrayList<Registration> batch = new ArrayList<>();
    private final ArrayList<Fmr> fmrs = new ArrayList<>();
    private int[] batchEpochs = new int[16];
    /** For unmapping on the connection thread when no wrapper is polled. */
    private final ArrayList<Fmr> syncFmrs = new ArrayList<>();
    private volatile boolean running = true;
    private Thread worker;

    FmrOps(RegistrationPool pool, int depth) {
        if (depth <= 0) {
            throw new IllegalArgumentException("FMR depth must be positive: " + depth);
        }
        this.pool = pool;
        this.depth = depth;
    }

    @Override
    public RegistrationMode mode() {
        return RegistrationMode.FMR;
    }

    @Override
    public int maxPages() {
        return depth;
    }

    @Override
    public boolean pageLists() {
        return true;
    }

    @Override
    public Mr open(int slot) throws VerbsException {
        Fmr fmr = pool.protectionDomain().allocFmr(depth, FMR_ACCESS);
        return new Mr(slot, fmr, new PageList(depth), false);
    }

    @Override
    public int map(Mr mr, ScatterList list, int from, int n, int access, Registration registration)
            throws VerbsException {
        int covered = MemRegOps.run(list, from, n, depth, true);
        PageList pages = mr.pageList;
        long length = MemRegOps.fill(pages, list, from, covered);
        long iova = FrwrOps.iova(registration.xid(), list.arenaOffset(from));
        pages.set(list.offsetInPage(from), length, iova);
        mr.rkey = ((Fmr) mr.region).map(pages);
        mr.iova = iova;
        mr.length = (int) length;
        mr.posted = true;
        return covered;
    }

    @Override
    public CompletionQueue wrap(CompletionQueue deviceCq) {
        FmrCompletionQueue wrapper = new FmrCompletionQueue(deviceCq);
        cq = wrapper;
        return wrapper;
    }

    @Override
    public boolean invalidate(Registration registration) {
        boolean any = false;
        for (int i = 0; i < registration.count(); i++) {
            Mr mr = registration.mr(i);
            if (mr != null) {
                mr.state = Mr.State.INVALIDATING;
                any = true;
            }
        }
        if (!any) {
            return true;
        }
        if (cq == null) {
            // nobody polls a wrapper: unmap on this thread
            syncFmrs.clear();
            collect(registration, syncFmrs);
            if (!unmap(syncFmrs)) {
                markFailed(registration);
            }
            return true;
        }
        synchronized (queue) {
            queue.add(registration);
            if (worker == null) {
                worker = new Thread(this::work, "rpcrdma-fmr-unmap-" + THREADS.incrementAndGet());
                worker.setDaemon(true);
                worker.start();
            }
        }
        LockSupport.unpark(worker);
        return false;
    }

    private void work() {
        while (running) {
            batch.clear();
            fmrs.clear();
            synchronized (queue) {
                // drain and collect under the lock: a reset clears the queue under it before any queued
                // registration can be reused, so what is drained here still holds the handles it was queued with
                Registration r;
                while ((r = queue.poll()) != null) {
                    if (batch.size() == batchEpochs.length) {
                        batchEpochs = java.util.Arrays.copyOf(batchEpochs, batchEpochs.length * 2);
                    }
                    batchEpochs[batch.size()] = r.epoch();
                    batch.add(r);
                    collect(r, fmrs);
                }
            }
            if (batch.isEmpty()) {
                LockSupport.park(this);
                continue;
            }
            boolean ok = unmap(fmrs);
            FmrCompletionQueue target = cq;
            for (int i = 0; target != null && i < batch.size(); i++) { // none: a reset abandoned them
                target.deliver(WrIds.of(WrIds.Kind.FMR_UNMAP, batchEpochs[i], batch.get(i).index()),
                        ok ? WcStatus.SUCCESS : WcStatus.LOC_QP_OP_ERR);
            }
        }
    }

    /** Forgets queued unmaps: the pool was reset and has destroyed their FMRs (connection thread). */
    @Override
    public void reset() {
        synchronized (queue) {
            queue.clear();
        }
        cq = null; // until the next connection's wrapper: unmaps meanwhile run where they are asked for
    }

    private static void collect(Registration registration, ArrayList<Fmr> into) {
        for (int i = 0; i < registration.count(); i++) {
            Mr mr = registration.mr(i);
            if (mr != null) {
                into.add((Fmr) mr.region);
            }
        }
    }

    private boolean unmap(ArrayList<Fmr> fmrs) {
        try {
            pool.protectionDomain().unmapFmrs(fmrs);
            return true;
        } catch (VerbsException | RuntimeException e) {
            LOG.warn("unmapping {} FMRs failed, their handles will be replaced: {}", fmrs.size(), e.toString());
            return false;
        }
    }

    private static void markFailed(Registration registration) {
        for (int i = 0; i < registration.count(); i++) {
            Mr mr = registration.mr(i);
            if (mr != null) {
                mr.failed = true;
            }
        }
    }

    @Override
    public void destroy(Mr mr) {
        try {
            mr.region.close();
        } catch (RuntimeException e) {
            LOG.warn("closing {} failed: {}", mr, e.toString());
        }
    }

    @Override
    public void close() {
        running = false;
        Thread t;
        synchronized (queue) {
            t = worker;
            queue.clear();
        }
        if (t != null) {
            LockSupport.unpark(t);
        }
    }
}
