package org.rpcrdma4j.nfs.v4.state;

/**
 * A {@code channel_attrs4} of CREATE_SESSION (RFC 8881 section 18.36) without {@code ca_rdma_ird}: what a client asks
 * for one channel of a session, what a server allows, and what the two agreed. Every value is a {@code count4}, an
 * unsigned 32-bit number: a negative {@code int} here stands for a value of 2^31 or more.
 *
 * @param headerPadSize         {@code ca_headerpadsize}: padding the requester may put after the RPC header
 * @param maxRequestSize        {@code ca_maxrequestsize}: the largest request, RPC header included
 * @param maxResponseSize       {@code ca_maxresponsesize}: the largest reply
 * @param maxResponseSizeCached {@code ca_maxresponsesize_cached}: the largest reply the replier keeps for a retry
 * @param maxOperations         {@code ca_maxoperations}: operations in one COMPOUND
 * @param maxRequests           {@code ca_maxrequests}: concurrent requests, the number of slots
 */
public record ChannelAttributes(int headerPadSize, int maxRequestSize, int maxResponseSize,
        int maxResponseSizeCached, int maxOperations, int maxRequests) {
    /**
     * The smallest request a fore channel must carry: an RPC call header with AUTH_NONE (40 bytes), COMPOUND4args's
     * own (12) and a SEQUENCE (36). A session that allows less is NFS4ERR_TOOSMALL.
     */
    public static final int SMALLEST_REQUEST = 40 + 12 + 36;
    /** The smallest reply: an RPC reply header (24 bytes), COMPOUND4res's own (12) and SEQUENCE's result (44). */
    public static final int SMALLEST_REPLY = 24 + 12 + 44;

    /** Whether a channel of these sizes carries a SEQUENCE: {@link #SMALLEST_REQUEST} and {@link #SMALLEST_REPLY}. */
    public boolean carriesSequence() {
        return Integer.compareUnsigned(maxRequestSize, SMALLEST_REQUEST) >= 0
                && Integer.compareUnsigned(maxResponseSize, SMALLEST_REPLY) >= 0;
    }

    /**
     * What the server grants a client that asked {@code asked} under its own {@code serverLimits}: the smaller of each
     * value (RFC 8881 section 18.36.3 lets the server lower, never raise, what the client asked), no header padding
     * (this server does not use any), at least one operation and at least one slot. The cached reply size is never
     * above the reply size.
     */
    public static ChannelAttributes negotiate(ChannelAttributes asked, ChannelAttributes serverLimits) {
        int maxResponse = min(asked.maxResponseSize, serverLimits.maxResponseSize);
        return new ChannelAttributes(0,
                min(asked.maxRequestSize, serverLimits.maxRequestSize),
                maxResponse,
                min(min(asked.maxResponseSizeCached, serverLimits.maxResponseSizeCached), maxResponse),
                atLeastOne(min(asked.maxOperations, serverLimits.maxOperations)),
                atLeastOne(min(asked.maxRequests, serverLimits.maxRequests)));
    }

    /**
     * What the server grants for a back channel a client asked as {@code asked}: requests (the server's callbacks) at
     * most {@code serverLimits}' request size, no cached replies, and the client's own reply size, operations and
     * slots, as Linux's server grants them. The server sends callbacks of two operations on one slot, and takes any
     * reply; a Linux client that gets less than it asked of any of those three refuses the session (those before a
     * 2025 change: a client with 64 KiB pages asks replies of 64 KiB over TCP).
     */
    public static ChannelAttributes grantBack(ChannelAttributes asked, ChannelAttributes serverLimits) {
        return new ChannelAttributes(0, min(asked.maxRequestSize, serverLimits.maxRequestSize),
                asked.maxResponseSize, 0, atLeastOne(asked.maxOperations), atLeastOne(asked.maxRequests));
    }

    /** The same attributes with {@code slots} slots. */
    public ChannelAttributes withMaxRequests(int slots) {
        return new ChannelAttributes(headerPadSize, maxRequestSize, maxResponseSize, maxResponseSizeCached,
                maxOperations, slots);
    }

    private static int min(int a, int b) {
        return Integer.compareUnsigned(a, b) <= 0 ? a : b;
    }

    private static int atLeastOne(int v) {
        return v == 0 ? 1 : v;
    }
}
