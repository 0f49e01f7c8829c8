package org.rpcrdma4j.verbs.soft.internal;

import org.rpcrdma4j.verbs.MrState;
import org.rpcrdma4j.verbs.Stag;

/** The local send-queue operations (fast registration, invalidation) and the wording of protection results. */
final class LocalOps {
    /** {@link #register} result: the region is not invalid. */
    static final int NOT_INVALID = -7;
    /** {@link #register} result: the new STag's index is not the region's. */
    static final int WRONG_INDEX = -8;
    /** {@link #register} result: the page list does not cover the registration. */
    static final int BAD_PAGE_LIST = -9;

    private LocalOps() {
    }

    /** Executes a REG_MR work request; returns 0 or a negative result. */
    static int register(SoftQp qp, SendWqe w) {
        SoftFastRegMr mr = w.regMr;
        if (mr.pd != qp.pd) {
            return (int) SoftRegion.PD_MISMATCH;
        }
        if (Stag.index(w.regKey) != mr.index()) {
            return WRONG_INDEX;
        }
        long covered = (long) w.regPageCount * w.regPageSize - w.regFbo;
        if (w.regLength > covered || w.regPageCount > mr.maxPages()) {
            return BAD_PAGE_LIST;
        }
        synchronized (mr) {
            if (mr.state() != MrState.INVALID) {
                return NOT_INVALID;
            }
            mr.map(w.regPages, w.regTable, w.regTableFirst, w.regPageCount, w.regPageSize, w.regFbo, w.regIova,
                    w.regLength, w.regAccess, w.regKey);
        }
        return 0;
    }

    /** Executes a local invalidation of {@code stag} (LOCAL_INV, or READ_WITH_INV's sink); returns 0 or a negative result. */
    static int invalidate(SoftQp qp, int stag) {
        SoftRegion region = qp.device.stags.byStag(stag);
        if (region == null) {
            return (int) SoftRegion.INVALID_STAG;
        }
        return region.invalidate(stag, qp.pd);
    }

    static String describe(long result) {
        if (result == SoftRegion.INVALID_STAG) {
            return "invalid STag (unknown, not valid, or wrong key)";
        } else if (result == SoftRegion.PD_MISMATCH) {
            return "region of another protection domain";
        } else if (result == SoftRegion.ACCESS_VIOLATION) {
            return "access right missing";
        } else if (result == SoftRegion.BOUNDS_VIOLATION) {
            return "outside the region";
        } else if (result == SoftRegion.TO_WRAP) {
            return "address wraps around";
        } else if (result == SoftRegion.INVALIDATE_NOT_ALLOWED) {
            return "memory registered with registerMemory cannot be invalidated";
        } else if (result == NOT_INVALID) {
            return "region is still valid (REG_MR needs an invalid region)";
        } else if (result == WRONG_INDEX) {
            return "new STag's index differs from the region's";
        } else if (result == BAD_PAGE_LIST) {
            return "page list does not cover the registration";
        }
        return "result " + result;
    }
}
