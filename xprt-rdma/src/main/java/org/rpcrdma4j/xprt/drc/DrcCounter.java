package org.rpcrdma4j.xprt.drc;

/**
 * Counters of a {@link DuplicateRequestCache}, kept in {@link org.rpcrdma4j.verbs.util.EnumCounters}. Ordinals are
 * fixed ids: append new counters at the end, never reorder. Entries marked "gauge" hold a current value rather than a
 * running total.
 */
public enum DrcCounter {
    /** Calls answered from the cache: a retransmission of a call already executed got the original reply again. */
    HITS,
    /** Calls of a cached procedure seen for the first time: executed, their reply kept. */
    MISSES,
    /** Calls of procedures the policy does not cache (idempotent ones): passed to the program untouched. */
    NOT_CACHED,
    /**
     * Retransmissions that arrived while the first call was still executing and were parked: they get the first
     * call's reply when it is sent.
     */
    IN_PROGRESS_WAITS,
    /**
     * Retransmissions that arrived while the first call was still executing and found its waiting room full
     * ({@link DrcConfig#maxWaiters()}): not executed and not answered.
     */
    IN_PROGRESS_DROPS,
    /** Completed entries removed, oldest first, to make room for new ones (entry or byte bound). */
    EVICTIONS,
    /** Completed entries removed because they were older than {@link DrcConfig#maxAge()}. */
    EXPIRATIONS,
    /**
     * Calls of a cached procedure that could not be cached: a reply above {@link DrcConfig#maxReplyBytes()}, a reply
     * that does not fit within {@link DrcConfig#maxBytes()} beside the keys of the calls executing, a reply that does
     * not answer the call's xid, an {@code RpcCall} subclass (e.g. RPCSEC_GSS, whose replies are wrapped
     * per call), a call header that could not be located in the call's stream, a peer without an address.
     */
    UNCACHEABLE,
    /**
     * Calls of a cached procedure executed without an entry because every entry was taken by calls still executing
     * (nothing could be evicted).
     */
    NO_ROOM,
    /**
     * Executing calls whose entry was given up after {@link DrcConfig#maxAge()} without a reply (their reply, if it
     * ever comes, still reaches the callers waiting for it but is not cached).
     */
    ABANDONED,
    /** Cached replies (hits and parked retransmissions) whose transport reported the send as failed. */
    REPLAY_FAILURES,
    /** Gauge: entries held (executing and completed). */
    ENTRIES_HELD,
    /** Gauge: bytes held: the cached replies plus the credentials of the entries' keys. */
    BYTES_HELD
}
