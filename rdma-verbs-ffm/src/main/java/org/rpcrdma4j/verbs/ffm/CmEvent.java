package org.rpcrdma4j.verbs.ffm;

import org.rpcrdma4j.verbs.ffm.internal.RdmaCmAbi;

/**
 * One rdma_cm event, copied out of librdmacm's structure before it is acknowledged.
 *
 * @param type               {@code enum rdma_cm_event_type}
 * @param status             the event's status (a negative errno, or an InfiniBand CM reject reason)
 * @param id                 the identifier's address (for CONNECT_REQUEST the new one)
 * @param listenId           the listening identifier's address, for CONNECT_REQUEST
 * @param privateData        the peer's private data (on InfiniBand and RoCE padded to what the CM message holds)
 * @param responderResources the peer's IRD (request) or the IRD granted (reply)
 * @param initiatorDepth     the peer's ORD (request) or the ORD granted (reply)
 */
record CmEvent(int type, int status, long id, long listenId, byte[] privateData, int responderResources,
               int initiatorDepth) {

    String name() {
        return RdmaCmAbi.eventName(type) + (status == 0 ? "" : " (status " + status + ")");
    }
}
