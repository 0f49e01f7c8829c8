/**
 * What the client transport ({@code org.rpcrdma4j.xprt.client}) and the server ({@code org.rpcrdma4j.xprt.server})
 * share: one implementation of each concern both sides have. Public only so that both packages can use it; not an API
 * (nothing outside this module may depend on it, and it changes without notice).
 *
 * <h2>Threads</h2>
 * <ul>
 *   <li>{@link org.rpcrdma4j.xprt.internal.Agent} and {@link org.rpcrdma4j.xprt.internal.AgentRunner}: one owner
 *       per piece of state (a connection's queue pair, completion queues, credits, receive buffers, slots);
 *       park/unpark wake-ups and deadlines. {@link org.rpcrdma4j.xprt.internal.AgentClaim}: the owner is the thread
 *       that holds the agent's claim — its runner, or a thread that does a short round of its work itself (a caller
 *       posting its call, a completion listener polling) instead of waking the runner.</li>
 *   <li>{@link org.rpcrdma4j.xprt.internal.Mailbox}: hands slots from any thread to their agent (lock-free,
 *       intrusive, allocation-free); {@link org.rpcrdma4j.xprt.internal.SlotQueue}: the agent's own FIFOs of slots
 *       (calls waiting for a credit, READs for the ORD, replies for send-queue room).</li>
 * </ul>
 *
 * <h2>A connection's resources</h2>
 * <ul>
 *   <li>{@link org.rpcrdma4j.xprt.internal.InlineThresholds}: RFC 8797 private data and the inline thresholds it
 *       negotiates (the same rule on both sides).</li>
 *   <li>{@link org.rpcrdma4j.xprt.internal.QueueSet}: the queue pair and completion queues, attached to the
 *       connection's registration pool.</li>
 *   <li>{@link org.rpcrdma4j.xprt.internal.ReceiveRing}: the receive buffers, posted again in batches.</li>
 *   <li>{@link org.rpcrdma4j.xprt.internal.InlineSends}: the send buffers of reverse-direction messages (RFC 8167:
 *       RDMA_MSG without chunks), the server's calls and the client's replies.</li>
 * </ul>
 *
 * <h2>XDR and chunks</h2>
 * <ul>
 *   <li>{@link org.rpcrdma4j.xprt.internal.RpcHeader}: ONC RPC call and reply headers, read in place.</li>
 *   <li>{@link org.rpcrdma4j.xprt.internal.Bindings}: upper-layer bindings by program <em>and</em> version.</li>
 *   <li>{@link org.rpcrdma4j.xprt.internal.DataItemCut}: splicing a DDP-eligible data item <em>out</em> of a flat
 *       message (the client's calls, the server's replies); {@link org.rpcrdma4j.xprt.internal.StreamLayout}: splicing
 *       chunks back <em>in</em> (the server's calls, the client's replies).</li>
 *   <li>{@link org.rpcrdma4j.xprt.internal.Xdrs}: the bridge to oncrpc4j's {@code Xdr} and its Grizzly buffers (the
 *       only class that sees Grizzly types); {@link org.rpcrdma4j.xprt.internal.Copies}: copies into and out of
 *       registered buffers without allocating.</li>
 * </ul>
 *
 * <h2>Serving calls</h2>
 * An endpoint that serves calls (the server; the client, for reverse-direction calls) screens each before oncrpc4j
 * decodes it ({@link org.rpcrdma4j.xprt.internal.CallScreen} over a
 * {@link org.rpcrdma4j.xprt.internal.ProgramTable}), answers what the screen refuses itself
 * ({@link org.rpcrdma4j.xprt.internal.RpcReplies}) and hands the rest to the program
 * ({@link org.rpcrdma4j.xprt.internal.RpcDispatch}).
 *
 * <h2>Logging</h2>
 * {@link org.rpcrdma4j.xprt.internal.WarningLimiter}: warnings a peer can provoke at will (hostile input dropping one
 * connection after another) are logged at most once per kind per interval, with the count of those held back.
 */
package org.rpcrdma4j.xprt.internal;
