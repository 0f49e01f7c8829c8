/**
 * The RPC-over-RDMA version 1 transport header (RFC 8166) and its connection private data (RFC 8797), read from and
 * written to Netty {@link io.netty.buffer.ByteBuf}s. Depends on nothing but netty-buffer.
 *
 * <h2>The header</h2>
 * Every RPC-over-RDMA message starts with a transport header of big-endian XDR words:
 * <pre>
 *  offset
 *     0  +----------------------+
 *        | rdma_xid             |  the RPC xid
 *     4  +----------------------+
 *        | rdma_vers = 1        |
 *     8  +----------------------+
 *        | rdma_credit          |  Call: credits requested; Reply: credits granted (a total)
 *    12  +----------------------+
 *        | rdma_proc            |  RDMA_MSG 0, RDMA_NOMSG 1, RDMA_MSGP 2, RDMA_DONE 3, RDMA_ERROR 4
 *    16  +----------------------+
 *        | RDMA_MSG, RDMA_NOMSG:  read list | write list | reply chunk   [ | RPC message, RDMA_MSG only ]
 *        | RDMA_ERROR:            rdma_err = ERR_VERS 1 | rdma_vers_low | rdma_vers_high      (28 bytes)
 *        |                        rdma_err = ERR_CHUNK 2                                      (20 bytes)
 *        +----------------------+
 * </pre>
 * A segment (16 bytes) names registered memory: {@code handle} (the STag / R_key, u32), {@code length} (u32),
 * {@code offset} (the tagged offset, u64). The three lists use XDR optional-data discriminators (1 = an entry
 * follows, 0 = end), written here with H = handle, L = length, OO = offset, P = position, N = count:
 * <pre>
 *   read list    1-PHLOO-1-PHLOO-...-0         each entry 24 bytes; segments with the same position P form
 *                                              one Read chunk; position 0 carries a whole Call (RDMA_NOMSG)
 *   write list   1-N-HLOO...-1-N-HLOO...-0     one entry per Write chunk, N segments each (N may be 0)
 *   reply chunk  0  |  1-N-HLOO...              optional, no terminator
 * </pre>
 * The smallest header is 28 bytes: the fixed 16 and three zero discriminators.
 *
 * <h2>Classes</h2>
 * <ul>
 *   <li>{@link org.rpcrdma4j.codec.RpcRdmaHeader}: a reusable, mutable header that keeps its chunk lists in wire
 *       form (its wire image), with builder methods and the queries marshalers need.</li>
 *   <li>{@link org.rpcrdma4j.codec.RpcRdmaDecoder} and {@link org.rpcrdma4j.codec.RpcRdmaEncoder}: stateless,
 *       allocation-free reading and writing; the encoder also writes RDMA_ERROR replies.</li>
 *   <li>{@link org.rpcrdma4j.codec.RpcRdmaLayout}: offsets, sizes and static flyweight readers (xid peek).</li>
 *   <li>{@link org.rpcrdma4j.codec.RpcRdmaProc}, {@link org.rpcrdma4j.codec.RpcRdmaErrorCode}: wire values.</li>
 *   <li>{@link org.rpcrdma4j.codec.RpcRdmaLimits}: chunk and segment limits for decoding and building.</li>
 *   <li>{@link org.rpcrdma4j.codec.RpcRdmaDecodeException}: the one decode failure, with the xid and the answer
 *       a responder owes (ERR_VERS, ERR_CHUNK or drop).</li>
 *   <li>{@link org.rpcrdma4j.codec.RpcRdmaPrivateData}: RFC 8797 private data.</li>
 * </ul>
 *
 * <h2>What the decoder checks</h2>
 * Truncation everywhere (it reads no byte past the received length, and never an exception other than
 * {@link org.rpcrdma4j.codec.RpcRdmaDecodeException}); version 1 (else ERR_VERS 1..1); known procedure, with
 * RDMA_MSGP and RDMA_DONE refused; discriminators 0 or 1; read positions multiples of 4 and never decreasing;
 * segment counts that fit the remaining bytes, checked before anything grows; the
 * {@link org.rpcrdma4j.codec.RpcRdmaLimits}; RDMA_ERROR bodies. Read chunk lengths are not checked, so chunks with or
 * without XDR padding are both accepted. Role-dependent rules (a Reply carries no Read list, an RDMA_NOMSG Reply
 * needs a Reply chunk, ...) are left to the transport.
 *
 * Where an input breaks several rules, the decoder reports one of them: the first it meets. The Read list is read in
 * two passes (its length and the limits first, then the positions), so a header with both a misplaced position and
 * too many read segments is reported as the latter.
 *
 * <h2>Speed and allocation</h2>
 * Every {@link io.netty.buffer.ByteBuf} accessor repeats its index and reference-count checks, and moving segments
 * one field at a time between the wire and other storage costs more than the checks themselves. A
 * {@link org.rpcrdma4j.codec.RpcRdmaHeader} therefore keeps its chunk lists as a byte array laid out as on the wire
 * (its wire image). The decoder copies the received header into that image (the first 512 bytes in one copy, more
 * on demand), checks it in place in one pass over the discriminators, counts and positions, and keeps only the
 * counts and where each chunk starts; the segments are read from the image when asked for. That pass comes in two
 * forms: a short one for the common header (version 1, RDMA_MSG or RDMA_NOMSG, valid, inside the first copy), which
 * only says yes or "not mine", and the checked one, which handles everything else and names the first rule broken.
 * A header the short pass declines is decoded again by the checked pass, so both give the same answer
 * ({@code RpcRdmaFastPathTest} compares them); the short pass nearly halves the time to decode a typical header.
 * The builder writes each segment into the image where it belongs on the wire; the encoder adds the fixed words and
 * list terminators and copies the image to the buffer in one call. Once a header has held its largest message,
 * encoding and decoding allocate nothing ({@code RpcRdmaAllocationTest} and the {@code benchmarks} module's
 * {@code RpcRdmaCodecBenchmark} with {@code -prof gc} show 0 B/op).
 *
 * <h2>Ownership and threads</h2>
 * Every method borrows the buffers it is given and keeps no reference past the call: a decoded header's values
 * stay valid after the receive buffer is reposted or released. A header, including its wire image, belongs to one
 * thread at a time: encoding a header writes to it too.
 */
package org.rpcrdma4j.codec;
