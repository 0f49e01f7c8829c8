package org.rpcrdma4j.xprt.client;

import java.util.Optional;

import org.rpcrdma4j.codec.RpcRdmaPrivateData;

/**
 * The inline thresholds of one connection, negotiated through RFC 8797 private data: this side's inline send is the
 * smaller of its own and the peer's receive size, its inline receive the smaller of its own and the peer's send size;
 * a peer that sent no (valid) private data is taken to use the version 1 default of 1024 bytes each way. Immutable.
 *
 * @param send            largest RPC-over-RDMA message (transport header + inline RPC message) this side sends
 * @param receive         largest message the peer sends this side
 * @param peerPrivateData whether the peer sent valid private data
 */
record InlineThresholds(int send, int receive, boolean peerPrivateData) {

    /** Before any connection: the version 1 defaults. */
    static final InlineThresholds V1_DEFAULTS = new InlineThresholds(RpcRdmaPrivateData.DEFAULT_INLINE,
            RpcRdmaPrivateData.DEFAULT_INLINE, false);

    /**
     * @param peerData    what the connection manager delivered from the peer (may be empty)
     * @param localSend   this side's inline send size
     * @param localReceive this side's inline receive size
     */
    static InlineThresholds negotiate(byte[] peerData, int localSend, int localReceive) {
        Optional<RpcRdmaPrivateData> peer = RpcRdmaPrivateData.decode(peerData);
        if (peer.isEmpty()) {
            return new InlineThresholds(Math.min(localSend, RpcRdmaPrivateData.DEFAULT_INLINE),
                    Math.min(localReceive, RpcRdmaPrivateData.DEFAULT_INLINE), false);
        }
        return new InlineThresholds(peer.get().sendLimit(localSend), peer.get().receiveLimit(localReceive), true);
    }
}
