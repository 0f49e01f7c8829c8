/**
 * Printing a mount's counters: the {@code /proc/self/mountstats} layout (the {@code xprt: rdma} line exactly as
 * Linux lays it out, the same fields by name, the transport's own counters, per-procedure statistics) and JSON with
 * the same numbers ({@link org.rpcrdma4j.mount.stats.StatsReport}, {@link org.rpcrdma4j.mount.stats.Json}).
 */
package org.rpcrdma4j.mount.stats;
