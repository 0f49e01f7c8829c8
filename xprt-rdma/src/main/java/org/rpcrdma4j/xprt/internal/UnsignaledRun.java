package org.rpcrdma4j.xprt.internal;

/**
 * Small Sends posted inline and unsignaled, as both sides post them (a client's call without chunks, a server's reply
 * of one Send): the device copies the bytes when they are posted, so nothing waits for the Send's completion, and a
 * device that confirms placement sends no probe behind them. At most {@code signalEvery - 1} go unsignaled in a row;
 * the next Send is signaled, and its completion retires the send-queue entries of the unsignaled ones before it
 * (completions come in posting order). An unsignaled Send that fails still completes: its work request id names
 * {@link #WR_INDEX}, not a slot.
 * <p>
 * One per connection, owned by its agent; allocation-free.
 */
public final class UnsignaledRun {
    /**
     * Largest Send posted unsignaled: the small calls and replies of request/response traffic (GETATTR, LOOKUP,
     * ACCESS, a WRITE's result); also bounded by the queue pair's inline size.
     */
    public static final int MAX_INLINE = 256;
    /** At most this many Sends in a row go unsignaled, less one. */
    public static final int SIGNAL_EVERY = 16;
    /** The work request index of an unsignaled Send: no slot waits for its completion. */
    public static final int WR_INDEX = -1;

    private final int inlineMax;
    private final int signalEvery;
    private int length;

    /**
     * @param inlineMax   the queue pair's inline size: Sends up to this long may go unsignaled (0: none)
     * @param signalEvery every this many Sends at least one is signaled (1: all are)
     */
    public UnsignaledRun(int inlineMax, int signalEvery) {
        this.inlineMax = inlineMax;
        this.signalEvery = Math.max(1, signalEvery);
    }

    /** The inline size to ask of a queue pair whose device (or other bound) allows {@code limit} bytes. */
    public static int inlineSize(int limit) {
        return Math.max(0, Math.min(limit, MAX_INLINE));
    }

    /** Whether a Send of {@code bytes} posted next may go inline and unsignaled. */
    public boolean admits(long bytes) {
        return length + 1 < signalEvery && bytes <= inlineMax;
    }

    /** A Send went unsignaled. */
    public void unsignaled() {
        length++;
    }

    /**
     * A signaled Send was posted: returns the unsignaled Sends since the previous one, whose entries its completion
     * retires, and starts a new run.
     */
    public int signaled() {
        int before = length;
        length = 0;
        return before;
    }

    /** Unsignaled Sends posted since the last signaled one. */
    public int length() {
        return length;
    }
}
