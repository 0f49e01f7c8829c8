package org.rpcrdma4j.verbs.soft.internal;

import org.rpcrdma4j.verbs.Fmr;
import org.rpcrdma4j.verbs.MrState;
import org.rpcrdma4j.verbs.PageList;
import org.rpcrdma4j.verbs.Stag;
import org.rpcrdma4j.verbs.VerbsException;

/** A fast memory region: mapped synchronously with a new key on every map, unmapped in batches. */
final class SoftFmr extends SoftPagedRegion implements Fmr {
    private final int fmrAccess;

    SoftFmr(SoftDevice device, SoftPd pd, int index, int maxPages, int access) {
        super(device, pd, index, maxPages);
        this.fmrAccess = access;
    }

    @Override
    boolean invalidatable() {
        return true;
    }

    @Override
    public int map(PageList list) throws VerbsException {
        SoftPd.checkPageList(list, maxPages());
        synchronized (this) {
            if (state() == MrState.FREE) {
                throw new VerbsException("FMR " + this + " is closed");
            }
            if (state() == MrState.VALID) {
                throw new VerbsException("FMR " + this + " is mapped; unmap it first");
            }
            int newStag = Stag.nextKey(rkey());
            mapFrom(list, newStag, fmrAccess);
            return newStag;
        }
    }

    /** Unmaps (caller: the protection domain's batch unmap). */
    synchronized void unmap() {
        if (state() == MrState.VALID) {
            setState(MrState.INVALID);
        }
    }
}
