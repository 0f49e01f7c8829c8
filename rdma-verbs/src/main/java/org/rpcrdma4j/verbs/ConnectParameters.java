package org.rpcrdma4j.verbs;

import java.time.Duration;
import java.util.Objects;

/**
 * How to connect.
 *
 * @param privateData      the upper layer's private data for the peer (at most the device's maxPrivateData, after
 *                         whatever the device itself adds)
 * @param responderResources IRD: RDMA READs we accept in flight from the peer
 * @param initiatorDepth   ORD: RDMA READs we want to have in flight against the peer
 * @param resolveTimeout   bound on address and route resolution (for iWARP: reaching the peer's TCP listener)
 * @param connectTimeout   bound on the connection handshake once the peer is reached
 */
public record ConnectParameters(byte[] privateData, int responderResources, int initiatorDepth,
                                Duration resolveTimeout, Duration connectTimeout) {
    public static final Duration DEFAULT_RESOLVE_TIMEOUT = Duration.ofSeconds(5);
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);

    public ConnectParameters {
        privateData = privateData == null ? new byte[0] : privateData.clone();
        Objects.requireNonNull(resolveTimeout, "resolveTimeout");
        Objects.requireNonNull(connectTimeout, "connectTimeout");
        if (responderResources < 0 || initiatorDepth < 0) {
            throw new IllegalArgumentException("IRD/ORD must not be negative");
        }
    }

    public ConnectParameters(byte[] privateData, int responderResources, int initiatorDepth) {
        this(privateData, responderResources, initiatorDepth, DEFAULT_RESOLVE_TIMEOUT, DEFAULT_CONNECT_TIMEOUT);
    }

    @Override
    public byte[] privateData() {
        return privateData.clone();
    }
}
