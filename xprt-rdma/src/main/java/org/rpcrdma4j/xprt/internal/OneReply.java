package org.rpcrdma4j.xprt.internal;

/**
 * A transport that carries one call at a time and is reused for the next (the RDMA server's call slot): it says
 * whether the call it carries still awaits its reply. A program that replied and then threw must not get a second,
 * failure reply: oncrpc4j encodes it over the call's bytes, which by then may be the next call's.
 */
public interface OneReply {
    /** Whether the call {@code xid} this transport carries has been neither answered nor dropped. */
    boolean awaitsReply(int xid);
}
