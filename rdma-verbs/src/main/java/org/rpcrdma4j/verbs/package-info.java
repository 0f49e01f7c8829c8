/**
 * The verbs SPI: what the RPC-over-RDMA layers need from an RDMA device, modelled on the kernel verbs.
 * <p>
 * A {@link org.rpcrdma4j.verbs.RdmaProvider} opens an {@link org.rpcrdma4j.verbs.RdmaDevice}; the device gives
 * protection domains, completion queues and a connection manager. Memory is registered once
 * ({@link org.rpcrdma4j.verbs.RegisteredMemory}) or per I/O by fast registration
 * ({@link org.rpcrdma4j.verbs.FastRegMemoryRegion}, {@link org.rpcrdma4j.verbs.Opcode#REG_MR}) or FMR. Queue pairs
 * take chains of reusable work requests; completions are polled in batches into reusable objects.
 * <p>
 * Ownership: work request, SGE, page list and completion objects belong to the consumer and are never kept by the
 * device past the call that takes them; an immutable {@link org.rpcrdma4j.verbs.PageTable} a page list names a run
 * of is shared with the device for as long as a registration made from it is valid. Memory named by a posted work request must stay put until its completion
 * (or a later signaled completion on the same queue) is seen.
 * <p>
 * Threads: posting and polling may happen on any one consumer thread per queue; listeners run on device threads and
 * must not block.
 */
package org.rpcrdma4j.verbs;
