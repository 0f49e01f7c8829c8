/**
 * NFS version 3 for rpcrdma4j: the values both sides of the protocol share.
 * <p>
 * This package holds immutable value types named after RFC 1813: {@link org.rpcrdma4j.nfs.FileHandle}
 * ({@code nfs_fh3}), {@link org.rpcrdma4j.nfs.FileAttributes} ({@code fattr3}), {@link org.rpcrdma4j.nfs.SetAttributes}
 * ({@code sattr3}), {@link org.rpcrdma4j.nfs.WccData}, {@link org.rpcrdma4j.nfs.DirEntry}, FSSTAT/FSINFO/PATHCONF
 * records, and the error model: {@link org.rpcrdma4j.nfs.NfsException} carrying an
 * {@link org.rpcrdma4j.nfs.Nfs3Status}.
 * <p>
 * The sub-packages:
 * <ul>
 * <li>{@code xdr}: hand-written, bounds-checked XDR codecs (oncrpc4j {@code XdrAble}) for NFSv3 and MOUNTv3;</li>
 * <li>{@code binding}: the RFC 8267 upper-layer binding the RDMA transports use to find DDP-eligible items;</li>
 * <li>{@code v4}: the RFC 8267 binding of NFSv4.0, 4.1 and 4.2 COMPOUNDs, so that NFSv4 servers written for oncrpc4j
 * (nfs4j) and oncrpc4j clients get direct data placement over RDMA;</li>
 * <li>{@code vfs}: the small file system interface the embedded server exports, in memory and over a local
 * directory;</li>
 * <li>{@code server}: the NFS, MOUNT and portmap programs as oncrpc4j {@code RpcDispatchable}s, and an embedded
 * TCP server;</li>
 * <li>{@code client}: a blocking and an asynchronous client over a {@code DataTransport} (TCP now, RDMA through the
 * same seam), with pipelined file copies.</li>
 * </ul>
 * The NFS layer names no transport type in its API: it is served and called through oncrpc4j's
 * {@code RpcDispatchable} and through {@code DataTransport}.
 */
package org.rpcrdma4j.nfs;
