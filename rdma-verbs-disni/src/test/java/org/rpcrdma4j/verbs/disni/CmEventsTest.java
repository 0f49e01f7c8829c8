package org.rpcrdma4j.verbs.disni;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import com.ibm.disni.verbs.RdmaCmEvent.EventType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.rpcrdma4j.verbs.ConnectionEventType;
import org.rpcrdma4j.verbs.disni.CmEvents.CmAction;

class CmEventsTest {
    private static final Map<String, CmAction> EXPECTED = Map.ofEntries(
            Map.entry("ADDR_RESOLVED", CmAction.ADDR_RESOLVED),
            Map.entry("ADDR_ERROR", CmAction.UNREACHABLE),
            Map.entry("ROUTE_RESOLVED", CmAction.ROUTE_RESOLVED),
            Map.entry("ROUTE_ERROR", CmAction.UNREACHABLE),
            Map.entry("CONNECT_REQUEST", CmAction.CONNECT_REQUEST),
            Map.entry("CONNECT_RESPONSE", CmAction.CONNECT_ERROR),
            Map.entry("CONNECT_ERROR", CmAction.CONNECT_ERROR),
            Map.entry("UNREACHABLE", CmAction.UNREACHABLE),
            Map.entry("REJECTED", CmAction.REJECTED),
            Map.entry("ESTABLISHED", CmAction.ESTABLISHED),
            Map.entry("DISCONNECTED", CmAction.DISCONNECTED),
            Map.entry("DEVICE_REMOVAL", CmAction.DEVICE_REMOVAL),
            Map.entry("MULTICAST_JOIN", CmAction.IGNORE),
            Map.entry("MULTICAST_ERROR", CmAction.IGNORE),
            Map.entry("ADDR_CHANGE", CmAction.DISCONNECTED),
            Map.entry("TIMEWAIT_EXIT", CmAction.IGNORE));

    /** DiSNI's getEvent() returns the librdmacm value, which its code compares with EventType ordinals. */
    @ParameterizedTest
    @EnumSource(EventType.class)
    void everyDisniEventIsClassifiedByItsValue(EventType type) {
        String name = type.name().substring("RDMA_CM_EVENT_".length());
        assertThat(CmEvents.classify(type.ordinal())).isEqualTo(EXPECTED.get(name));
        assertThat(CmEvents.name(type.ordinal())).isEqualTo(type.name());
    }

    @Test
    void ourConstantsAreDisnisOrdinals() {
        assertThat(CmEvents.ADDR_RESOLVED).isEqualTo(EventType.RDMA_CM_EVENT_ADDR_RESOLVED.ordinal());
        assertThat(CmEvents.CONNECT_REQUEST).isEqualTo(EventType.RDMA_CM_EVENT_CONNECT_REQUEST.ordinal());
        assertThat(CmEvents.REJECTED).isEqualTo(EventType.RDMA_CM_EVENT_REJECTED.ordinal());
        assertThat(CmEvents.ESTABLISHED).isEqualTo(EventType.RDMA_CM_EVENT_ESTABLISHED.ordinal());
        assertThat(CmEvents.DISCONNECTED).isEqualTo(EventType.RDMA_CM_EVENT_DISCONNECTED.ordinal());
        assertThat(CmEvents.DEVICE_REMOVAL).isEqualTo(EventType.RDMA_CM_EVENT_DEVICE_REMOVAL.ordinal());
        assertThat(CmEvents.ADDR_CHANGE).isEqualTo(EventType.RDMA_CM_EVENT_ADDR_CHANGE.ordinal());
        assertThat(CmEvents.TIMEWAIT_EXIT).isEqualTo(EventType.RDMA_CM_EVENT_TIMEWAIT_EXIT.ordinal());
    }

    @Test
    void unknownValuesAreIgnored() {
        assertThat(CmEvents.classify(16)).isEqualTo(CmAction.IGNORE);
        assertThat(CmEvents.classify(-1)).isEqualTo(CmAction.IGNORE);
        assertThat(CmEvents.name(99)).isEqualTo("rdma_cm event 99");
    }

    @Test
    void actionsBecomeSpiEvents() {
        assertThat(CmEvents.eventType(CmAction.UNREACHABLE)).isEqualTo(ConnectionEventType.UNREACHABLE);
        assertThat(CmEvents.eventType(CmAction.REJECTED)).isEqualTo(ConnectionEventType.REJECTED);
        assertThat(CmEvents.eventType(CmAction.CONNECT_ERROR)).isEqualTo(ConnectionEventType.CONNECT_ERROR);
        assertThat(CmEvents.eventType(CmAction.DISCONNECTED)).isEqualTo(ConnectionEventType.DISCONNECTED);
        assertThat(CmEvents.eventType(CmAction.DEVICE_REMOVAL)).isEqualTo(ConnectionEventType.DEVICE_REMOVAL);
        assertThat(CmEvents.eventType(CmAction.ESTABLISHED)).isEqualTo(ConnectionEventType.ESTABLISHED);
        assertThat(CmEvents.eventType(CmAction.ADDR_RESOLVED)).isNull();
        assertThat(CmEvents.eventType(CmAction.IGNORE)).isNull();
    }
}
