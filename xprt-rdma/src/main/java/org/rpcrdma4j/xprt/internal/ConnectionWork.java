package org.rpcrdma4j.xprt.internal;

/**
 * The fast path of a connection's agent, the same on both sides: take in what other threads handed over and what the
 * two completion queues hold, post what waits for credits or room, and, when a pass finds nothing, re-arm both queues
 * and poll them once more (a completion added between the last poll and the re-arm raises no event). The client's
 * {@code ClientAgent} and the server's {@code Connection} say what each step is; the loop is here, so the fast path
 * is tuned once. Every method runs under the agent's claim ({@link AgentClaim}). Allocation-free.
 */
public interface ConnectionWork {

    /**
     * Takes in what was handed over (calls to send, replies to post) and every completion both queues hold.
     *
     * @return how many things were taken in
     */
    int takeIn(long nowNanos);

    /** Polls both completion queues only; returns how many completions were handled. */
    int pollCompletions(long nowNanos);

    /** Posts what waits (calls within the credits, READs, replies, receives); returns how many were posted. */
    int postOut(long nowNanos);

    /** Whether the connection went away or began to close since the pass began: its runner takes over. */
    boolean interrupted();

    /** The connection's queues, re-armed when a pass finds nothing. */
    QueueSet queues();

    /**
     * Passes of {@link #takeIn}, {@link #postOut} and, when both found nothing, {@link #rearmAndPoll}, until a pass
     * finds nothing at all. The queues are armed when it returns true.
     *
     * @return false when the connection was {@linkplain #interrupted() interrupted} (left to the runner)
     */
    default boolean passesUntilIdle(long nowNanos) {
        int n;
        do {
            n = takeIn(nowNanos);
            if (interrupted()) {
                return false;
            }
            n += postOut(nowNanos);
            if (interrupted()) {
                return false;
            }
            if (n == 0) {
                n = rearmAndPoll(nowNanos);
            }
        } while (n > 0);
        return true;
    }

    /** Asks both queues for an event at their next completion, then polls them once more; returns what that found. */
    default int rearmAndPoll(long nowNanos) {
        queues().requestNotify();
        return pollCompletions(nowNanos);
    }
}
