package org.rpcrdma4j.xprt.server;

/**
 * Counters of an {@link RdmaRpcServer}, kept per connection and server-wide in
 * {@link org.rpcrdma4j.verbs.util.EnumCounters}. Ordinals are fixed ids: append new counters at the end, never
 * reorder. Entries marked "gauge" hold a current value rather than a running total.
 */
public enum ServerCounter {
    /** RPC-over-RDMA messages received that asked for an answer (calls, including those answered with an error). */
    CALLS,
    /** RPC replies sent (inline or through a reply chunk), including the server's own RPC-level error replies. */
    REPLIES,
    /** Replies sent inline (RDMA_MSG). */
    INLINE_REPLIES,
    /** Replies written into the client's reply chunk (RDMA_NOMSG). */
    REPLY_CHUNKS,
    /** Bytes written into reply chunks. */
    REPLY_CHUNK_BYTES,
    /** Read chunks pulled with RDMA READ (a position-zero chunk and data-item chunks alike). */
    READ_CHUNKS,
    /** Bytes pulled with RDMA READ. */
    READ_CHUNK_BYTES,
    /** RDMA READ work requests posted. */
    RDMA_READS,
    /** DDP-eligible results pushed into a write chunk. */
    WRITE_CHUNKS,
    /** Bytes pushed into write chunks. */
    WRITE_CHUNK_BYTES,
    /** RDMA WRITE work requests posted (write and reply chunks). */
    RDMA_WRITES,
    /** Result bytes RDMA-written straight from the program's registered buffer (no copy). */
    ZERO_COPY_BYTES,
    /** Reply bytes copied into registered memory before an RDMA WRITE (the program's buffer was not registered). */
    COPIED_REPLY_BYTES,
    /** Replies sent with Send With Invalidate (remote invalidation of the client's one handle). */
    REMOTE_INVALIDATIONS,
    /** RDMA_ERROR / ERR_VERS sent. */
    ERR_VERS_SENT,
    /** RDMA_ERROR / ERR_CHUNK sent (malformed chunk lists, oversized read chunks, replies that fit no chunk). */
    ERR_CHUNK_SENT,
    /** Calls refused with MSG_DENIED / AUTH_ERROR (bad AUTH_SYS body, RPCSEC_GSS, AUTH_TLS, unknown flavors). */
    AUTH_REJECTIONS,
    /** Calls refused with MSG_DENIED / RPC_MISMATCH (ONC RPC version other than 2). */
    RPC_MISMATCHES,
    /** Calls answered PROG_UNAVAIL. */
    PROG_UNAVAIL,
    /** Calls answered PROG_MISMATCH. */
    PROG_MISMATCH,
    /** Calls answered SYSTEM_ERR because the dispatch executor refused them. */
    DISPATCH_REJECTED,
    /**
     * Messages dropped without an answer: RDMA_DONE, a client's RDMA_ERROR, backchannel replies, unparsable calls,
     * calls that arrive once {@link RdmaRpcServer#stop()} has begun.
     */
    MESSAGES_DROPPED,
    /** Clients that had more calls in flight than granted (each such connection is dropped). */
    CREDIT_VIOLATIONS,
    /** Connections accepted. */
    CONNECTIONS_ACCEPTED,
    /** Connection requests refused (limit reached, client offers no RDMA READ, set-up failed, stopping). */
    CONNECTIONS_REJECTED,
    /** Connections closed, for whatever reason. */
    CONNECTIONS_CLOSED,
    /** Connections dropped: a message too short to carry an xid. */
    DROPPED_GARBAGE,
    /** Connections dropped: the client exceeded its credits. */
    DROPPED_CREDIT_VIOLATION,
    /** Connections dropped: an RDMA READ of a read chunk failed (bad STag, out of bounds: the client's NIC refused). */
    DROPPED_READ_FAILED,
    /** Connections dropped: an RDMA WRITE or Send failed (e.g. a bad write or reply chunk). */
    DROPPED_SEND_FAILED,
    /** Connections dropped: a receive failed (e.g. a message longer than the inline threshold). */
    DROPPED_RECEIVE_FAILED,
    /** Connections dropped: an internal error (posting refused, a failure of the server's own). */
    DROPPED_INTERNAL_ERROR,
    /** Connections closed by {@link RdmaRpcServer#stop()}. */
    DROPPED_SERVER_STOP,
    /** Connections ended by the client (disconnect or broken link). */
    CLOSED_BY_PEER,
    /** Gauge: calls handed to the dispatch executor that have not started yet. */
    DISPATCH_QUEUE_DEPTH,
    /** Gauge: open connections (server-wide only). */
    CONNECTIONS_OPEN,
    /** Gauge: calls received and not yet answered (their reply not yet posted). */
    CALLS_IN_FLIGHT,
    /** Calls whose RDMA READ sink needed LOCAL_INV after the READs (no RDMA READ with Invalidate on the device). */
    SINK_LOCAL_INVALIDATIONS,
    /** Reverse-direction (RFC 8167) calls sent to the client through a call's {@code getPeerTransport()}. */
    REVERSE_CALLS_SENT,
    /** Replies to reverse-direction calls received from the client (and matched to a call sent). */
    REVERSE_REPLIES,
    /**
     * Reverse-direction calls refused before sending: larger than the inline threshold (reverse messages are inline
     * only), or the connection closing.
     */
    REVERSE_CALLS_REFUSED,
    /** Reverse-direction calls sent whose reply never came: the connection ended first. */
    REVERSE_CALLS_FAILED,
    /** Gauge: reverse-direction calls waiting for one of the connection's reverse credits. */
    REVERSE_QUEUE_DEPTH,
    /**
     * Calls whose RPC xid differs from the RPC-over-RDMA header's xid: answered RDMA_ERROR / ERR_CHUNK (also counted
     * in {@link #ERR_CHUNK_SENT}) without reaching their program.
     */
    XID_MISMATCHES,
    /**
     * Connections dropped because a reverse-direction call went unanswered for the server's reverse reply timeout
     * ({@link RdmaRpcServer.Builder#reverseReplyTimeout}).
     */
    DROPPED_REVERSE_TIMEOUT,
    /**
     * Rounds of a connection agent's work done by another thread that claimed it (a program's thread posting its
     * reply, a completion listener polling), each sparing the agent thread a wake-up
     * ({@link RdmaRpcServer.Builder#inlineAgentWork}).
     */
    INLINE_ROUNDS,
    /**
     * Bytes of calls' read-chunk data that programs kept past their reply instead of copying them out
     * ({@link RdmaBufferAllocator#keep}, e.g. NFS WRITE data becoming a file's blocks).
     */
    KEPT_CALL_BYTES,
    /** Requests to keep call data refused because the registered buffer pool was more than three quarters full. */
    KEEPS_REFUSED,
    /**
     * Replies posted inline and unsignaled (one small Send, no RDMA WRITEs): their slot was free at once, and a device
     * that confirms placement sends no probe for them ({@link WorkPoster}).
     */
    UNSIGNALED_REPLIES,
    /**
     * Connections dropped because a call's resources could not be had now: no registered memory for its RDMA READ sink
     * or for a copy of its reply within {@link RdmaRpcServer.Builder#bufferWait}, a registration of its sink refused.
     * As Linux svcrdma does, the connection is closed instead of the call being answered RDMA_ERROR (which a Linux
     * client turns into EIO for the application): the client sends the call again on its next connection.
     */
    DROPPED_NO_RESOURCES;
}
