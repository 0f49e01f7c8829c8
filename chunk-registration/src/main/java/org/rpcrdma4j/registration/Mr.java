package org.rpcrdma4j.registration;

import org.rpcrdma4j.verbs.MemoryRegion;
import org.rpcrdma4j.verbs.PageList;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.Stag;

/**
 * A registration handle: one slot of a {@link RegistrationPool}, with the device object behind it and the reusable
 * objects a mapping needs (page list, REG_MR and LOCAL_INV work requests). See the package documentation for its
 * states. Owned by the pool's free list, or by exactly one {@link Registration}.
 */
final class Mr {
    enum State {
        /** On the free list; invalid on the device. */
        FREE,
        /** Taken by a registration, being mapped or mapped (VALID once the device executed the registration). */
        MAPPED,
        /** LOCAL_INV posted or unmap queued; waiting for the completion. */
        INVALIDATING,
        /** Destroyed: its device object is closed. */
        DEAD
    }

    final int slot;
    /** FastRegMemoryRegion (FRWR), Fmr (FMR), or RegisteredMemory while mapped (REG_MR; null otherwise). */
    MemoryRegion region;
    final PageList pageList;
    final SendWorkRequest regWr;
    final SendWorkRequest invWr;

    State state = State.FREE;
    Registration owner;
    /** The STag of the current (or last) mapping, as advertised to the peer. */
    int rkey;
    long iova;
    int length;
    /** The REG_MR work request was handed to the transport for posting. */
    boolean posted;
    /** Its registration or invalidation failed or was flushed: state unknown, recover (destroy and replace). */
    boolean failed;
    /** Invalidated by the device already (a peer's Send with Invalidate, or our RDMA READ with Invalidate). */
    boolean invalidated;

    Mr(int slot, MemoryRegion region, PageList pageList, boolean workRequests) {
        this.slot = slot;
        this.region = region;
        this.pageList = pageList;
        this.regWr = workRequests ? new SendWorkRequest(1) : null;
        this.invWr = workRequests ? new SendWorkRequest(1) : null;
        this.rkey = region == null ? 0 : region.rkey();
    }

    void take(Registration registration) {
        state = State.MAPPED;
        owner = registration;
        posted = false;
        failed = false;
        invalidated = false;
        length = 0;
    }

    @Override
    public String toString() {
        return "Mr[" + slot + " " + state + " " + Stag.toString(rkey) + " " + length + "@0x" + Long.toHexString(iova)
                + (failed ? " failed" : "") + "]";
    }
}
