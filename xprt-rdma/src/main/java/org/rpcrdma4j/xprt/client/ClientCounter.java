package org.rpcrdma4j.xprt.client;

/**
 * Counters of the client transport that {@link org.rpcrdma4j.xprt.XprtCounter} does not have: the generic fields of
 * Linux's mountstats {@code xprt:} line and a few of this transport's own. Ordinals never change meaning.
 */
public enum ClientCounter {
    /** Sends of RPC calls (first sends, retransmits and keep-alive probes): mountstats {@code sends}. */
    SENDS("sends"),
    /** Messages received: mountstats {@code recvs}. */
    RECEIVES("recvs"),
    /** Sum, over every send, of the calls on the wire after it: mountstats {@code req_u} (divide by sends). */
    REQUEST_USAGE("req_u"),
    /** Sum, over every send, of the calls still waiting for a credit: mountstats {@code bklog_u}. */
    BACKLOG_USAGE("bklog_u"),
    /** Milliseconds spent connecting (successful and failed attempts): mountstats {@code connect_time}. */
    CONNECT_TIME_MILLIS("connect_time_ms"),
    /**
     * Reverse-direction (RFC 8167) calls received and dropped unanswered: with chunks (reverse messages are inline
     * only), or beyond the reverse credits (every reverse slot busy).
     */
    BACKCHANNEL_CALLS_DROPPED("backchannel_calls_dropped"),
    /** Connections this side dropped: a call timed out on the wire, a keep-alive probe went unanswered, a post failed. */
    FORCED_DISCONNECTS("forced_disconnects"),
    /** Keep-alive probes that went unanswered (each dropped the connection). */
    KEEPALIVE_FAILURES("keepalive_failures"),
    /** Send With Invalidate naming an STag that was not the answered call's: refused, the call's handles invalidated locally. */
    REMOTE_INVALIDATIONS_REFUSED("remote_invalidations_refused"),
    /** Reverse-direction (RFC 8167) calls received from the server and taken in (dispatched or refused). */
    REVERSE_CALLS_RECEIVED("reverse_calls_received"),
    /** Replies to reverse-direction calls sent to the server (their Send completed). */
    REVERSE_REPLIES_SENT("reverse_replies_sent"),
    /**
     * Reverse-direction calls refused with an RPC error reply: no such program (PROG_UNAVAIL, every call when no
     * reverse program is registered), version, credential, or a reply too large to send inline (SYSTEM_ERR instead).
     */
    REVERSE_CALLS_REFUSED("reverse_calls_refused"),
    /** Replies to reverse-direction calls not sent, or whose Send did not complete: the connection was lost. */
    REVERSE_REPLIES_LOST("reverse_replies_lost"),
    /**
     * Rounds of the agent's work done by another thread that claimed it (a caller sending its own call, a completion
     * listener polling), each sparing the agent thread a wake-up ({@code inlineAgentWork}).
     */
    INLINE_ROUNDS("inline_rounds"),
    /** Calls whose Send a thread other than the agent's posted (the caller's, or a device thread's after a reply). */
    INLINE_SENDS("inline_sends"),
    /**
     * Calls posted inline and unsignaled (small calls without chunks): they complete without waiting for their Send's
     * completion, and a device that confirms placement sends no probe for them.
     */
    UNSIGNALED_SENDS("unsignaled_sends"),
    /**
     * Calls whose reply was planned again before they went out: the connection they go out on negotiated other inline
     * thresholds than the one they were marshaled for (a server back with other settings, or with no private data).
     */
    REPLIES_PLANNED_AGAIN("replies_planned_again"),
    /**
     * Keep-alive probes that were due but waited, because every credit the server granted was in use: the calls on
     * the wire are then left to their own timeouts, as Linux's client leaves them to its RPC timeouts.
     */
    KEEPALIVE_PROBES_DEFERRED("keepalive_probes_deferred"),
    /**
     * Posts of calls' Sends to the queue pair: the calls that have a credit when the agent (or a thread doing its work)
     * sends go in one post, a chain, which a device takes with one doorbell (the software device with one gathering
     * write). {@code sends} divided by this is the calls per post.
     */
    SEND_POSTS("send_posts");

    private final String label;

    ClientCounter(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }
}
