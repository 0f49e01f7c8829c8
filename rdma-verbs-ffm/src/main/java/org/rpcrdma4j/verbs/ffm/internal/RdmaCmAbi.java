package org.rpcrdma4j.verbs.ffm.internal;

/**
 * Where things are in librdmacm's structures ({@code <rdma/rdma_cma.h>}, LP64): byte offsets and sizes, checked by
 * {@code IbvAbiTest} against the installed header like {@link IbvAbi}'s.
 */
public final class RdmaCmAbi {
    // struct rdma_cm_id
    public static final long CM_ID_VERBS = 0;
    public static final long CM_ID_CONTEXT = 16;
    public static final long CM_ID_QP = 24;
    /** {@code route.addr.src_addr}: the local address ({@code rdma_get_local_addr}). */
    public static final long CM_ID_SRC_ADDR = 32;
    /** {@code route.addr.dst_addr}: the peer's address ({@code rdma_get_peer_addr}). */
    public static final long CM_ID_DST_ADDR = 160;
    public static final long CM_ID_PORT_NUM = 348;
    public static final long CM_ID_PD = 400;

    // struct rdma_cm_event
    public static final long CM_EVENT_SIZE = 80;
    public static final long CM_EVENT_ID = 0;
    public static final long CM_EVENT_LISTEN_ID = 8;
    public static final long CM_EVENT_EVENT = 16;
    public static final long CM_EVENT_STATUS = 20;
    public static final long CM_EVENT_CONN_PRIVATE_DATA = 24;
    public static final long CM_EVENT_CONN_PRIVATE_DATA_LEN = 32;
    public static final long CM_EVENT_CONN_RESPONDER_RESOURCES = 33;
    public static final long CM_EVENT_CONN_INITIATOR_DEPTH = 34;

    // struct rdma_conn_param
    public static final long CONN_PARAM_SIZE = 24;
    public static final long CONN_PARAM_PRIVATE_DATA = 0;
    public static final long CONN_PARAM_PRIVATE_DATA_LEN = 8;
    public static final long CONN_PARAM_RESPONDER_RESOURCES = 9;
    public static final long CONN_PARAM_INITIATOR_DEPTH = 10;
    public static final long CONN_PARAM_FLOW_CONTROL = 11;
    public static final long CONN_PARAM_RETRY_COUNT = 12;
    public static final long CONN_PARAM_RNR_RETRY_COUNT = 13;

    // struct rdma_event_channel
    public static final long EVENT_CHANNEL_FD = 0;

    // enum rdma_port_space
    public static final int PS_TCP = 0x0106;

    // enum rdma_cm_event_type
    public static final int EVENT_ADDR_RESOLVED = 0;
    public static final int EVENT_ADDR_ERROR = 1;
    public static final int EVENT_ROUTE_RESOLVED = 2;
    public static final int EVENT_ROUTE_ERROR = 3;
    public static final int EVENT_CONNECT_REQUEST = 4;
    public static final int EVENT_CONNECT_RESPONSE = 5;
    public static final int EVENT_CONNECT_ERROR = 6;
    public static final int EVENT_UNREACHABLE = 7;
    public static final int EVENT_REJECTED = 8;
    public static final int EVENT_ESTABLISHED = 9;
    public static final int EVENT_DISCONNECTED = 10;
    public static final int EVENT_DEVICE_REMOVAL = 11;
    public static final int EVENT_ADDR_CHANGE = 14;
    public static final int EVENT_TIMEWAIT_EXIT = 15;
    /** {@code enum rdma_cm_event_type} in order, for messages. */
    public static final String[] EVENT_NAMES = {"ADDR_RESOLVED", "ADDR_ERROR", "ROUTE_RESOLVED", "ROUTE_ERROR",
            "CONNECT_REQUEST", "CONNECT_RESPONSE", "CONNECT_ERROR", "UNREACHABLE", "REJECTED", "ESTABLISHED",
            "DISCONNECTED", "DEVICE_REMOVAL", "MULTICAST_JOIN", "MULTICAST_ERROR", "ADDR_CHANGE", "TIMEWAIT_EXIT"};

    /** librdmacm's name of an event type, for messages. */
    public static String eventName(int event) {
        return event >= 0 && event < EVENT_NAMES.length ? "RDMA_CM_EVENT_" + EVENT_NAMES[event]
                : "rdma_cm event " + event;
    }

    private RdmaCmAbi() {
    }
}
