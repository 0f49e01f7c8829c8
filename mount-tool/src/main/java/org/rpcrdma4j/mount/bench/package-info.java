/**
 * The benchmark: {@link org.rpcrdma4j.mount.bench.Bench} keeps N READs or WRITEs in flight on one file at sequential
 * or random offsets for a fixed time ({@link org.rpcrdma4j.mount.bench.Workload}), records each round trip in an
 * HdrHistogram and reports MB/s, IOPS and percentiles ({@link org.rpcrdma4j.mount.bench.BenchResult},
 * {@link org.rpcrdma4j.mount.bench.BenchReport}). Over RDMA the I/O buffers are the transport's registered memory, so
 * the data moves without copies. {@link org.rpcrdma4j.mount.bench.Progress} draws a bar on a terminal only.
 */
package org.rpcrdma4j.mount.bench;
