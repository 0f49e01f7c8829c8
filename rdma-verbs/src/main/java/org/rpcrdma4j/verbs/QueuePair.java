package org.rpcrdma4j.verbs;

/**
 * A reliable-connected queue pair.
 * <p>
 * Posting copies the chain into the device's queues; the work request objects can be reused on return. Posting a
 * chain is all or nothing ({@link PostException}). After a connection is lost, posts still succeed and every request
 * completes with {@link WcStatus#WR_FLUSH_ERR}, as on hardware.
 */
public interface QueuePair extends AutoCloseable {

    /** Device-wide number of this QP; completions carry it. */
    int qpNum();

    QpState state();

    ProtectionDomain protectionDomain();

    QueuePairConfig config();

    /** The established connection, or null before it is established. */
    ConnectionInfo connectionInfo();

    /** Posts a chain of send-queue work requests. */
    void postSend(SendWorkRequest chain) throws PostException;

    /** Posts a chain of receives. */
    void postRecv(RecvWorkRequest chain) throws PostException;

    /**
     * Starts an orderly disconnect: both sides get {@link ConnectionEventType#DISCONNECTED}, outstanding work requests
     * are flushed. Idempotent.
     */
    void disconnect();

    /** Disconnects if needed and destroys the QP. Idempotent. */
    @Override
    void close();
}
