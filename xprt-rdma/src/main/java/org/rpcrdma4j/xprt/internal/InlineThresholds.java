package org.rpcrdma4j.xprt.internal;

import java.util.Optional;

import org.rpcrdma4j.codec.RpcRdmaLayout;
import org.rpcrdma4j.codec.RpcRdmaPrivateData;

/**
 * The inline thresholds of one connection, negotiated through RFC 8797 private data, the same way on both sides (as
 * Linux does it): this side's inline send is the smaller of its own and the peer's receive size, its inline receive
 * the smaller of its own and the peer's send size; a peer that sent no (valid) private data is taken to use the
 * version 1 defaults, 1024 bytes each way, without remote invalidation. Immutable.
 *
 * @param send                  largest RPC-over-RDMA message (transport header + inline RPC message) this side sends
 * @param receive               largest message the peer sends this side
 * @param peerPrivateData       whether the peer sent valid private data
 * @param peerRemoteInvalidation whether the peer said it can receive Send With Invalidate
 */
public record InlineThresholds(int send, int receive, boolean peerPrivateData, boolean peerRemoteInvalidation) {

    /** Before any connection: the version 1 defaults. */
    public static final InlineThresholds V1_DEFAULTS = new InlineThresholds(RpcRdmaPrivateData.DEFAULT_INLINE,
            RpcRdmaPrivateData.DEFAULT_INLINE, false, false);

    /**
     * @param peerData     what the connection manager delivered from the peer (may be null or empty)
     * @param localSend    this side's inline send size
     * @param localReceive this side's inline receive size
     */
    public static InlineThresholds negotiate(byte[] peerData, int localSend, int localReceive) {
        Optional<RpcRdmaPrivateData> decoded = RpcRdmaPrivateData.decode(peerData);
        RpcRdmaPrivateData peer = decoded.orElse(RpcRdmaPrivateData.V1_DEFAULTS);
        return new InlineThresholds(peer.sendLimit(localSend), peer.receiveLimit(localReceive), decoded.isPresent(),
                peer.remoteInvalidation());
    }

    /**
     * The private data this side sends (RFC 8797): its inline sizes, and whether it can receive Send With Invalidate.
     */
    public static byte[] privateData(boolean remoteInvalidation, int localSend, int localReceive) {
        return RpcRdmaPrivateData.of(remoteInvalidation, localSend, localReceive).encode();
    }

    /**
     * The largest RPC message of the reverse direction (RFC 8167) in either way on this connection: reverse-direction
     * calls and replies are always inline, behind a header with three empty chunk lists, and must fit both inline
     * thresholds (Linux uses the same bound, further capped at a page).
     */
    public int maxReverseMessage() {
        return Math.min(send, receive) - RpcRdmaLayout.MIN_HEADER_LENGTH;
    }
}
