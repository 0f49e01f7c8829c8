/**
 * The NFS client's RDMA transport: {@link org.rpcrdma4j.nfs.client.rdma.RdmaDataTransport}, a
 * {@link org.rpcrdma4j.nfs.client.DataTransport} over the RPC-over-RDMA client transport's DDP API, and its factory
 * for {@code rdma://} URLs, registered through {@link java.util.ServiceLoader}.
 */
package org.rpcrdma4j.nfs.client.rdma;
