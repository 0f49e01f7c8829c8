/**
 * The RPC-over-RDMA version 1 server (RFC 8166): Java's counterpart of Linux svcrdma, serving unmodified oncrpc4j
 * {@link org.dcache.oncrpc4j.rpc.RpcDispatchable} programs over RDMA.
 *
 * <h2>API</h2>
 * <ul>
 *   <li>{@link org.rpcrdma4j.xprt.server.RdmaRpcServer} and its builder: where to listen, which device, credits,
 *       inline sizes, programs and their {@link org.rpcrdma4j.xprt.UpperLayerBinding}s, the dispatch executor,
 *       limits; {@code start()}, {@code stop()}, counters.</li>
 *   <li>{@link org.rpcrdma4j.xprt.server.RdmaBufferAllocator}: registered memory for zero-copy replies, and call
 *       memory kept past the reply, as reference-counted Netty {@code ByteBuf}s.</li>
 *   <li>{@link org.rpcrdma4j.xprt.server.ServerCounter}: what is counted, per connection and server-wide, also
 *       over JMX ({@code org.rpcrdma4j:type=RdmaRpcServer,name=...}).</li>
 * </ul>
 * Everything else is package-private.
 *
 * <h2>A call's way through the server</h2>
 * <ol>
 *   <li><b>Connect</b> ({@code ConnectionResources}): the client's RFC 8797 private data sets the inline sizes
 *       (ours capped by its) and whether it takes Send With Invalidate; its IRD caps our ORD. The connection gets a
 *       queue pair, completion queues, a registration pool for RDMA READ sinks, {@code credits + margin} receive
 *       buffers (posted before the accept) and as many call slots. Its fixed buffers are one piece of registered
 *       memory kept for connections, apart from the memory of calls, so that idle connections neither use up nor
 *       fragment what large calls need; a connection whose piece cannot be registered is refused.</li>
 *   <li><b>Receive</b> ({@code Connection}): the transport header is decoded in place; a header that cannot carry
 *       an xid drops the connection, a bad version gets RDMA_ERROR / ERR_VERS (1, 1), malformed chunk lists
 *       ERR_CHUNK, both with the call's xid and the usual credit grant. A client with more calls unanswered than
 *       granted is disconnected. The inline part is copied into the call's slot and its receive buffer reposted.</li>
 *   <li><b>Read chunks</b> ({@code StreamLayout}, {@code CallSlot}, {@code WorkPoster}): the layout of the rebuilt
 *       call is checked against the limits before any READ (ERR_CHUNK when too large); an io thread takes a sink
 *       buffer for the whole call (the call placed so that the first READ's bytes start on a page: a 1 MiB item is
 *       one handle and one READ), copies the inline pieces into place and maps the rest as
 *       {@link org.rpcrdma4j.registration.ChunkRole#RDMA_READ_SINK} (on iWARP a per-I/O handle); the agent posts
 *       one-SGE READs within the ORD, the last one into each handle with Invalidate when the device can, else a
 *       LOCAL_INV follows. A position-zero chunk is the call; a chunk at position P is the data item whose bytes (and
 *       pad, added when the chunk lacks it) belong at P. A READ the client's NIC refuses (bad STag, out of bounds)
 *       drops that connection only. So does a sink that cannot be had (no registered memory within
 *       {@code bufferWait}, a registration refused: {@code DROPPED_NO_RESOURCES}), as Linux svcrdma closes the
 *       connection when it cannot pull a call's chunks: the client sends the call again on its next connection,
 *       where RDMA_ERROR would have failed it (a Linux client turns RDMA_ERROR into EIO). ERR_CHUNK is only for chunk
 *       lists that cannot be honoured whatever the server's state.</li>
 *   <li><b>Dispatch</b> ({@code CallScreen}, {@code CallSlot}): on the dispatch executor, the ONC RPC header and
 *       credential are checked before oncrpc4j sees them (oncrpc4j's AUTH_SYS decoder allocates lengths from the
 *       wire): AUTH_SYS bodies must be exactly {@code stamp, machinename<255>, uid, gid, gids<16>}; RPCSEC_GSS,
 *       AUTH_TLS and other flavors get AUTH_ERROR / AUTH_BADCRED (no authenticator for them here, Linux's answer too);
 *       oversized bodies AUTH_BADCRED / AUTH_BADVERF. Unknown programs get PROG_UNAVAIL, unknown versions
 *       PROG_MISMATCH (oncrpc4j's own dispatcher answers PROG_UNAVAIL to both). A call whose RPC xid differs from
 *       the transport header's xid is malformed (RFC 8166 requires them equal): RDMA_ERROR / ERR_CHUNK, counted
 *       {@code XID_MISMATCHES}, logged at debug only, and never dispatched. Then an oncrpc4j {@code RpcCall} over
 *       the call's bytes, bound to an {@code RpcTransport} of its own that answers through the slot
 *       ({@code CallTransport}), goes to the program. The slot takes one reply, and only from the call it carries
 *       now: a program's second reply, or a late one after the slot moved on to the next call, is dropped (its
 *       handler fails) and logged. A program that throws
 *       anything, an {@link java.lang.Error} included, is logged at ERROR and its call answered SYSTEM_ERR, as oncrpc4j
 *       answers a failing program, so that the slot and the client's credit come back; an {@code Error} while a
 *       call's READs are prepared drops the connection, which releases the call with everything else.</li>
 *   <li><b>Reply</b> ({@code ReplyMarshaler}, {@code ReplyBytes}): the program's {@code call.reply(...)} ends in
 *       the slot's {@code send}, on the program's thread: the DDP-eligible result (found by the program's binding)
 *       goes by RDMA WRITE into the call's first write chunk, segment by segment and never past a segment, and the
 *       reply is reduced (length word kept, bytes and pad removed); the header echoes the write list with the bytes
 *       written. The rest goes inline if header and message fit the inline threshold, else into the reply chunk
 *       (RDMA_NOMSG), else the client gets RDMA_ERROR / ERR_CHUNK and the program's handler a failure. A reply that
 *       needs a copy into registered memory for which there is no room within {@code bufferWait} is not sent: the
 *       handler fails and the connection is dropped ({@code DROPPED_NO_RESOURCES}), so that the call is sent
 *       again. The agent
 *       posts the WRITEs unsignaled and the Send signaled behind them; Send With Invalidate names the call's one
 *       handle when there is exactly one and the client offered remote invalidation (never for RDMA_ERROR). The
 *       completion handler given to {@code send} is called when the Send completed, which means every WRITE before
 *       it was placed. A reply of one Send of at most 256 bytes (and the device's inline size) goes inline and
 *       unsignaled, as the Linux client sends its calls: the device copies it when it is posted, the handler is
 *       called then, and every sixteenth such reply is signaled so that the send queue's entries are retired.</li>
 * </ol>
 *
 * <h2>Zero-copy replies</h2>
 * A program that wants its bulk result sent without a copy takes its buffer from
 * {@link org.rpcrdma4j.xprt.server.RdmaRpcServer#bufferAllocator()} ({@code allocate(call, length)}, a Netty
 * {@code ByteBuf}: registered memory for calls on this server's connections, pooled direct memory for any other
 * transport), encodes it with oncrpc4j's {@code Xdr.xdrEncodeShallowByteBuffer}, and releases it in a send listener
 * ({@code call.registerSendOnceListener}). The reply then reaches the transport as a Grizzly composite buffer;
 * each piece's native address is looked up among the pool's registered arenas, and a result that lies in one is
 * RDMA-written straight from it ({@link org.rpcrdma4j.xprt.server.ServerCounter#ZERO_COPY_BYTES}). Anything else
 * (heap arrays, unregistered direct memory, a pool with no room) is copied into registered memory first
 * ({@link org.rpcrdma4j.xprt.server.ServerCounter#COPIED_REPLY_BYTES}). The NFS server's
 * {@code ReadBufferAllocator} is this allocator behind a three-line adapter (see
 * {@link org.rpcrdma4j.xprt.server.RdmaBufferAllocator}).
 *
 * <h2>Kept call data</h2>
 * The other way round, a program may keep bytes of a call's arguments that arrived through a read chunk past its
 * reply, where the server pulled them ({@code bufferAllocator().keep(call, bytes)}, e.g. NFS WRITE data becoming a
 * file's blocks): each kept piece is a retained slice of the call's registered buffer, which stays allocated until
 * every piece is released, and the reply is encoded elsewhere than over the call's bytes.
 * Kept buffers are charged whole to a budget ({@code RdmaRpcServer.Builder.keptCallMemory}, default 0: nothing is
 * kept), so that they cannot take the memory later calls need.
 *
 * <h2>Threads</h2>
 * <ul>
 *   <li><b>Agents</b>: each connection is an {@link org.rpcrdma4j.xprt.internal.Agent}; the server runs them on
 *       {@code agentThreads} {@link org.rpcrdma4j.xprt.internal.AgentRunner}s (default 1). The agent alone touches
 *       the queue pair, the completion queues, the receive buffers, credits, the send-queue budget and the slots'
 *       posting state. It never blocks and, per call, allocates nothing once warm. Ownership goes with the agent's
 *       claim ({@link org.rpcrdma4j.xprt.internal.AgentClaim}): with {@code inlineAgentWork} (the default) a
 *       program's thread that hands in its reply, or a completion listener (a device thread), takes the claim when
 *       it is free and does the round's work itself (posts the reply; polls, and hands the calls that arrived to the
 *       dispatch executor), sparing the agent thread's wake-up. Connection events only wake the agent; closing and
 *       deadlines are its alone.</li>
 *   <li><b>io threads</b> ({@code ioThreads}, default 2): the preparation of RDMA READs, which may wait for
 *       registered memory or handles.</li>
 *   <li><b>Connection threads</b> (made on demand, a thread per task, idle ones kept a minute): connection set-up,
 *       the growth of a connection's handle pool, and the delivery of reverse-direction replies. None of them waits
 *       behind a call waiting for memory, so a client with many large calls queued holds up neither new connections
 *       nor an NFSv4.1 server's callbacks.</li>
 *   <li><b>Dispatch threads</b>: the dispatch executor runs the programs; a slow call holds one thread and nothing
 *       else (other calls of its connection and other connections go on; replies may leave out of order). A reply
 *       is marshaled on the thread that calls {@code reply} and handed to the agent through a lock-free mailbox
 *       (and, when the agent is free, posted by that thread at once).</li>
 *   <li>Send completion handlers run on the thread that holds the agent (its own, a device thread or a program's)
 *       and must be short and non-blocking (as with oncrpc4j's own transports, where they run on a Grizzly
 *       thread).</li>
 * </ul>
 *
 * <h2>Connection loss</h2>
 * A drop (hostile input, a failed READ or WRITE) or the client's disconnect moves the queue pair to error; the agent
 * waits (bounded) for every work request to flush, fails the replies that were in flight, gives back READ sinks and
 * staging buffers, and marks calls still running as dead: their later {@code send} fails their handler and frees
 * their memory. A call whose program never answers keeps its memory until it does (or until the server stops).
 *
 * <h2>Reverse direction (RFC 8167)</h2>
 * {@code getPeerTransport()} of a served call's transport is its connection's reverse direction
 * ({@code PeerTransport}): an unmodified oncrpc4j {@code RpcCall} over it calls the client on the same connection and
 * gets the reply, which is how an NFSv4.1 server (nfs4j's among them) reaches its clients' callback programs:
 * <pre>
 * RpcCall cb = new RpcCall(cbProgram, cbVersion, auth, call.getTransport().getPeerTransport());
 * cb.call(procedure, args, result, 10, TimeUnit.SECONDS);
 * </pre>
 * As Linux does it (PROTOCOLS.md A.9): reverse calls and replies are RDMA_MSG with empty chunk lists, inline only; a
 * call longer than the inline threshold minus the 28-byte transport header is refused before anything is sent
 * ({@link org.rpcrdma4j.xprt.server.ReverseCallTooLargeException}). The reverse direction has 2 credits of its own
 * (Linux allows 2 backchannel requests), with a send buffer each and 2 receives beyond the forward ones for their
 * replies; further calls wait in order. Xids are the caller's, independent of the forward direction's. A message
 * whose RPC msg_type is REPLY (in an RDMA_MSG without chunks) is a reverse reply: it is matched by xid, takes none
 * of the forward credits, and one that answers nothing is counted and dropped. Replies reach their oncrpc4j
 * handlers on the connection threads (the dispatch threads may all be waiting for them), so handlers must not block. When
 * the connection ends, callers waiting for a reply fail with {@link java.io.EOFException} and later calls are
 * refused at once. A client that serves no reverse program (this project's client without
 * {@code reverseProgram}) answers PROG_UNAVAIL, which fails the caller at once with {@code OncRpcAcceptedException};
 * a client that is not ready for reverse traffic at all may drop the connection, so an upper layer must learn that
 * the client wants callbacks first (NFSv4.1: CREATE_SESSION with a back channel). Counters:
 * {@code REVERSE_CALLS_SENT}, {@code REVERSE_REPLIES}, {@code REVERSE_CALLS_REFUSED}, {@code REVERSE_CALLS_FAILED},
 * {@code REVERSE_QUEUE_DEPTH}.
 */
package org.rpcrdma4j.xprt.server;
