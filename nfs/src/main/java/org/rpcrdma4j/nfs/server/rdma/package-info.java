/**
 * NFSv3 over RDMA for the embedded server: {@link org.rpcrdma4j.nfs.server.rdma.NfsRdmaServer} serves the
 * {@link org.rpcrdma4j.nfs.server.NfsServer}'s NFS and MOUNT programs through the RPC-over-RDMA server
 * ({@code org.rpcrdma4j.xprt.server.RdmaRpcServer}) with the NFSv3 upper-layer binding, beside oncrpc4j TCP, and
 * plugs the RDMA server's registered memory into the NFS program's READ path, so that file data read for an RDMA
 * client is RDMA-written into the client's write chunk from the very buffer the file was read into.
 */
package org.rpcrdma4j.nfs.server.rdma;
