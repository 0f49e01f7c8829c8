/**
 * The RPC-over-RDMA version 1 client transport (RFC 8166, RFC 8797), the Java counterpart of Linux's xprtrdma.
 *
 * <h2>API</h2>
 * <ul>
 * <li>{@link org.rpcrdma4j.xprt.client.RdmaClientTransport}: one connection to one server. It is an oncrpc4j
 * {@code RpcTransport} (an unmodified {@code RpcCall} runs over it) and offers the DDP API:
 * {@link org.rpcrdma4j.xprt.client.RdmaClientTransport#call} / {@code submit} with a reusable
 * {@link org.rpcrdma4j.xprt.client.RdmaCall} whose payload goes out as a Read chunk straight from the caller's
 * registered memory and whose result lands in the caller's registered memory through a Write chunk.</li>
 * <li>{@link org.rpcrdma4j.xprt.client.RdmaClientConfig}: every setting, with defaults.</li>
 * <li>The oncrpc4j path ({@code send(Xdr, ...)}): oncrpc4j's stream is read where it is, never copied to the heap
 * first. The call is copied into registered memory once, except its DDP-eligible argument when the program encoded
 * it by reference ({@code Xdr.xdrEncodeShallowByteBuffer}) from a live buffer of this transport's
 * {@link org.rpcrdma4j.xprt.client.RdmaClientTransport#bufferPool() pool}: that goes as a Read chunk from where it
 * is, and the transport holds the buffer until the call's handles are invalid. oncrpc4j decodes a reply from one
 * heap array with no point at which it is done with it, so a reply is copied out of the transport's memory once,
 * on the callback executor (a large one from the buffer the server wrote into, which goes with it).</li>
 * <li>Failures: {@link org.rpcrdma4j.xprt.client.RdmaTransportException} and its subclasses
 * ({@code RdmaConnectionException}, {@code RdmaCallTimeoutException}, {@code RdmaBadReplyException},
 * {@code RdmaVersionMismatchException} and {@code RdmaChunkErrorException} for RDMA_ERROR, {@code RdmaMarshalException}).
 * Over the oncrpc4j interface a timeout is a {@link java.util.concurrent.TimeoutException}, as oncrpc4j reports it.</li>
 * <li>Counters: {@link org.rpcrdma4j.xprt.XprtCounter} (the mountstats {@code xprt: rdma} fields and the transport's
 * own) and {@link org.rpcrdma4j.xprt.client.ClientCounter}, snapshot as
 * {@link org.rpcrdma4j.xprt.client.RdmaClientStats} (with the mountstats line), and over JMX
 * ({@link org.rpcrdma4j.xprt.client.RdmaClientTransportMXBean}).</li>
 * </ul>
 *
 * <h2>Threads</h2>
 * One <em>agent</em> per connection ({@code ClientAgent}, run by an {@link org.rpcrdma4j.xprt.internal.AgentRunner},
 * its own or a shared one) owns the queue pair, both completion queues, the credits, the receive buffers and every
 * request slot from submission to completion. Ownership goes with the agent's claim
 * ({@link org.rpcrdma4j.xprt.internal.AgentClaim}): the runner's thread takes it for each round, and, with
 * {@link org.rpcrdma4j.xprt.client.RdmaClientConfig#inlineAgentWork()} (the default), a caller or a completion
 * listener (a device thread) takes it for a short round of its own while the connection is up, sparing the agent
 * thread's wake-up: the caller sends its call itself (after those queued before it, within the credits), the listener
 * polls the completions it signals. A thread that finds the agent claimed leaves the work to the holder. Connection
 * events only wake the runner, and connecting, losses, timeouts and the keep-alive probe are the runner's alone.
 * <p>
 * A caller marshals its call on its own thread: it takes a free request slot (waiting in arrival order when there is
 * none), copies the message into the slot's registered send buffer, registers the chunks (which may wait for free
 * registration handles) and hands the slot to the agent through a queue. The agent sends it when a credit is free, and
 * when the reply comes checks it, invalidates every handle the call exposed, waits for the Send's completion when it
 * asked for one, and only then completes it: an
 * {@link org.rpcrdma4j.xprt.client.RdmaCallListener} runs on the thread that holds the agent then (the agent's, a
 * device thread or another caller's; it must be short, must not block and may not make calls); a blocked caller is
 * unparked; oncrpc4j handlers run on the callback executor. After a connection loss, calls are marshaled again on a
 * recovery thread, because registering may block.
 * <p>
 * A call without chunks of at most 256 bytes (and the device's inline size) is posted inline and unsignaled, as Linux
 * posts its Sends: the device copies it at post time, so nothing waits for its completion (and the software device
 * sends no placement probe for it). Every sixteenth such Send is signaled; its completion retires the ones before it
 * on the send queue. An unsignaled Send that fails still completes, and the connection is dropped.
 *
 * <h2>Marshaling (as Linux's rpc_rdma.c)</h2>
 * Reply first: a Write chunk over the DDP caller's sink; or, for a program with an
 * {@link org.rpcrdma4j.xprt.UpperLayerBinding}, nothing when the largest reply fits the inline receive threshold, a
 * Write chunk for a DDP-eligible result (sized by {@code maxReplyItemLength}), else a Reply chunk; for other programs
 * a Reply chunk whenever the configured default maximum reply does not fit inline. Never a Write list and a Reply
 * chunk together. Then the call: inline when it fits the inline send threshold (a DDP payload is gathered into the
 * Send from the caller's memory); else a Read chunk for the DDP-eligible argument at its position; else RDMA_NOMSG
 * with a position-zero Read chunk.
 *
 * <h2>Replies</h2>
 * Version, xid (unknown: counted and dropped), credit grant (0 counts as 1), chunk lists (a returned length beyond the
 * registered one fails the RPC as a bad reply) and RDMA_ERROR are checked; reverse-direction calls (RFC 8167) are
 * recognised by their RPC message type and served (below). A Send With Invalidate is honoured only for a handle of
 * the call it answers.
 *
 * <h2>Reverse direction (RFC 8167)</h2>
 * The server may call the client on the same connection (NFSv4.1 callbacks, e.g. CB_RECALL). Programs registered with
 * {@link org.rpcrdma4j.xprt.client.RdmaClientConfig.Builder#reverseProgram} serve those calls as oncrpc4j
 * {@code RpcDispatchable}s; the transport each such call sees answers on the connection, and its
 * {@code getPeerTransport()} is this client's transport. As Linux does it: reverse messages are RDMA_MSG with empty
 * chunk lists (inline only; a call with chunks is dropped, a reply too large to send inline becomes SYSTEM_ERR); the
 * reverse direction has 2 credits with 2 receives of its own beyond the forward ones (a call beyond them is dropped
 * and counted) and xids of its own. Calls run on the reverse executor ({@code reverseExecutor}, default 2 threads of
 * the transport), never on the connection's thread nor on the thread that delivers this side's replies, so a slow
 * callback holds up neither. Without reverse programs every reverse call is answered PROG_UNAVAIL, so the server's
 * caller fails at once. A reply to a call that came on a lost connection is not sent on the next one
 * ({@link org.rpcrdma4j.xprt.client.ClientCounter#REVERSE_REPLIES_LOST}).
 *
 * <h2>Credits</h2>
 * Every call asks for {@link org.rpcrdma4j.xprt.client.RdmaClientConfig#maxCredits()} credits (also the number of
 * request slots and, plus a few and the 2 reverse-direction receives, of receive buffers). The credit request does
 * not include the reverse-direction receives. At most the last grant of calls are on the wire; a grant of 0
 * counts as 1, a grant above the request is clamped, and every new connection starts at 1. When the grant is 2 or
 * more, one credit is kept for the keep-alive probe, as the NFS upper-layer binding recommends. Calls beyond the grant
 * wait in the agent's send queue in submission order; callers beyond the slots wait for a slot in arrival order; a
 * call whose timeout passes while it waits leaves the queue.
 *
 * <h2>Life cycle</h2>
 * A call that times out on the wire makes the agent drop the connection (RC has no keep-alive); so does a keep-alive
 * probe (a NULL call on a reserved credit, sent when calls are outstanding and nothing arrived for a while) that is not
 * answered. On a loss every registration handle is destroyed and every call not yet answered is marshaled again and
 * resent on the next connection, or failed when its own timeout expires first. The first reconnect after a loss is
 * immediate; failed attempts back off from {@code reconnectDelayMin} doubling to {@code reconnectDelayMax}. Without
 * calls waiting, the transport stays disconnected until the next call.
 *
 * <h2>Remote invalidation</h2>
 * Offered in the RFC 8797 private data only when the device reports {@code REMOTE_INV} <em>and</em> the registration
 * strategy is FRWR: an FMR or a synchronous registration cannot be invalidated by a peer, and a Send With Invalidate
 * naming one would break the connection.
 */
package org.rpcrdma4j.xprt.client;
