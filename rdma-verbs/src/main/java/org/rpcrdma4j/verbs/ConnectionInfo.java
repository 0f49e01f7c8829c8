package org.rpcrdma4j.verbs;

import java.net.InetSocketAddress;

/**
 * An established connection.
 *
 * @param localAddress  our address
 * @param remoteAddress the peer's address
 * @param privateData   the peer's private data for the upper layer (connect request or accept reply), never null
 * @param ird           RDMA READs the peer may have outstanding against us (inbound read depth)
 * @param ord           RDMA READs we may have outstanding against the peer (outbound read depth)
 */
public record ConnectionInfo(InetSocketAddress localAddress, InetSocketAddress remoteAddress, byte[] privateData,
                             int ird, int ord) {
    public ConnectionInfo {
        privateData = privateData == null ? new byte[0] : privateData.clone();
    }

    @Override
    public byte[] privateData() {
        return privateData.clone();
    }
}
