package org.rpcrdma4j.verbs.soft.internal;

/**
 * One RDMA Read in flight: on the requester an outstanding Read Request (ORQ entry) waiting for its Read Response,
 * on the responder a received Read Request (IRQ entry) waiting to be answered.
 */
final class ReadEntry {
    /** A consumer's RDMA READ work request. */
    static final int USER_READ = 0;
    /**
     * A zero-length Read Request sent to learn that the peer has placed every message sent before it (placement
     * confirmation).
     */
    static final int PROBE = 1;

    int kind;
    /** Requester: send-queue index of the READ work request. */
    long wqeIndex;
    /** Requester: work requests below this send-queue index are confirmed placed when the response arrives. */
    long ackMark;
    /** MSN of the Read Request (queue 1). */
    int msn;
    int sinkStag;
    long sinkTo;
    int size;
    int sourceStag;
    long sourceTo;
    /** Bytes received (requester) or sent (responder) so far. */
    int progress;
    /** Requester: the checked sink region, or null for a zero-length read. */
    SoftRegion region;
    /** Requester: mapping offset of the sink in {@link #region}. */
    long regionOffset;

    void clear() {
        region = null;
        progress = 0;
    }
}
