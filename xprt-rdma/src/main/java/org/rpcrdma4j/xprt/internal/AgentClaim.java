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
    /**
     * Most rounds one thread does in a row for work others left it; then it hands the rest to the runner, so that a
     * caller is not kept polling for others under load.
     */
    public static final int MAX_INLINE_ROUNDS = 8;

    private final AtomicReference<Thread> holder = new AtomicReference<>();
    private volatile boolean runnerMissed;
    /** Work left by a thread that could not claim the agent: its holder does another round before it lets go. */
    private volatile boolean pending;

    /** Claims the agent for the calling thread; false when another thread runs it now. Not re-entrant. */
    public boolean tryClaim() {
        return holder.compareAndSet(null, Thread.currentThread());
    }

    /**
     * Claims the agent, or, when another thread holds it, leaves the work to that thread: the holder (an inline
     * worker looping on {@link #releaseWithPending}, or the runner) does one more round before it lets go.
     *
     * @return true when claimed (the caller does the round), false when the work was left to the holder
     */
    public boolean claimOrLeave() {
        if (tryClaim()) {
            return true;
        }
        pending = true;
        // the holder may have let go before it could see the note: then the round is ours after all
        return tryClaim();
    }

    /** Whether the calling thread runs the agent now (its runner, or a thread doing a piece of its work). */
    public boolean heldByCurrentThread() {
        return holder.get() == Thread.currentThread();
    }

    /**
     * Ends a claim taken with {@link #tryClaim()} or {@link #claimOrLeave()}; wakes {@code runner} when it found the
     * agent claimed meanwhile.
     *
     * @return whether work was left meanwhile ({@link #claimOrLeave()}): the caller then claims again with
     *         {@link #claimOrLeave()} and does another round
     */
    public boolean releaseWithPending(AgentRunner runner) {
        holder.set(null);
        if (runnerMissed) {
            runnerMissed = false;
            runner.wake();
        }
        if (pending) {
            pending = false;
            return true;
        }
        return false;
    }

    /** Ends a claim, leaving any work left meanwhile to the runner (which is woken for it). */
    public void release(AgentRunner runner) {
        if (releaseWithPending(runner)) {
            runner.wake();
        }
    }

    /**
     * The runner's claim for a round: when another thread holds the agent, notes that the runner missed it (the
     * holder wakes it on release) and tries once more, in case the holder released in between. A round does all the
     * agent's work, so work left for the holder is taken care of by it.
     */
    boolean claimForRound() {
        if (!tryClaim()) {
            runnerMissed = true;
            if (!tryClaim()) {
                return false;
            }
            runnerMissed = false;
        }
        pending = false;
        return true;
    }

    /** A round of an agent's work done on another thread under the claim. */
    @FunctionalInterface
    public interface InlineRound {
        /** @return true when the round did all it found; false when what is left is the runner's (it is woken) */
        boolean run();
    }

    /**
     * Claims the agent and does {@code round} on the calling thread; when another thread holds the agent, the work
     * is left to it (it does one more round before letting go). Work left by others meanwhile is done in further
     * rounds, at most {@link #MAX_INLINE_ROUNDS} in a row; then, or when a round leaves work only the runner does,
     * {@code runner} is woken. Allocation-free when {@code round} is a reused object.
     */
    public void runInline(AgentRunner runner, InlineRound round) {
        if (!claimOrLeave()) {
            return; // the holder does another round for us
        }
        boolean again;
        int rounds = 0;
        do {
            boolean done = false;
            try {
                done = round.run();
            } finally {
                again = releaseWithPending(runner);
            }
            if (!done) {
                runner.wake(); // a full round covers whatever was left too
                return;
            }
        } while (again && ++rounds < MAX_INLINE_ROUNDS && claimOrLeave());
        if (again && rounds >= MAX_INLINE_ROUNDS) {
            runner.wake(); // this thread did its share: the rest is the runner's
        }
    }

    /** Waits out a holder (whose claim lasts microseconds); for closing an agent. */
    void claimWaiting() {
        while (!tryClaim()) {
            Thread.onSpinWait();
        }
    }

    /** Ends the runner's claim; returns whether work was left meanwhile (the runner then does another round). */
    boolean releaseRound() {
        holder.set(null);
        if (pending) {
            pending = false;
            return true;
        }
        return false;
    }
}
