/**
 * The RFC 8267 upper-layer binding of NFS version 3 for RPC-over-RDMA:
 * {@link org.rpcrdma4j.nfs.binding.Nfs3UpperLayerBinding} tells the RDMA transports which argument or result of a
 * call is DDP-eligible (WRITE data, SYMLINK path; READ data, READLINK path), where it lies in a flat XDR stream, and
 * how large a reply can be, so that they can move bulk data into read and write chunks and size reply chunks.
 * It implements {@link org.rpcrdma4j.xprt.UpperLayerBinding} from xprt-rdma; the NFS layer itself knows no transport.
 * <p>
 * The transports take one binding per program number, so NFSv3 and NFSv4 (both program 100003) share one:
 * {@link org.rpcrdma4j.nfs.binding.VersionedBinding} puts a program's per-version bindings behind a single binding that
 * hands each call to the one supporting its version (the NFS client's RDMA transport uses NFSv3 and NFSv4 so by
 * default; a server serving both versions over RDMA registers the same combination).
 */
package org.rpcrdma4j.nfs.binding;
