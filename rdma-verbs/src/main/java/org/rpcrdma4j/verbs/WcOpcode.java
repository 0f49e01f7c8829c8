package org.rpcrdma4j.verbs;

/** What a work completion completes. */
public enum WcOpcode {
    SEND,
    RDMA_WRITE,
    RDMA_READ,
    REG_MR,
    LOCAL_INV,
    /** A receive: an incoming Send landed in a posted receive buffer. */
    RECV,
    /**
     * Synthetic: an FMR unmap batch finished ({@code wrId} is the consumer's). Registration layers may insert these
     * so that FMR and FRWR invalidation look the same to the transport.
     */
    FMR_UNMAP
}
