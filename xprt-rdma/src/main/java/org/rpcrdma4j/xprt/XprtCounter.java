package org.rpcrdma4j.xprt;

/**
 * Counters of one client transport. The first group are the fields of Linux's mountstats {@code xprt: rdma} line,
 * in its order and with its meaning; the rest are this transport's own. Ids (ordinals) never change meaning.
 */
public enum XprtCounter {
    /** Calls that carried a read chunk (data item or position zero). */
    READ_CHUNK_COUNT("read_chunk_count"),
    /** Calls that carried a write list. */
    WRITE_CHUNK_COUNT("write_chunk_count"),
    /** Calls that carried a reply chunk. */
    REPLY_CHUNK_COUNT("reply_chunk_count"),
    /** Bytes of the RPC calls sent (inline and through chunks). */
    TOTAL_RDMA_REQUEST("total_rdma_request"),
    /** Bytes of the RPC replies received (inline and through chunks). */
    TOTAL_RDMA_REPLY("total_rdma_reply"),
    /** Bytes copied to pull a call's pieces into its send buffer. */
    PULLUP_COPY_COUNT("pullup_copy_count"),
    /** Bytes copied to rebuild a reply from its inline part and its chunks. */
    FIXUP_COPY_COUNT("fixup_copy_count"),
    /** Registrations done synchronously (REG_MR strategy). */
    HARDWAY_REGISTER_COUNT("hardway_register_count"),
    /** Calls that could not be marshaled (too large for any chunk, registration failure). */
    FAILED_MARSHAL_COUNT("failed_marshal_count"),
    /** Replies refused as malformed or inconsistent with their call. */
    BAD_REPLY_COUNT("bad_reply_count"),
    /** Calls sent as RDMA_NOMSG with a position-zero read chunk. */
    NOMSG_CALL_COUNT("nomsg_call_count"),
    /** Registration handles returned to the pool after invalidation. */
    MRS_RECYCLED("mrs_recycled"),
    /** Registration handles destroyed and replaced after a failure or flush. */
    MRS_ORPHANED("mrs_orphaned"),
    /** Registration handles allocated. */
    MRS_ALLOCATED("mrs_allocated"),
    /** Replies that needed at least one LOCAL_INV. */
    LOCAL_INV_NEEDED("local_inv_needed"),
    /** Times a call waited for a free send context. */
    EMPTY_SENDCTX_Q("empty_sendctx_q"),
    /** Replies that arrived before their Send completed. */
    REPLY_WAITS_FOR_SEND("reply_waits_for_send"),

    /** Connections established. */
    CONNECTS("connects"),
    /** Connections re-established after a loss. */
    RECONNECTS("reconnects"),
    /** Connection attempts that failed. */
    CONNECT_FAILURES("connect_failures"),
    /** Times a call waited for a credit. */
    CREDIT_WAITS("credit_waits"),
    /** Calls sent again on a new connection. */
    RETRANSMITS("retransmits"),
    /** Calls that timed out. */
    TIMEOUTS("timeouts"),
    /** Replies for an xid with no call outstanding. */
    UNKNOWN_XID_REPLIES("unknown_xid_replies"),
    /** RDMA_ERROR replies received. */
    RDMA_ERRORS("rdma_errors"),
    /** Remote invalidations (Send With Invalidate) honoured. */
    REMOTE_INVALIDATIONS("remote_invalidations"),
    /** Keep-alive probes sent. */
    KEEPALIVE_PROBES("keepalive_probes");

    private final String label;

    XprtCounter(String label) {
        this.label = label;
    }

    /** The name in the mountstats layout (or this transport's own name). */
    public String label() {
        return label;
    }
}
