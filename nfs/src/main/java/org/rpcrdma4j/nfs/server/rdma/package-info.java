/**
 * NFSv3 over RDMA for the embedded server: {@link org.rpcrdma4j.nfs.server.rdma.NfsRdmaServer} serves the
 * {@link org.rpcrdma4j.nfs.server.NfsServer}'s NFS and MOUNT programs through the RPC-over-RDMA server
 * ({@code org.rpcrdma4j.xprt.server.RdmaRpcServer}) with the NFSv3 upper-layer binding, beside oncrpc4j TCP, and
 * plugs the RDMA server's registered memory into the NFS program's READ and WRITE paths
 * ({@link org.rpcrdma4j.nfs.server.rdma.RdmaServerMemory}): file data read for an RDMA client is RDMA-written into the
 * client's write chunk from the very buffer the file was read into, and, when the RDMA server allows keeping, WRITE
 * data pulled by RDMA READ stays where it landed as the file's blocks.
 */
package org.rpcrdma4j.nfs.server.rdma;
