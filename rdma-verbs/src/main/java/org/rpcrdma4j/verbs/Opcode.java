package org.rpcrdma4j.verbs;

/** Send-queue work request opcodes. */
public enum Opcode {
    /** Send to the peer's next posted receive. */
    SEND,
    /** Send, and invalidate the peer's STag {@link SendWorkRequest#invalidateStag} before its receive completes. */
    SEND_WITH_INV,
    /** Write local SGEs to the peer's (rkey, remoteAddress). */
    RDMA_WRITE,
    /** Read the peer's (rkey, remoteAddress) into local SGEs. */
    RDMA_READ,
    /** RDMA READ that invalidates the local sink STag {@link SendWorkRequest#invalidateStag} when it completes. */
    RDMA_READ_WITH_INV,
    /** Fast-register a page list on {@link SendWorkRequest#mr} with a new key and access rights. */
    REG_MR,
    /** Invalidate the local STag {@link SendWorkRequest#invalidateStag}. */
    LOCAL_INV
}
