/**
 * A duplicate request cache for oncrpc4j programs (Linux knfsd's "reply cache"): a call of a non-idempotent procedure
 * retransmitted after its reply was lost (typically on a new connection, after a reconnect) gets the original reply
 * again instead of being executed twice.
 *
 * <h2>API</h2>
 * <ul>
 *   <li>{@link org.rpcrdma4j.xprt.drc.DuplicateRequestCache}: {@code create(procedures, config)}, {@code wrap(program)}
 *       (an {@link org.rpcrdma4j.xprt.drc.CachingDispatchable} to register instead of the program), counters.</li>
 *   <li>{@link org.rpcrdma4j.xprt.drc.CachedProcedures}: which procedures are cached, per program and version
 *       ({@code nfsV3()}: SETATTR, WRITE, CREATE, MKDIR, SYMLINK, MKNOD, REMOVE, RMDIR, RENAME, LINK).</li>
 *   <li>{@link org.rpcrdma4j.xprt.drc.DrcConfig}: bounds (entries, bytes, age, reply size), parked retransmissions,
 *       checksummed bytes.</li>
 *   <li>{@link org.rpcrdma4j.xprt.drc.DrcCounter}: hits, misses, waits, drops, evictions, ... and the entries and
 *       bytes held; also over JMX ({@link org.rpcrdma4j.xprt.drc.DuplicateRequestCacheMXBean}).</li>
 * </ul>
 *
 * <h2>Turning it on</h2>
 * <ul>
 *   <li>oncrpc4j {@code OncRpcSvc}: register {@code drc.wrap(program)} instead of {@code program}.</li>
 *   <li>RDMA server: {@code RdmaRpcServer.builder().duplicateRequestCache(drc)} wraps every program it serves.</li>
 *   <li>The embedded NFS server: {@code NfsServer.builder().duplicateRequestCache(drc)}; its {@code programs()} then
 *       are the wrapped ones, so an RDMA server serving them shares the cache with TCP.</li>
 * </ul>
 *
 * <h2>The key, and why never the connection</h2>
 * A client that lost its connection reconnects from a new source port and sends every unanswered call again with the
 * same xid, so the key is the client's IP address without the port (as the NFS upper-layer binding for RPC-over-RDMA,
 * RFC 8267 section 6, asks), its credential's flavor and body bytes (two users behind one address with the same xid
 * stay apart; an AUTH_SYS stamp is left out, a client may pick a new one per transmission), the xid, program, version and procedure, the arguments' length and the CRC32C of their first 256
 * bytes (as knfsd: a reused xid with other arguments is a new call). Arguments that differ only after the checksummed
 * bytes and have the same length are taken for the same call; raise {@link org.rpcrdma4j.xprt.drc.DrcConfig#checksumBytes()}
 * where that matters.
 *
 * <h2>A retransmission of a call still executing</h2>
 * It is parked, not executed and not dropped: the first call's reply is sent to it as well when the program sends
 * it, without a thread waiting. Dropping it (as knfsd does) would leave the client to time out and retransmit once
 * more; worse, over RDMA an unanswered call keeps its call slot until its connection closes. The number parked per
 * call is bounded ({@link org.rpcrdma4j.xprt.drc.DrcConfig#maxWaiters()}); beyond it retransmissions are dropped, and a
 * transport that holds something per call (the RDMA server's call slot, its credit and its Read chunks' memory) is
 * told so at once ({@link org.rpcrdma4j.xprt.internal.ReplyDrop}) and frees it.
 *
 * <h2>Threads</h2>
 * The cache is called on the server's dispatch threads; one lock guards its table and is never held while a program
 * runs or a reply is sent. Parked retransmissions are answered on the thread that sends the first call's reply, before
 * that reply is handed to its own transport.
 */
package org.rpcrdma4j.xprt.drc;
