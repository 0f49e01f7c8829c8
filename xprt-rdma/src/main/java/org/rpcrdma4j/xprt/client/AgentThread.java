package org.rpcrdma4j.xprt.client;

import org.rpcrdma4j.xprt.internal.AgentRunner;

/**
 * A thread that runs the agents of several client transports (their connections' work: posting, polling, replies),
 * for an application with many transports that wants fewer threads. Give it to each transport with
 * {@link RdmaClientConfig.Builder#runner}; it is borrowed, so the application closes it after the transports.
 */
public final class AgentThread implements AutoCloseable {
    private final AgentRunner runner;

    /** Starts the thread, named {@code name}. */
    public AgentThread(String name) {
        this.runner = new AgentRunner(name);
    }

    AgentRunner runner() {
        return runner;
    }

    /** Stops the thread; the transports that use it must be closed first. */
    @Override
    public void close() {
        runner.close();
    }
}
