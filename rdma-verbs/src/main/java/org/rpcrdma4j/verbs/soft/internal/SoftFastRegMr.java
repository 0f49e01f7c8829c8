package org.rpcrdma4j.verbs.soft.internal;

import org.rpcrdma4j.verbs.FastRegMemoryRegion;

/** A fast-register MR: mapped by a REG_MR work request in send-queue order, invalidated by LOCAL_INV or a peer. */
final class SoftFastRegMr extends SoftPagedRegion implements FastRegMemoryRegion {
    SoftFastRegMr(SoftDevice device, SoftPd pd, int index, int maxPages) {
        super(device, pd, index, maxPages);
    }

    @Override
    boolean invalidatable() {
        return true;
    }
}
