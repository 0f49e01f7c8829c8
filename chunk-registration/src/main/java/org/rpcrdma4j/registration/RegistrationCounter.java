package org.rpcrdma4j.registration;

/**
 * Registration counters, kept in an {@link org.rpcrdma4j.verbs.util.EnumCounters}. Ordinals are fixed ids: append new
 * counters at the end, never reorder. Names follow the Linux mountstats {@code xprt: rdma} fields where one exists.
 */
public enum RegistrationCounter {
    /** Handles allocated (FRWR MRs, FMRs, REG_MR slots), up front, on growth, on replacement and on rebuild. */
    MRS_ALLOCATED,
    /** Handles returned to the free list after a clean invalidation, ready for reuse. */
    MRS_RECYCLED,
    /** Handles destroyed and replaced because their state was unknown (registration or invalidation failed, flushed). */
    MRS_ORPHANED,
    /** LOCAL_INV work requests posted. */
    LOCAL_INV_NEEDED,
    /** Send with Invalidate completions naming a handle of the RPC they answered: its LOCAL_INV was skipped. */
    REMOTE_INV_HONOURED,
    /** Send with Invalidate completions naming an STag that was not one of the RPC's handles: counted and ignored. */
    REMOTE_INV_REFUSED,
    /** Times a mapping found too few free handles and waited. */
    POOL_WAITS,
    /** Registrations (REG_MR work requests, FMR maps, synchronous registrations) that failed. */
    REGISTRATION_FAILURES,
    /** Synchronous per-I/O registrations ({@link RegistrationMode#REG_MR}). */
    HARDWAY_REGISTER_COUNT,
    /** Completions for a connection that has since been reset, ignored. */
    STALE_COMPLETIONS
}
