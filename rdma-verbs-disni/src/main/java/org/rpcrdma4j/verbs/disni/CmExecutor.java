package org.rpcrdma4j.verbs.disni;

import java.util.concurrent.Callable;

import org.rpcrdma4j.verbs.VerbsException;

/**
 * Runs work on the device's connection-manager thread, the one owner of every rdma_cm id and of DiSNI's (not
 * thread-safe) event-channel id table. Called from that thread, both methods run the work at once.
 */
interface CmExecutor {

    /** Runs {@code work} on the connection-manager thread, later. */
    void execute(Runnable work);

    /**
     * Runs {@code work} on the connection-manager thread and waits for its result.
     *
     * @throws VerbsException what the work threw (wrapped unless it is one), or a timeout
     */
    <T> T call(Callable<T> work) throws VerbsException;

    /** Whether the caller is the connection-manager thread. */
    boolean inLoop();
}
