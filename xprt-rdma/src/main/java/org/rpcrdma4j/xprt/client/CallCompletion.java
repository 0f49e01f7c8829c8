package org.rpcrdma4j.xprt.client;

import org.rpcrdma4j.verbs.WorkCompletion;
import org.rpcrdma4j.verbs.util.EnumCounters;
import org.rpcrdma4j.xprt.XprtCounter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The end of a call (Linux's {@code rpcrdma_complete_rqst} with {@code frwr_unmap_async}): a call that was answered,
 * failed or timed out completes to its caller only once its Send has completed and every registration handle it
 * exposed is invalid (a Send With Invalidate honoured for a handle of this call, LOCAL_INV for the rest); then its
 * slot is free again and the target is told: a DDP caller's {@link RdmaCall} (its listener runs here, on the agent
 * thread), an oncrpc4j caller through the plain delivery (off the agent thread), or nobody for the keep-alive probe.
 * Agent thread.
 */
final class CallCompletion {
    private static final Logger LOG = LoggerFactory.getLogger(CallCompletion.class);

    private final String name;
    private final SlotPool pool;
    private final ClientAgent.PlainDelivery plain;
    private final EnumCounters<XprtCounter> counters;

    CallCompletion(String name, SlotPool pool, ClientAgent.PlainDelivery plain, EnumCounters<XprtCounter> counters) {
        this.name = name;
        this.pool = pool;
        this.plain = plain;
        this.counters = counters;
    }

    /** A reply (or a bad one) arrived for {@code slot}: invalidate its handles, then complete it. */
    void replied(RequestSlot slot, WorkCompletion wc, Throwable failure) {
        slot.failure = failure;
        slot.state = RequestSlot.State.COMPLETING;
        if (slot.sendPending) {
            counters.increment(XprtCounter.REPLY_WAITS_FOR_SEND);
        }
        if (wc != null && wc.withInvalidate() && slot.hasSegments() && !ownsStag(slot, wc.invalidatedStag)) {
            LOG.warn("{}: the reply to xid 0x{} invalidated STag 0x{}, which is not one of the call's; refused",
                    name, Integer.toHexString(slot.xid), Integer.toHexString(wc.invalidatedStag));
        }
        if (!invalidate(slot, wc)) {
            counters.increment(XprtCounter.LOCAL_INV_NEEDED);
        }
        tryFinish(slot);
    }

    private static boolean ownsStag(RequestSlot slot, int stag) {
        for (int i = 0; i < slot.registration.segmentCount(); i++) {
            if (slot.registration.hasHandle(i) && slot.registration.handle(i) == stag) {
                return true;
            }
        }
        return false;
    }

    /** Fails {@code slot} (no longer waiting for a credit): invalidates its handles, then completes it. */
    void fail(RequestSlot slot, Throwable failure) {
        slot.failure = failure;
        slot.state = RequestSlot.State.COMPLETING;
        invalidate(slot, null);
        tryFinish(slot);
    }

    /**
     * Starts invalidating the slot's handles ({@code wc}: the reply's receive completion, which may name a handle the
     * server invalidated); returns whether they are all invalid already.
     */
    boolean invalidate(RequestSlot slot, WorkCompletion wc) {
        slot.invalidating = true;
        if (slot.registration.invalidate(wc, slot)) {
            slot.invalidating = false;
            return true;
        }
        return false;
    }

    /** Completes {@code slot} if it is done: answered or failed, its Send completed, its handles invalid. */
    void tryFinish(RequestSlot slot) {
        if (slot.state != RequestSlot.State.COMPLETING || slot.sendPending || slot.invalidating) {
            return;
        }
        RdmaCall call = slot.ddpCall;
        boolean isPlain = slot.plain;
        boolean isProbe = slot.keepAliveProbe;
        int xid = slot.xid;
        Throwable failure = slot.failure;
        PlainReply reply = slot.plainReply;
        slot.plainReply = null; // handed on below
        slot.clearCall();
        pool.release(slot);
        if (call != null) {
            try {
                call.complete(failure);
            } catch (RuntimeException e) {
                LOG.warn("{}: a call listener failed", name, e);
            }
        } else if (isPlain) {
            plain.deliver(xid, reply, failure);
        } else {
            if (reply != null) {
                reply.release();
            }
            if (isProbe && failure != null) {
                LOG.debug("{}: keep-alive probe failed: {}", name, failure.toString());
            }
        }
    }
}
