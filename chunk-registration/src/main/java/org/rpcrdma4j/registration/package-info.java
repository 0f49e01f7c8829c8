/**
 * Chunk registration: exposing a caller's memory to the peer for exactly one RPC, and no longer.
 *
 * <h2>Pieces</h2>
 * <ul>
 * <li>{@link org.rpcrdma4j.registration.RegisteredBufferPool} hands out {@link org.rpcrdma4j.registration.RegisteredBuffer}s
 * (reference-counted Netty buffers) carved from big arenas registered once with LOCAL_WRITE. Their lkey serves
 * every SGE; their page views feed page lists. {@code retainOwner} finds the live buffer a plain NIO view lies in
 * (by address), which lets a transport send data a caller encoded by reference without copying it.</li>
 * <li>{@link org.rpcrdma4j.registration.BorrowedBuffer}: a Netty buffer over part of another buffer's memory with a
 * reference count of its own, holding one reference of its owner; memory lent between the layers is always a
 * reference-counted {@code ByteBuf}, and this is how a piece of one gets a life of its own.</li>
 * <li>A {@link org.rpcrdma4j.registration.ScatterList} is one chunk's bytes in order, as ranges of registered
 * memory, cut into page pieces.</li>
 * <li>{@link org.rpcrdma4j.registration.RegistrationPool}: one per connection, holding the pre-allocated handles
 * and the chosen strategy ({@link org.rpcrdma4j.registration.RegistrationMode}).</li>
 * <li>{@link org.rpcrdma4j.registration.Registration}: one per request slot, holding the handles one RPC exposes,
 * as RDMA segments (handle, length, offset).</li>
 * </ul>
 * The strategies (FRWR, FMR, REG_MR) sit behind one package-private operations interface, {@code MemRegOps}
 * (open, maxPages, map, invalidate, destroy). The pool and the registrations never branch on the strategy, and the
 * transport never sees it. Everything except the public types above is package-private. The module has no
 * {@code internal} package because the package boundary already hides those types.
 *
 * <h2>Splitting</h2>
 * Mapping walks the scatter list's pieces and gives each handle as many pieces as it can take. A handle ends at
 * a <em>gap</em>: the previous piece does not end on a page boundary, or the next one does not start on one. With
 * page lists (FRWR, FMR) the pieces may be any pages; with REG_MR they must also be consecutive in memory. A handle
 * also ends at the device's fast-register depth (one page per piece). Each handle becomes one segment, so a 1 MiB
 * payload at depth 256 takes one segment if it is page-aligned and two if it is not.
 * <p>
 * The cost of a handle does not grow with its pages where the memory is contiguous: the scatter list keeps, per
 * piece, where its run starts, so a handle's extent is a binary search and its length a subtraction, and a
 * byte-contiguous run of one arena goes into the page list as a run of the arena's
 * {@link org.rpcrdma4j.verbs.PageTable} (constant time, for the device as well). Only a page list of scattered
 * pages is filled page by page.
 *
 * <h2>Access rights</h2>
 * One function, {@link org.rpcrdma4j.registration.AccessFlags#of}, decides the rights from the transport type and
 * the {@link org.rpcrdma4j.registration.ChunkRole}. A role whose rights are only local (an RDMA READ sink on IB or
 * RoCE) gets no handle: its segments carry the arena's lkey. A remote right is never granted on a long-lived STag.
 *
 * <h2>Handle states</h2>
 * Each handle has a state in the pool (package-private {@code Mr.State}) and a state on the device
 * ({@link org.rpcrdma4j.verbs.MrState}):
 * <pre>
 *            take (map)               REG_MR executes         reply: LOCAL_INV posted
 *   FREE ----------------&gt; MAPPED  - - - - - - - - - - &gt; (VALID) ----------------------&gt; INVALIDATING
 *  (INVALID)                  |                                                              |
 *     ^                       | registration failed / flushed: "failed"                      | signaled LOCAL_INV
 *     |                       v                                                              | completes
 *     +------ release ---- (recover: DEAD, a new handle in the slot) &lt;---- failed ----------+
 *     +---------------------------------------------------------------- ok ------------------+
 * </pre>
 *
 * <h3>Normal operation</h3>
 * A handle on the free list is invalid on the device: it was never registered, or its last registration was
 * invalidated and the invalidation completed. {@code map} takes all the handles a chunk needs at once, so two
 * RPCs cannot each hold half of one chunk's handles and wait on each other. An RPC with two chunks maps them one
 * after the other and holds the first's handles while it maps the second: the transports size their pools from
 * their credits and largest chunks ({@link org.rpcrdma4j.registration.RegistrationConfig#defaults}) for that, and
 * a pool made smaller by hand can leave such RPCs waiting on each other until their maps time out. It fills each
 * handle's page list and
 * gives it a fresh STag key. Under FRWR the registration is only a prepared REG_MR work request at that point. The
 * transport posts it unsignaled, chained ahead of the RPC's Send. Send-queue ordering then makes the handle valid
 * before the peer can learn its STag. Under FMR and REG_MR the mapping is synchronous and the handle is valid when
 * {@code map} returns.
 * <p>
 * When the reply arrives, every handle of the RPC is invalidated before the RPC completes to its caller. A Send
 * with Invalidate may already have invalidated one of them. The pool accepts that only if the STag, key included,
 * belongs to this RPC. Otherwise a peer could cancel another RPC's registration in our name, or make us skip a
 * LOCAL_INV we still need. Every other handle gets a LOCAL_INV. They are chained, and only the last one is signaled.
 * A send queue completes in order, so the completion of the last one proves the earlier ones completed too. That
 * completion (or, under FMR, the synthetic completion of the unmap batch) returns the handles to the free list and
 * calls the registration's {@link org.rpcrdma4j.registration.InvalidationListener}. When nothing needs a work
 * request, because the peer invalidated the only handle, or nothing was posted, or the strategy is REG_MR,
 * {@code invalidate} finishes at once and says so.
 * <p>
 * The 8-bit key advances on every registration of a handle. So an STag the peer kept from an earlier RPC names
 * the right memory region with the wrong key, and the device refuses it.
 *
 * <h3>What may race</h3>
 * <ul>
 * <li>The reply can arrive before the completions of the RPC's own REG_MR or Send, because receive and send
 * completions are separate streams. That is harmless: a REG_MR posted ahead of the Send has executed by the time
 * the peer could answer, and a failed one shows up as an error completion before the chain's later work requests
 * are flushed.</li>
 * <li>A REG_MR error completion (sent even when unsignaled) can arrive while the RPC is still mapped. It only
 * marks the handle <em>failed</em>. The handle is recovered at invalidation time instead of getting a LOCAL_INV.</li>
 * <li>The mapping thread and the connection thread never touch the same handle: a handle belongs to the free list
 * (under the pool lock) or to exactly one registration. A registration passes from the marshaling thread to the
 * connection thread through the transport's queue.</li>
 * <li>Background growth allocates outside the lock, into a reserved slot. A reset that fills the slot first wins,
 * and the late handle is destroyed.</li>
 * </ul>
 *
 * <h3>Transport recovery</h3>
 * An error or flush completion of a REG_MR or LOCAL_INV leaves the handle's device state unknown. A flushed
 * LOCAL_INV may or may not have run. A failed REG_MR may have left the region valid. Such a handle is never reused.
 * It is destroyed (deregistering kills its STag whatever state it was in) and a new one takes its slot. This is
 * counted as {@code MRS_ORPHANED}. When the connection is lost, the transport calls
 * {@link org.rpcrdma4j.registration.RegistrationPool#onDisconnect()}. That call destroys every handle, free or in
 * use, because a new queue pair cannot vouch for any of them, and then allocates a full set. It also advances the
 * <em>epoch</em> carried in every work request id ({@link org.rpcrdma4j.registration.WrIds}), so that flush
 * completions arriving late from the dead queue pair are recognised and ignored. If the epoch were not checked, a
 * late flush could "recover" a handle that already belongs to a new RPC. Registrations waiting for an invalidation
 * are finished there and then (their memory is no longer reachable), and their listeners are called. Mapped
 * registrations notice at their next {@code begin} or {@code invalidate} that their handles are gone, and drop them.
 *
 * <h2>Threads</h2>
 * {@code Registration.map} may run on any thread and is the only call that blocks, waiting for free handles. It
 * must not run on the thread whose completion processing returns handles. Every other per-RPC and per-completion
 * call belongs to the connection's thread. None of them allocates in steady state. REG_MR allocates on every I/O
 * by nature.
 */
package org.rpcrdma4j.registration;
