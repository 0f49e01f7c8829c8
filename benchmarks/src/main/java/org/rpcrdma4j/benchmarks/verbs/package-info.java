/**
 * JMH benchmarks of the software iWARP device, each beside its plain-NIO baseline measured in the same run:
 * {@link org.rpcrdma4j.benchmarks.verbs.VerbsBandwidthBenchmark} against
 * {@link org.rpcrdma4j.benchmarks.verbs.NioBandwidthBenchmark} (RDMA Write, RDMA Read, Send at 4 KiB, 64 KiB,
 * 1 MiB) and {@link org.rpcrdma4j.benchmarks.verbs.VerbsLatencyBenchmark} against
 * {@link org.rpcrdma4j.benchmarks.verbs.NioLatencyBenchmark} (Send round trip). Run with {@code -prof gc} to see the
 * allocation per operation of the post/transfer/complete path.
 */
package org.rpcrdma4j.benchmarks.verbs;
