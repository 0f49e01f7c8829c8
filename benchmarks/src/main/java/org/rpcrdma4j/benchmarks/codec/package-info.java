/**
 * JMH benchmarks of the RPC-over-RDMA version 1 codec ({@code org.rpcrdma4j.codec}): encoding and decoding a
 * transport header with Read, Write and Reply chunks into and out of a reused direct buffer, and the responder's
 * Write list echo. Run with {@code -prof gc}: every benchmark here is expected to allocate 0 B/op.
 * <p>
 * {@code CodecBaselineBenchmark} measures the floor for the same 264 bytes (one bulk copy out of a pooled direct
 * buffer, reading every word) and the codec's fixed cost per call (a header with three empty lists).
 * {@code ThreadCpuProfiler} ({@code -prof org.rpcrdma4j.benchmarks.codec.ThreadCpuProfiler}) adds the worker
 * threads' CPU time per operation, the figure least disturbed when other builds share the machine.
 */
package org.rpcrdma4j.benchmarks.codec;
