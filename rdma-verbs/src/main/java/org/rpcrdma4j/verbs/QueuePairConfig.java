package org.rpcrdma4j.verbs;

import java.util.Objects;

/**
 * Sizes of a reliable-connected queue pair.
 *
 * @param sendCq        completion queue for the send queue
 * @param recvCq        completion queue for the receive queue (may be the same as sendCq)
 * @param maxSendWr     work requests the send queue holds (signaled or not, until their completion or a later
 *                      signaled completion retires them)
 * @param maxRecvWr     receives that may be posted at once
 * @param maxSendSge    SGEs per send work request
 * @param maxRecvSge    SGEs per receive work request
 * @param maxInlineData bytes a Send may carry inline
 */
public record QueuePairConfig(CompletionQueue sendCq, CompletionQueue recvCq, int maxSendWr, int maxRecvWr,
                              int maxSendSge, int maxRecvSge, int maxInlineData) {
    public QueuePairConfig {
        Objects.requireNonNull(sendCq, "sendCq");
        Objects.requireNonNull(recvCq, "recvCq");
        if (maxSendWr <= 0 || maxRecvWr <= 0 || maxSendSge <= 0 || maxRecvSge <= 0 || maxInlineData < 0) {
            throw new IllegalArgumentException("queue sizes must be positive");
        }
    }
}
