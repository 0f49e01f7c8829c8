package org.rpcrdma4j.xprt.client;

import java.util.Map;

/**
 * The JMX view of one client transport, registered as {@code org.rpcrdma4j:type=RdmaClientTransport,name=...} while
 * the transport is open.
 */
public interface RdmaClientTransportMXBean {

    String getServer();

    String getState();

    int getCreditsGranted();

    int getCallsInFlight();

    int getInlineSendSize();

    int getInlineReceiveSize();

    /** Every counter by its label (mountstats names for the {@code xprt: rdma} fields). */
    Map<String, Long> getCounters();

    /** The mountstats {@code xprt: rdma} line ({@link RdmaClientStats#mountstats()}). */
    String getMountstats();
}
