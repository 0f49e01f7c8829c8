package org.rpcrdma4j.verbs;

import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * What a device can do. Immutable.
 *
 * @param transportType     IB, RoCE or iWARP
 * @param maxFastRegDepth   the largest page list a fast-register MR or an FMR can map
 * @param maxSge            scatter/gather entries per work request
 * @param maxInlineData     bytes a Send may carry inline
 * @param maxQpRdAtom       IRD: RDMA READs a QP accepts in flight as responder
 * @param maxQpInitRdAtom   ORD: RDMA READs a QP may have in flight as requester
 * @param maxQpWr           work requests per queue of a QP
 * @param maxCqe            entries per completion queue
 * @param maxMessageSize    the largest message (Send or RDMA) the device moves
 * @param maxPrivateData    the largest private data the connection manager carries
 * @param capabilities      optional features
 */
public record DeviceAttributes(
        TransportType transportType,
        int maxFastRegDepth,
        int maxSge,
        int maxInlineData,
        int maxQpRdAtom,
        int maxQpInitRdAtom,
        int maxQpWr,
        int maxCqe,
        long maxMessageSize,
        int maxPrivateData,
        Set<DeviceCapability> capabilities) {

    public DeviceAttributes {
        Objects.requireNonNull(transportType, "transportType");
        capabilities = capabilities.isEmpty()
                ? Set.of()
                : Set.copyOf(EnumSet.copyOf(capabilities));
    }

    public boolean has(DeviceCapability capability) {
        return capabilities.contains(capability);
    }
}
