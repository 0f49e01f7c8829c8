/**
 * The NFSv4.1 and NFSv4.2 client (RFC 8881, RFC 7862) over the client's {@link org.rpcrdma4j.nfs.client.DataTransport}:
 * TCP, or RPC-over-RDMA with the NFSv4 upper-layer binding of RFC 8267.
 *
 * <h2>Layers</h2>
 * <pre>
 *   Nfs41Client        blocking calls, paths, pipelined copies (upload, download, readAll, writeAll)
 *   Nfs41AsyncClient   one COMPOUND per call, the NFSv3 client's signatures where NFSv4 allows; the opens
 *                      (OpenFiles) and the byte-range locks (FileLocks, lock / unlock / testLock)
 *   Nfs41Session       client ID, session, slot table, SEQUENCE, retries and recovery, lease renewal
 *   DataTransport      TcpDataTransport or RdmaDataTransport
 * </pre>
 * {@link org.rpcrdma4j.nfs.client.v4.Nfs41Session} documents the session: how slots are used, what is sent again
 * after DELAY, GRACE, a lost session or a lost client ID, and how the lease is kept.
 * {@link org.rpcrdma4j.nfs.client.v4.Nfs41AsyncClient} documents how each NFSv3-shaped call maps to NFSv4 and how
 * opens are managed for READ and WRITE.
 *
 * <h2>Errors</h2>
 * The server's {@code nfsstat4} is an {@link org.rpcrdma4j.nfs.client.v4.Nfs4StatusException}, a subclass of
 * {@link org.rpcrdma4j.nfs.NfsException} as the NFSv3 client throws: its {@code status()} is the NFSv3 status of the
 * same number (or {@code UNKNOWN} for statuses only NFSv4 has), {@code nfs4Status()} the exact one, and its cause an
 * {@link org.rpcrdma4j.nfs.v4.Nfs4Exception}. No answer, or one that does not decode, is an
 * {@link org.rpcrdma4j.nfs.client.RpcCallException} ({@code RpcBadReplyException} for a reply whose XDR is broken,
 * out of its bounds, or not an answer to what was sent). Calls never fail with an unchecked exception for what a
 * server sends.
 *
 * <h2>Data on RDMA</h2>
 * A COMPOUND with a WRITE ends with it (SEQUENCE, PUTFH, WRITE): the data is the call's DDP-eligible item, sent as
 * a Read chunk straight from the caller's buffer when that is the transport's registered memory
 * ({@link org.rpcrdma4j.nfs.client.v4.Nfs41Client#allocateBuffer}), else from one copy in it; the NFSv4 binding
 * sizes the reply from the reduced call (the data's length word without its bytes). A COMPOUND with a READ (SEQUENCE, PUTFH, READ) has a
 * {@link org.rpcrdma4j.nfs.xdr.DdpResult}: the server writes the data through a Write chunk into the caller's buffer.
 * The session asks for requests and replies of the transport's largest payload (1 MiB by default) plus 1 KiB, so
 * 1 MiB READs and WRITEs fit; READDIR replies are kept within the transport's Reply chunk
 * ({@code defaultMaxReplySize}).
 *
 * <h2>Not done here</h2>
 * No delegations: OPEN asks for none, one granted anyway is returned at once (freed if the server revoked it
 * first), and the callback service ({@code CallbackService}, over RDMA on the connection's reverse direction; none over
 * TCP) answers CB_NULL, CB_SEQUENCE and CB_RECALL for that. No lock that waits on the server's call back
 * (CB_NOTIFY_LOCK: a waiting lock polls); no pNFS; no Kerberos (AUTH_SYS through the transport's
 * credential); no asynchronous or inter-server COPY (COPY is asked to be synchronous; a server that cannot is an
 * error), no READ_PLUS.
 */
package org.rpcrdma4j.nfs.client.v4;
