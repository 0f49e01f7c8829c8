package org.rpcrdma4j.registration;

import org.rpcrdma4j.verbs.MemoryRegion;
import org.rpcrdma4j.verbs.RegisteredMemory;
import org.rpcrdma4j.verbs.VerbsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * REG_MR: synchronous registration of each contiguous run of an I/O's memory at send, deregistration when the reply
 * arrives. A handle is only a slot (it bounds how much is registered at once); the device region exists while
 * mapped. Only byte-contiguous memory can share a handle. Allocates per I/O by nature; every registration counts as
 * HARDWAY_REGISTER_COUNT. The segment offset is the IOVA the device gave the region.
 */
final class RegMrOps implements MemRegOps {
    private static final Logger LOG = LoggerFactory.getLogger(RegMrOps.class);

    private final RegistrationPool pool;
    private final int maxPages;

    RegMrOps(RegistrationPool pool, int maxPages) {
        this.pool = pool;
        this.maxPages = maxPages;
    }

    @Override
    public RegistrationMode mode() {
        return RegistrationMode.REG_MR;
    }

    @Override
    public int maxPages() {
        return maxPages;
    }

    @Override
    public boolean pageLists() {
        return false;
    }

    @Override
    public Mr open(int slot) {
        return new Mr(slot, null, null, false);
    }

    @Override
    public int map(Mr mr, ScatterList list, int from, int n, int access, Registration registration)
            throws VerbsException {
        int covered = MemRegOps.run(list, from, n, maxPages, false);
        long length = list.contiguousLength(from, covered);
        RegisteredMemory region = pool.protectionDomain()
                .registerMemory(list.arena(from).view(list.arenaOffset(from), (int) length), access);
        pool.counters().increment(RegistrationCounter.HARDWAY_REGISTER_COUNT);
        if (!pool.publish(mr, region)) {
            try {
                region.close();
            } catch (RuntimeException e) {
                LOG.warn("deregistering {} after a reset failed: {}", mr, e.toString());
            }
            throw new RegistrationResetException("the connection was reset while registering; marshal the RPC again");
        }
        mr.rkey = region.rkey();
        mr.iova = region.iova();
        mr.length = (int) length;
        mr.posted = true;
        return covered;
    }

    @Override
    public boolean invalidate(Registration registration) {
        for (int i = 0; i < registration.count(); i++) {
            Mr mr = registration.mr(i);
            if (mr != null) {
                mr.state = Mr.State.INVALIDATING;
                deregister(mr);
            }
        }
        return true;
    }

    private static void deregister(Mr mr) {
        MemoryRegion region = mr.region;
        mr.region = null;
        if (region != null) {
            try {
                region.close();
            } catch (RuntimeException e) {
                LOG.warn("deregistering {} failed: {}", mr, e.toString());
                mr.failed = true;
            }
        }
    }

    @Override
    public void destroy(Mr mr) {
        deregister(mr);
    }
}
