package org.rpcrdma4j.verbs;

/** The life cycle of a memory region's STag. */
public enum MrState {
    /** Allocated, not usable by the peer: a fast-register MR before REG_MR or after invalidation, an unmapped FMR. */
    INVALID,
    /** Usable with its current key, within its bounds and access rights. */
    VALID,
    /** Deregistered; its STag is gone from the device's table. */
    FREE
}
