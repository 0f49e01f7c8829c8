/**
 * The RPC-over-RDMA transports' API: upper-layer bindings ({@link org.rpcrdma4j.xprt.UpperLayerBinding}), and the
 * XDR helpers bindings use to walk messages safely.
 */
package org.rpcrdma4j.xprt;
