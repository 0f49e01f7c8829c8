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
 * @param responderResources as librdmacm reports it, from this side's view: the RDMA READs the peer will issue (its
 *                           ORD), so the most this side needs to accept
 * @param initiatorDepth     from this side's view: the RDMA READs the peer accepts (its IRD), so the most this side
 *                           may issue
 */
record CmEvent(int type, int status, long id, long listenId, byte[] privateData, int responderResources,
               int initiatorDepth) {

    String name() {
        return RdmaCmAbi.eventName(type) + (status == 0 ? "" : " (status " + status + ")");
    }
}
