package org.rpcrdma4j.registration.fake;

import org.rpcrdma4j.verbs.Fmr;
import org.rpcrdma4j.verbs.MrState;
import org.rpcrdma4j.verbs.PageList;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.Stag;
import org.rpcrdma4j.verbs.VerbsException;

final class FakeFmr extends FakeDevice.FakePageListRegion implements Fmr {
    private final int maxPages;
    final int index;

    FakeFmr(FakeDevice device, FakePd pd, int maxPages, int access) {
        super(device, pd);
        this.maxPages = maxPages;
        this.access = access;
        this.index = device.newIndex(this);
        this.stag = Stag.of(index, 0);
    }

    @Override
    public int map(PageList pages) throws VerbsException {
        device.runBeforeMap();
        synchronized (device.lock) {
            if (device.failFmrMap > 0) {
                device.failFmrMap--;
                throw new VerbsException("injected FMR map failure");
            }
            if (state != MrState.INVALID) {
                throw new VerbsException("FMR " + Stag.toString(stag) + " is " + state);
            }
            if (pages.count() > maxPages) {
                throw new VerbsException("page list of " + pages.count() + " deeper than " + maxPages);
            }
            load(pages);
            stag = Stag.nextKey(stag);
            state = MrState.VALID;
            return stag;
        }
    }

    void unmap() {
        if (state == MrState.VALID) {
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
        return stag;
    }

    @Override
    public int rkey() {
        return stag;
    }

    @Override
    public long iova() {
        return iova;
    }

    @Override
    public long length() {
        return length;
    }

    @Override
    public int access() {
        return access;
    }

    @Override
    public MrState state() {
        return state;
    }

    @Override
    public void close() {
        synchronized (device.lock) {
            if (state == MrState.FREE) {
                return;
            }
            state = MrState.FREE;
            pd.regions--;
        }
        device.forget(index);
    }
}
