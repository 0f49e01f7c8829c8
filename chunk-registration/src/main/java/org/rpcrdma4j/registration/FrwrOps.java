package org.rpcrdma4j.registration;

import org.rpcrdma4j.verbs.DeviceCapability;
import org.rpcrdma4j.verbs.FastRegMemoryRegion;
import org.rpcrdma4j.verbs.Opcode;
import org.rpcrdma4j.verbs.PageList;
import org.rpcrdma4j.verbs.PostException;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.Stag;
import org.rpcrdma4j.verbs.VerbsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * FRWR: fast-register MRs. Map fills the handle's page list and prepares an unsignaled REG_MR work request with the
 * STag's 8-bit key advanced, which the transport posts ahead of the RPC's Send. Invalidation posts one LOCAL_INV per
 * handle still valid, chained, only the last signaled.
 * <p>
 * IOVA (the segment offset): the RPC's xid in the high 32 bits, the first byte's offset within its arena in the low
 * 32 (so its position within a page is the page-list first-byte offset). A peer, or a capture, can tell from any
 * offset which RPC it belongs to.
 * <p>
 * On a device whose fast registration binds type 2 memory windows ({@link DeviceCapability#MEMORY_WINDOW}) a handle
 * maps only byte-contiguous memory of one arena, at its own address (the window's IOVA is fixed): a gapped list needs
 * a handle per contiguous run, as REG_MR does, and the segment offset is the address.
 */
final class FrwrOps implements MemRegOps {
    private static final Logger LOG = LoggerFactory.getLogger(FrwrOps.class);

    private final RegistrationPool pool;
    private final int depth;
    private final boolean windows;

    FrwrOps(RegistrationPool pool, int depth, boolean windows) {
        if (depth <= 0) {
            throw new IllegalArgumentException("fast-register depth must be positive: " + depth);
        }
        this.pool = pool;
        this.depth = depth;
        this.windows = windows;
    }

    @Override
    public RegistrationMode mode() {
        return RegistrationMode.FRWR;
    }

    @Override
    public int maxPages() {
        return depth;
    }

    @Override
    public boolean pageLists() {
        return !windows;
    }

    @Override
    public Mr open(int slot) throws VerbsException {
        FastRegMemoryRegion mr = pool.protectionDomain().allocFastRegMr(depth);
        return new Mr(slot, mr, new PageList(depth), true);
    }

    @Override
    public int map(Mr mr, ScatterList list, int from, int n, int access, Registration registration) {
        int covered = MemRegOps.run(list, from, n, depth, !windows);
        PageList pages = mr.pageList;
        long length = MemRegOps.fill(pages, list, from, covered);
        long iova = windows ? list.arena(from).address(list.arenaOffset(from))
                : iova(registration.xid(), list.arenaOffset(from));
        pages.set(list.offsetInPage(from), length, iova);
        int key = Stag.nextKey(mr.rkey);
        SendWorkRequest wr = mr.regWr.reset();
        wr.opcode = Opcode.REG_MR;
        wr.wrId = WrIds.of(WrIds.Kind.FAST_REG, registration.epoch(), mr.slot);
        wr.mr = (FastRegMemoryRegion) mr.region;
        wr.pageList = pages;
        wr.access = access;
        wr.key = key;
        mr.rkey = key;
        mr.iova = iova;
        mr.length = (int) length;
        registration.appendToChain(wr);
        return covered;
    }

    static long iova(int xid, int arenaOffset) {
        return ((long) xid << 32) | (arenaOffset & 0xFFFF_FFFFL);
    }

    @Override
    public boolean invalidate(Registration registration) {
        SendWorkRequest head = null;
        SendWorkRequest tail = null;
        Mr last = null;
        int posted = 0;
        int epoch = registration.epoch();
        for (int i = 0; i < registration.count(); i++) {
            Mr mr = registration.mr(i);
            if (mr == null) {
                continue;
            }
            mr.state = Mr.State.INVALIDATING;
            if (mr.failed || !mr.posted || mr.invalidated) {
                // failed: recovered by complete(); never posted or invalidated by the device: already invalid
                continue;
            }
            SendWorkRequest wr = mr.invWr.reset();
            wr.opcode = Opcode.LOCAL_INV;
            wr.invalidateStag = mr.rkey;
            wr.wrId = WrIds.of(WrIds.Kind.LOCAL_INV, epoch, mr.slot);
            if (head == null) {
                head = wr;
            } else {
                tail.next = wr;
            }
            tail = wr;
            last = mr;
            posted++;
        }
        if (head == null) {
            return true;
        }
        tail.flags = SendWorkRequest.SIGNALED;
        registration.lastInvSlot = last.slot;
        QueuePair qp = pool.queuePair();
        try {
            if (qp == null) {
                throw new VerbsException("no queue pair attached");
            }
            qp.postSend(head);
            pool.counters().add(RegistrationCounter.LOCAL_INV_NEEDED, posted);
            return false;
        } catch (VerbsException e) {
            // the handles may still be valid: destroy them (their STags die with them) and finish now
            LOG.warn("posting LOCAL_INV for {} failed, recovering its handles: {}", registration, e.toString());
            for (SendWorkRequest wr = head; wr != null; wr = wr.next) {
                Mr mr = find(registration, wr);
                if (mr != null) {
                    mr.failed = true;
                }
            }
            registration.lastInvSlot = -1;
            return true;
        }
    }

    private static Mr find(Registration registration, SendWorkRequest wr) {
        for (int i = 0; i < registration.count(); i++) {
            Mr mr = registration.mr(i);
            if (mr != null && mr.invWr == wr) {
                return mr;
            }
        }
        return null;
    }

    @Override
    public void destroy(Mr mr) {
        try {
            mr.region.close();
        } catch (RuntimeException e) {
            LOG.warn("closing {} failed: {}", mr, e.toString());
        }
    }
}
