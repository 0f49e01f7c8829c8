/**
 * Client transport benchmarks: one DDP-API RPC end to end over the software iWARP device against a minimal,
 * allocation-free responder ({@code DdpCallBenchmark}), measuring time per call and, with {@code -prof gc}, bytes
 * allocated per call in the whole JVM (target: 0 B/op).
 */
package org.rpcrdma4j.benchmarks.xprt;
