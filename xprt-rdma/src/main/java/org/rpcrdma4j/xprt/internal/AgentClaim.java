package org.rpcrdma4j.xprt.internal;

import java.util.concurrent.atomic.AtomicReference;

/**
 * Who runs an {@link Agent} at this moment. The agent's state has one owner at a time: the thread that holds this
 * claim. Its {@link AgentRunner} takes the claim for every round; another thread may take it for a short piece of
 * the agent's work that it would otherwise hand over and wake the runner for (a caller posting its own Send, a
 * program's thread posting its reply, a completion listener polling the completion queues it signals). Such work
 * never blocks, so a claim is held for microseconds.
 * <p>
 * The claim is the happens-before edge between owners (a release and the next claim are a volatile write and a CAS on
 * the same field). A thread that cannot claim falls back to handing its work over and waking the runner. When the
 * runner finds the agent claimed, it skips it for that round and the holder wakes it on release, so no round is
 * lost. Allocation-free.
 */
public final class AgentClaim {
    private final AtomicReference<Thread> holder = new AtomicReference<>();
    private volatile boolean runnerMissed;

    /** Claims the agent for the calling thread; false when another thread runs it now. Not re-entrant. */
    public boolean tryClaim() {
        return holder.compareAndSet(null, Thread.currentThread());
    }

    /** Whether the calling thread runs the agent now (its runner, or a thread doing a piece of its work). */
    public boolean heldByCurrentThread() {
        return holder.get() == Thread.currentThread();
    }

    /**
     * Ends a claim taken with {@link #tryClaim()}; wakes {@code runner} when it found the agent claimed meanwhile.
     * The holder wakes the runner itself when it leaves work the runner must do.
     */
    public void release(AgentRunner runner) {
        holder.set(null);
        if (runnerMissed) {
            runnerMissed = false;
            runner.wake();
        }
    }

    /**
     * The runner's claim for a round: when another thread holds the agent, notes that the runner missed it (the
     * holder wakes it on release) and tries once more, in case the holder released in between.
     */
    boolean claimForRound() {
        if (tryClaim()) {
            return true;
        }
        runnerMissed = true;
        if (tryClaim()) {
            runnerMissed = false;
            return true;
        }
        return false;
    }

    /** Waits out a holder (whose claim lasts microseconds); for closing an agent. */
    void claimWaiting() {
        while (!tryClaim()) {
            Thread.onSpinWait();
        }
    }

    /** Ends the runner's claim. */
    void releaseRound() {
        holder.set(null);
    }
}
