package org.rpcrdma4j.verbs.disni;

import org.rpcrdma4j.verbs.ConnectionEventType;

/**
 * The pure mapping of rdma_cm events (as DiSNI's {@code RdmaCmEvent.getEvent()} returns them: the values of
 * librdmacm's {@code enum rdma_cm_event_type}, equal to the ordinals of DiSNI's {@code RdmaCmEvent.EventType}) to what
 * a connection does with them.
 * <p>
 * What DiSNI 2.1 does not deliver with an event, read from its {@code getCmEvent}: the status (always -1), the
 * private data and the peer's responder resources / initiator depth (the event's {@code RdmaConnParam} is a fresh,
 * zeroed object). So a REJECTED event carries neither the reject's private data nor its reason, and a connection
 * refused because nothing listens looks the same as one refused by the peer's consumer.
 */
final class CmEvents {
    static final int ADDR_RESOLVED = 0;
    static final int ADDR_ERROR = 1;
    static final int ROUTE_RESOLVED = 2;
    static final int ROUTE_ERROR = 3;
    static final int CONNECT_REQUEST = 4;
    static final int CONNECT_RESPONSE = 5;
    static final int CONNECT_ERROR = 6;
    static final int UNREACHABLE = 7;
    static final int REJECTED = 8;
    static final int ESTABLISHED = 9;
    static final int DISCONNECTED = 10;
    static final int DEVICE_REMOVAL = 11;
    static final int MULTICAST_JOIN = 12;
    static final int MULTICAST_ERROR = 13;
    static final int ADDR_CHANGE = 14;
    static final int TIMEWAIT_EXIT = 15;

    private static final String[] NAMES = {
            "ADDR_RESOLVED", "ADDR_ERROR", "ROUTE_RESOLVED", "ROUTE_ERROR", "CONNECT_REQUEST", "CONNECT_RESPONSE",
            "CONNECT_ERROR", "UNREACHABLE", "REJECTED", "ESTABLISHED", "DISCONNECTED", "DEVICE_REMOVAL",
            "MULTICAST_JOIN", "MULTICAST_ERROR", "ADDR_CHANGE", "TIMEWAIT_EXIT"};

    /** What a connection does with an event. */
    enum CmAction {
        /** Address resolved: resolve the route next. */
        ADDR_RESOLVED,
        /** Route resolved: create the queue pair and connect. */
        ROUTE_RESOLVED,
        /** A connection request arrived at a listener. */
        CONNECT_REQUEST,
        ESTABLISHED,
        /** Address or route resolution failed, or the peer could not be reached. */
        UNREACHABLE,
        /** The peer refused. */
        REJECTED,
        /** The handshake failed; also an unexpected CONNECT_RESPONSE (librdmacm only reports it for ids without a QP). */
        CONNECT_ERROR,
        /** The connection ended. ADDR_CHANGE ends it too: the address it was bound to moved. */
        DISCONNECTED,
        DEVICE_REMOVAL,
        /** Nothing to do: TIMEWAIT_EXIT, multicast events, unknown values. */
        IGNORE
    }

    private CmEvents() {
    }

    static CmAction classify(int event) {
        switch (event) {
            case ADDR_RESOLVED:
                return CmAction.ADDR_RESOLVED;
            case ROUTE_RESOLVED:
                return CmAction.ROUTE_RESOLVED;
            case CONNECT_REQUEST:
                return CmAction.CONNECT_REQUEST;
            case ESTABLISHED:
                return CmAction.ESTABLISHED;
            case ADDR_ERROR:
            case ROUTE_ERROR:
            case UNREACHABLE:
                return CmAction.UNREACHABLE;
            case REJECTED:
                return CmAction.REJECTED;
            case CONNECT_RESPONSE:
            case CONNECT_ERROR:
                return CmAction.CONNECT_ERROR;
            case DISCONNECTED:
            case ADDR_CHANGE:
                return CmAction.DISCONNECTED;
            case DEVICE_REMOVAL:
                return CmAction.DEVICE_REMOVAL;
            default:
                return CmAction.IGNORE;
        }
    }

    /**
     * The SPI event a failing or ending action becomes, or null for actions that are steps of a handshake
     * (ADDR_RESOLVED, ROUTE_RESOLVED, CONNECT_REQUEST, ESTABLISHED) or ignored.
     */
    static ConnectionEventType eventType(CmAction action) {
        switch (action) {
            case UNREACHABLE:
                return ConnectionEventType.UNREACHABLE;
            case REJECTED:
                return ConnectionEventType.REJECTED;
            case CONNECT_ERROR:
                return ConnectionEventType.CONNECT_ERROR;
            case DISCONNECTED:
                return ConnectionEventType.DISCONNECTED;
            case DEVICE_REMOVAL:
                return ConnectionEventType.DEVICE_REMOVAL;
            case ESTABLISHED:
                return ConnectionEventType.ESTABLISHED;
            default:
                return null;
        }
    }

    /** librdmacm's name of an event, for messages. */
    static String name(int event) {
        return event >= 0 && event < NAMES.length ? "RDMA_CM_EVENT_" + NAMES[event] : "rdma_cm event " + event;
    }
}
