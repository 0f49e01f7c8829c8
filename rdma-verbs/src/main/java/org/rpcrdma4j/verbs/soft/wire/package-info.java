/**
 * The iWARP wire formats as flyweight helpers over {@link java.nio.ByteBuffer}s, stateless and allocation-free on the
 * FPDU path: MPA Request/Reply frames ({@link org.rpcrdma4j.verbs.soft.wire.MpaFrame}), FPDU framing and CRC32C
 * ({@link org.rpcrdma4j.verbs.soft.wire.Fpdu}; the CRC field carries the little-endian bytes of the standard value),
 * DDP headers ({@link org.rpcrdma4j.verbs.soft.wire.Ddp}), RDMAP opcodes and the Read Request
 * ({@link org.rpcrdma4j.verbs.soft.wire.Rdmap}), and the Terminate message with its codes
 * ({@link org.rpcrdma4j.verbs.soft.wire.Terminate}), which also defines how a Terminate code is carried in a work
 * completion's {@code vendorError}. Big-endian everywhere but the CRC field. Names follow RFC 5040, 5041, 5044 and
 * 6581.
 */
package org.rpcrdma4j.verbs.soft.wire;
