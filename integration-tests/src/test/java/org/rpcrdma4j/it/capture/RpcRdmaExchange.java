package org.rpcrdma4j.it.capture;

/**
 * An RPC call and the message that answered it (a reply, or an RDMA_ERROR), paired by xid and direction.
 *
 * @param call  the call
 * @param reply the answer, or null when the capture holds none
 */
public record RpcRdmaExchange(RpcRdmaMessage call, RpcRdmaMessage reply) {
}
