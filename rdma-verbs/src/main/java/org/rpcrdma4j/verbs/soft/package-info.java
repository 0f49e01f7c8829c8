/**
 * The software iWARP device: a real RNIC in software, speaking MPA (RFC 5044/6581), DDP (RFC 5041) and RDMAP
 * (RFC 5040) over one TCP connection per queue pair, interoperable on the wire with Linux {@code siw}. Provider
 * name {@code soft} ({@link org.rpcrdma4j.verbs.soft.SoftIwarpProvider}); options in
 * {@link org.rpcrdma4j.verbs.soft.SoftIwarpOptions}; test-only fault injection in
 * {@link org.rpcrdma4j.verbs.soft.SoftIwarpFaults}.
 *
 * <h2>Attributes</h2>
 * iWARP; fast-register depth 256 pages (1 MiB of 4 KiB pages); 8 SGEs per work request; 256 bytes of inline data
 * (copied at post time; more than siw's 80 so that a Send header plus a small call fits); IRD and ORD 128 per queue
 * pair; 16384 work requests per queue; 262144 completion-queue entries; messages up to 2 GiB - 1; private data 252
 * bytes with MPA revision 2 (256 with revision 1); capabilities FAST_REG, FMR, LOCAL_INV, SEND_WITH_INV,
 * READ_WITH_INV, REMOTE_INV unless restricted by the {@code capabilities} option. Naming MEMORY_WINDOW there makes the
 * device map REG_MR as a device that binds type 2 memory windows does (one run of registered memory at its own
 * address), so that layers above can be tested for such a device.
 *
 * <h2>What upper layers can rely on</h2>
 * <ul>
 * <li><b>Threads.</b> A fixed set of engine threads ({@code engineThreads}, default 2) serves every queue pair,
 * listener and handshake; a queue pair is bound to one engine for life. Completion-queue listeners, connection
 * listeners, connection-request handlers and the completion of {@code connect} futures run on engine threads and
 * must not block. What one of them throws, an Error too, is logged and stays with its connection (a request handler's
 * failure rejects the request); a failure inside the device while it serves a queue pair ends that queue pair's
 * connection (logged at ERROR, DISCONNECTED, everything flushed): the engine serves its other queue pairs on. Posting, polling, disconnect and close may be called from any thread, listeners included (a
 * post from an engine thread needs no wake-up; disconnect and close requested there take effect right after the
 * callback returns). A small chain (up to 16 KiB of Send and Write payload) posted while the queue pair's engine is
 * idle is transmitted by the posting thread itself (as siw does in {@code post_send}): a completion listener may then
 * run on the posting thread, within {@code postSend}. Larger chains go to the engine thread, which streams them at
 * less CPU than a poster competing with it for the socket. What a completion listener posts while the engine calls
 * it goes once the listeners of that socket read have returned, all of it in one gathering write: an RPC server's
 * replies to calls that arrived together leave together ({@code SoftQp.gatheringWrites()} counts the writes).</li>
 * <li><b>Completion order.</b> Send-queue completions come in posting order, also across RDMA Reads. Receive
 * completions come in posting order. An unsignaled request completes silently unless it fails; its slot counts
 * against {@code maxSendWr} until a later signaled (or failed) completion retires it. A failed or flushed request
 * always completes.</li>
 * <li><b>Notification.</b> An armed queue's listener is called once for all the completions that the FPDUs of one
 * socket read produced (a Read Response that completes a Send and the request right behind it, say): the engine
 * calls it when it has handled what it read, before it reads again, as a NIC raises one interrupt for a batch of
 * completions. Completions made elsewhere (on a posting thread, in a transmission the engine was scheduled for)
 * notify at once.</li>
 * <li><b>Placement.</b> By default an RDMA Write or Send completes once written to the socket, as siw's and an
 * iWARP RNIC's do, and a Write or Send the peer refuses shows as the connection ending. With {@code confirmPlacement}
 * (off by default: Linux 6.1 siw's transmit thread crashed on a probe's answer under random NFS I/O; meant for two
 * devices of this kind) and an ORD of at least 1, an RDMA Write or Send
 * completes only after the peer has placed it: the device follows its data with a zero-length RDMA Read Request
 * (at most one outstanding, none while a Read of the consumer's is outstanding; every Read Response also confirms
 * everything sent before its request). Only a completion someone waits for calls for a probe: a signaled Write or
 * Send, or a signaled request behind unconfirmed ones (completions come in order). Unsignaled Writes and Sends
 * (small RPC calls and replies go that way, inline) are confirmed by the next probe or Read Response, and until then
 * hold their send-queue slots as they would anyway. So a Write or Send the peer refuses completes with REM_ACCESS_ERR or
 * REM_OP_ERR, as on InfiniBand. (Linux siw answers a zero-length Read Request that arrives while it is transmitting
 * with the length and STag of the work request it served before, and ends the connection when that STag has been
 * invalidated since: hence no probe while a Read's response may be on its way, and none behind a Send With
 * Invalidate of the STag the last Read came from until the peer sends something else; what is written meanwhile
 * completes once written, and such a Send waits for an outstanding probe.) Without it (or with ORD 0)
 * a Write or Send completes once written to the socket, as siw does, and a refusal shows only as the connection
 * breaking. On the receiving side a Send after a Write is delivered after the Write's data is placed (one
 * connection, one engine, stream order).</li>
 * <li><b>Probe answers held back.</b> With {@code holdProbeAnswers} (default), the device as responder holds back
 * its (zero-length) answer to a peer's probe that came right behind a small Send (one segment, at most 16 KiB) into
 * a posted receive, so that it leaves in the same gathering write as the next thing it sends anyway — in RPC's
 * request/response pattern, the reply — and the peer reads both with one wake-up: one {@code writev}, {@code read}
 * and {@code epoll_wait} fewer per call and direction. The answer goes at the latest when anything else is sent on
 * the queue pair (a posting thread that transmits its own small chain carries it), when another FPDU other than a
 * Read Response arrives (the peer streams), after {@code probeAnswerHoldMs} (default 1 ms), or when the connection
 * ends (then the peer's waiting work requests are flushed). Never a consumer's RDMA Read, never behind RDMA Writes
 * or a segmented Send, never after this side already sent a message since that Send (the reply may be gone), at
 * most one answer at a time. The price: a peer that Sends and then waits for the Send's completion while nothing
 * comes back gets it after the bound, not at once; after a hold that the bound ended the device stops holding until
 * it again sees the request/response shape (a probe behind a Send answered, then a message of its own), so a
 * one-way stream pays the bound once. {@code probeAnswersHeld()} and related counters of
 * {@link org.rpcrdma4j.verbs.soft.internal.SoftQp} count what happened.</li>
 * <li><b>Reads.</b> At most ORD Reads are in flight; further Reads (and everything behind them) wait in the send
 * queue. FENCE makes a request wait for every earlier Read. An iWARP Read has one sink SGE, needing LOCAL_WRITE and,
 * when the response arrives, REMOTE_WRITE (iWARP Read Responses are tagged writes to the sink STag). Inbound Read
 * Requests beyond the IRD end the connection (Terminate), as in siw.</li>
 * <li><b>Errors.</b> A violation found here sends a Terminate (layer/type/code as siw uses them) and ends the
 * connection; a Terminate from the peer ends it too. The work request concerned completes with its status (remote
 * errors REM_ACCESS_ERR / REM_OP_ERR at the initiator; LOC_LEN_ERR, LOC_PROT_ERR, REM_INV_REQ_ERR at the receiver;
 * LOC_PROT_ERR / LOC_ACCESS_ERR for local SGE and registration faults) with the Terminate code in
 * {@code vendorError} (see {@link org.rpcrdma4j.verbs.soft.wire.Terminate#vendorError}); every other outstanding
 * and later request is flushed (WR_FLUSH_ERR) and the connection listener gets DISCONNECTED exactly once
 * (DEVICE_REMOVAL instead when the device closes). Once a queue pair has left RTS (an error, {@code disconnect}), what
 * the peer still sends is read and dropped, never placed; so is what follows an FPDU that failed a check. {@code
 * disconnect} ends the connection in order (the FPDU being written, a Terminate if one is due, FIN, then up to 2 s
 * for the peer's FIN); a peer that has not taken those last FPDUs within 5 s (it reads nothing) gets a reset instead.
 * {@code close} does not wait for any of that: it closes the socket at once, with a reset while the orderly end is
 * still held up.</li>
 * <li><b>Memory.</b> Registered memory is read and written in place: socket reads go straight into the registered
 * buffer or the receive's SGEs (only the few payload bytes that come in one read with their segment's header, at
 * most 512, are copied from the header buffer), socket writes gather straight from them. Memory named by a work request must stay
 * put until its completion. Memory a peer reaches (a Write's or Read Response's sink, a Read Response's source) and
 * a Send's receive are checked when the message starts and again before every socket read or write that follows
 * (one field read): invalidated, mapped anew or deregistered meanwhile, the memory takes and gives no byte more,
 * and the connection ends with a Terminate as for any access violation (reset instead when a Read Response's FPDU
 * that would carry its bytes is partly sent). The page buffers of a {@link org.rpcrdma4j.verbs.PageList} are lent to the device while
 * the registration is valid: engine threads move their position and limit. A page list that names a run of a
 * {@link org.rpcrdma4j.verbs.PageTable} is taken over in constant time (the table and the run's first entry are
 * kept, not a copy of each page reference), so REG_MR and FMR map cost the same for 1 page and for 256. When the
 * table was carved from memory registered on the same device ({@link org.rpcrdma4j.verbs.PageTable#of}), the run
 * is reached through that memory's per-engine views: one scatter or gather entry per segment, not one per page.</li>
 * <li><b>Allocation.</b> Nothing is allocated per work request, per FPDU or per completion in steady state: work
 * request slots, inline areas, header and trailer slots, gather and scatter arrays, read queues and completion
 * entries are made when the queue pair or queue is created; registered buffers get one duplicate per engine, made on
 * first use. Connection setup, events and errors allocate.</li>
 * <li><b>Wire.</b> The initiator sends its MPA Request right after the TCP connect (revision 2 with the enhanced
 * flag and IRD/ORD by default; C when {@code crc}), reads exactly the Reply, then sends a zero-length RDMA Write to
 * STag 1 so that a responder may start; a responder sends nothing until the initiator's first FPDU. CRC is used when
 * either side asks; markers are refused; private data up to 252 bytes (256 minus the IRD/ORD block). A listener
 * closes, after {@code handshakeTimeoutMs}, a socket that sent junk, nothing, or got no decision, and lives on.
 * At most {@code maxPendingHandshakes} (default 256) accepted connections of the device may wait for their handshake
 * to end; one accepted beyond that is closed at once. A listener whose accept fails (no file descriptor left) stops
 * accepting for half a second instead of trying again at once.
 * A message is cut into segments of {@code maxUlpdu} payload bytes, except that a segment taken from fast-registered
 * 4 KiB pages reached page by page (not the message's last) ends on a page boundary, up to a page short of that: one
 * gathering write then
 * carries up to 16 segments, where a segment starting inside the page the previous one ended in would need the
 * same page buffer twice in one write. (Not where a page is about as large as a segment, and a segment whose end
 * falls in an SGE that starts within it ends where that SGE starts.)</li>
 * </ul>
 */
package org.rpcrdma4j.verbs.soft;
