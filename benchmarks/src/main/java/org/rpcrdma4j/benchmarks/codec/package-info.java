/**
 * JMH benchmarks of the RPC-over-RDMA version 1 codec ({@code org.rpcrdma4j.codec}): encoding and decoding a
 * transport header with Read, Write and Reply chunks into and out of a reused direct buffer, and the responder's
 * Write list echo. Run with {@code -prof gc}: every benchmark here is expected to allocate 0 B/op.
 */
package org.rpcrdma4j.benchmarks.codec;
