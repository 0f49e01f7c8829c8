package org.rpcrdma4j.verbs.ffm;

/** What owns an rdma_cm identifier: its events and the clock's ticks reach it on the device thread. */
interface CmEndpoint {

    void onCmEvent(CmEvent event);

    /** Called at least every {@code tickMillis} with {@link System#nanoTime()}, for deadlines. */
    void onTick(long nowNanos);
}
