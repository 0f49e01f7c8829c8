package org.rpcrdma4j.registration.fake;

import org.rpcrdma4j.verbs.FastRegMemoryRegion;
import org.rpcrdma4j.verbs.MrState;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.Stag;

final class FakeFastRegMr extends FakeDevice.FakePageListRegion implements FastRegMemoryRegion {
    private final int maxPages;
    final int index;

    FakeFastRegMr(FakeDevice device, FakePd pd, int maxPages) {
        super(device, pd);
        this.maxPages = maxPages;
        this.index = device.newIndex(this);
        this.stag = Stag.of(index, 0);
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
        return state == MrState.VALID ? length : 0;
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
