package org.rpcrdma4j.xprt.internal;

/**
 * A piece of state with one owner thread, driven by an {@link AgentRunner}: everything the agent owns (a queue pair,
 * its completion queue, credits, request slots) is touched only from {@link #doWork}. Other threads talk to it by
 * queueing commands it drains in {@code doWork} and then calling {@link AgentRunner#wake()}, or, for an agent with a
 * {@link #claim()}, by claiming it and doing a short, non-blocking piece of its work on their own thread.
 */
public interface Agent {

    /** A short name for logs and thread dumps. */
    String roleName();

    /**
     * Does whatever is ready: drains commands, polls completions, fires deadlines that are due.
     *
     * @param nowNanos {@link System#nanoTime()} at the start of this round
     * @return how much work was done; 0 lets the runner park
     */
    int doWork(long nowNanos);

    /**
     * The earliest {@link System#nanoTime()} at which the agent wants to run again even if not woken;
     * {@link Long#MAX_VALUE} for none. Read by the runner after each round; an agent whose deadline is moved earlier
     * by another thread must {@link AgentRunner#wake()} its runner.
     */
    long nextDeadlineNanos();

    /** Called on the runner's thread when the agent is removed or the runner stops. */
    void onClose();

    /**
     * The agent's claim, when other threads may do pieces of its work themselves ({@link AgentClaim}); the runner
     * then runs {@link #doWork}, {@link #nextDeadlineNanos} and {@link #onClose} under it. Null (the default): only
     * the runner's thread ever runs the agent.
     */
    default AgentClaim claim() {
        return null;
    }
}
