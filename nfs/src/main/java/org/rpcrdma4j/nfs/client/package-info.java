/**
 * The NFSv3 client.
 * <p>
 * {@link org.rpcrdma4j.nfs.client.NfsClient} mounts an export from an {@link org.rpcrdma4j.nfs.client.NfsUrl}
 * ({@code tcp://host[:2049]/export}, later {@code rdma://host[:20049]/export}) and offers blocking calls for every
 * procedure plus file-level helpers: path resolution, listing (READDIRPLUS with a READDIR fallback), and file copies
 * with a window of pipelined READs or WRITEs; uploads use UNSTABLE WRITEs and COMMIT and resend what a changed write
 * verifier says may be lost ({@link org.rpcrdma4j.nfs.client.UnstableWriter}).
 * {@link org.rpcrdma4j.nfs.client.NfsAsyncClient} is the asynchronous API underneath (CompletableFuture).
 * <p>
 * <b>The transport seam.</b> Every call goes through {@link org.rpcrdma4j.nfs.client.DataTransport}; the URL's
 * scheme picks a {@link org.rpcrdma4j.nfs.client.DataTransportFactory}. {@link org.rpcrdma4j.nfs.client.TcpDataTransport}
 * (oncrpc4j TCP) is built in. An RDMA transport implements the same interface and handles the RFC 8267 DDP-eligible
 * items, which the argument and result types mark ({@code DdpArgument}: WRITE data and SYMLINK path, sent from the
 * caller's buffer; {@code DdpResult}: READ data, placed into the caller's buffer). MOUNT always runs over TCP.
 * <p>
 * <b>Errors.</b> {@link org.rpcrdma4j.nfs.NfsException} (with {@link org.rpcrdma4j.nfs.Nfs3Status}) when the server
 * answered with an error; {@link org.rpcrdma4j.nfs.client.RpcCallException} subtypes when it did not (timeout,
 * connection, denied, not accepted, bad reply); {@link org.rpcrdma4j.nfs.client.MountException} for MNT.
 */
package org.rpcrdma4j.nfs.client;
