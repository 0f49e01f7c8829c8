package org.rpcrdma4j.verbs.disni;

import org.rpcrdma4j.verbs.disni.CmEvents.CmAction;

/** Whatever owns an rdma_cm id: receives its events and clock ticks, on the connection-manager thread. */
interface CmEndpoint {

    /**
     * An event for this endpoint's id (already acknowledged).
     *
     * @param action what it means
     * @param event  the raw rdma_cm event, for messages
     */
    void onCmEvent(CmAction action, int event);

    /** Called regularly with {@link System#nanoTime()}; for deadlines. */
    void onTick(long nowNanos);
}
