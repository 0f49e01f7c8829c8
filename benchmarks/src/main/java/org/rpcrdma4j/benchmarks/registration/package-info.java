/**
 * Registration benchmarks: map + invalidate of one RPC's chunk per strategy on the software iWARP device, measuring
 * time per operation and, with {@code -prof gc}, allocation per operation (FRWR must be 0 B/op in steady state).
 */
package org.rpcrdma4j.benchmarks.registration;
