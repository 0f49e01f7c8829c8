package org.rpcrdma4j.xprt.internal;

/**
 * A transport whose calls hold resources until they are answered (over RDMA: the call's slot, its credit and the
 * memory its Read chunks were pulled into), told that a call will never be answered: a retransmission that a
 * duplicate request cache drops while the original still executes. A transport that holds nothing per call (TCP)
 * need not implement it. Called on the thread that dispatched the call, before its dispatch returns.
 */
public interface ReplyDrop {
    /** The call this transport carries gets no reply: free what it holds. */
    void dropCall();
}
