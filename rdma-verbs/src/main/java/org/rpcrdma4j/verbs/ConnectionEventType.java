package org.rpcrdma4j.verbs;

/** Connection manager events (the ones rdma_cm names {@code RDMA_CM_EVENT_*} that matter to a consumer). */
public enum ConnectionEventType {
    ESTABLISHED,
    /** The peer refused the connection; the event may carry the peer's private data. */
    REJECTED,
    /** Address or route resolution failed, or the peer was unreachable within the timeout. */
    UNREACHABLE,
    /** The handshake failed or timed out after the transport connection was made. */
    CONNECT_ERROR,
    /** The connection ended (either side disconnected, or it broke). Outstanding work requests are flushed. */
    DISCONNECTED,
    /** The device went away; every QP on it is in error. */
    DEVICE_REMOVAL
}
