package org.rpcrdma4j.it.fault;

/**
 * What a {@link FaultPlan} does to one {@code postSend} of a {@link FaultyDevice} queue pair.
 */
public enum PostFault {
    /** Hand the chain to the device unchanged. */
    NONE,
    /** Refuse the post with a {@link org.rpcrdma4j.verbs.PostException} (nothing reaches the device). */
    FAIL_POST,
    /** Drop the connection (TCP reset on the software device), then hand the chain to the dead queue pair. */
    DROP_BEFORE,
    /** Hand the chain to the device, then drop the connection at once. */
    DROP_AFTER,
    /**
     * Post the chain's work requests that come before its first Send (e.g. the RDMA WRITEs of a reply), then drop the
     * connection before the Send: the peer sees its data placed and no reply.
     */
    DROP_BETWEEN_WRITE_AND_SEND
}
