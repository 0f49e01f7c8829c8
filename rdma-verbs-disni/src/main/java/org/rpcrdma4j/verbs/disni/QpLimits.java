package org.rpcrdma4j.verbs.disni;

import org.rpcrdma4j.verbs.QueuePairConfig;
import org.rpcrdma4j.verbs.TransportType;

/**
 * What one queue pair accepts, checked in Java before anything reaches DiSNI: libibverbs reports a refused chain only
 * as a bare errno and DiSNI does not say which work request was refused, so every refusal that can be predicted is
 * made here, with the index of the offending request.
 *
 * @param maxSendWr     send queue depth
 * @param maxRecvWr     receive queue depth
 * @param maxSendSge    SGEs per send work request
 * @param maxRecvSge    SGEs per receive work request
 * @param maxInlineData bytes a Send or RDMA Write may carry inline
 * @param transportType the device's transport (an iWARP RDMA READ has one sink SGE)
 */
record QpLimits(int maxSendWr, int maxRecvWr, int maxSendSge, int maxRecvSge, int maxInlineData,
                TransportType transportType) {

    static QpLimits of(QueuePairConfig config, TransportType transportType) {
        return new QpLimits(config.maxSendWr(), config.maxRecvWr(), config.maxSendSge(), config.maxRecvSge(),
                config.maxInlineData(), transportType);
    }
}
