/**
 * The NFSv4.1 and NFSv4.2 server (RFC 8881, RFC 7862): {@link org.rpcrdma4j.nfs.server.v4.Nfs4Program}, an oncrpc4j
 * program served over TCP by {@code NfsServer} and over RDMA by {@code RdmaRpcServer} (with the NFSv4 upper-layer
 * binding: WRITE data arrives in Read chunks, READ data leaves through Write chunks), over the same
 * {@link org.rpcrdma4j.nfs.vfs.Vfs} exports as NFSv3.
 *
 * <h2>A COMPOUND</h2>
 * <pre>
 *   CompoundArgs  decodes tag, minor version, operations (stops at the first it cannot take)
 *   Nfs4Program   runs them in order on a Compound (current/saved handle, current stateid, session)
 *                 SEQUENCE first: the session's slot decides EXECUTE or REPLAY (the cached reply, nothing runs)
 *   Op            each operation: decode / execute / encode its nfs_resop4
 * </pre>
 * Operations are grouped by what they touch: {@code FhOps} (the current handle, LOOKUP, SECINFO), {@code AttrOps}
 * (GETATTR, SETATTR, ACCESS), {@code DirOps}, {@code CreateOp}, {@code LinkOp}, {@code ReaddirOp}, {@code IoOps}
 * (READ, WRITE, COMMIT), {@code SpaceOps} (NFSv4.2's ALLOCATE, DEALLOCATE, SEEK), {@code CopyOp} and {@code CloneOp}
 * (NFSv4.2's COPY and CLONE within the
 * server), {@code StateOps} (OPEN, CLOSE, DELEGRETURN, stateids), {@code LockOps} (LOCK, LOCKT, LOCKU) and
 * {@code SessionOps}. Client IDs, sessions, slots, leases, grace, open stateids, read delegations and byte-range locks
 * are the state layer's, {@link org.rpcrdma4j.nfs.v4.state}; attributes are encoded and decoded by
 * {@link org.rpcrdma4j.nfs.v4.Fattr4}.
 *
 * <h2>Read delegations</h2>
 * {@code Delegations}: an OPEN for reading gets a read delegation when the export's VFS sees every change of its
 * files (an in-memory export; not a local directory, which other programs may change behind the server's back) and
 * the client's back channel answered. A change of the file by anyone else (an OPEN that may write, WRITE, SETATTR,
 * REMOVE, RENAME, LINK, over NFSv4 or NFSv3) recalls it over the back channel ({@code BackChannel}, CB_SEQUENCE and
 * CB_RECALL) and waits a moment for the DELEGRETURN, then answers NFS4ERR_DELAY (NFS3ERR_JUKEBOX) until it comes; one
 * not returned within the lease is revoked. No write delegations, no directory delegations.
 *
 * <h2>Name space</h2>
 * {@code PseudoFs}: read-only directories from the root to the exports; each export is its own file system (its own
 * fsid), so a client crosses into it as into a mount point, as with Linux's knfsd.
 *
 * <h2>What it does not do</h2>
 * No write or directory delegations (WANT_DELEGATION, GET_DIR_DELEGATION: NFS4ERR_NOTSUPP), no reclaims of
 * delegations after a client's restart, no mandatory locks (byte-range locks are advisory; a blocking
 * lock request that conflicts is denied at once and the client asks again), no pNFS, no asynchronous or inter-server
 * COPY (every COPY is done before the reply), none of NFSv4.2's READ_PLUS, WRITE_SAME, IO_ADVISE or
 * extended-attribute operations (NFS4ERR_NOTSUPP), no Kerberos (AUTH_SYS; SECINFO offers it alone), and no state on
 * disk: a restarted server knows no clients and gives a grace period for them to reclaim their opens.
 */
package org.rpcrdma4j.nfs.server.v4;
