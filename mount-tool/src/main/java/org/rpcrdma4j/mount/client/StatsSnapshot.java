package org.rpcrdma4j.mount.client;

import java.util.Map;

import org.rpcrdma4j.nfs.client.NfsUrl;
import org.rpcrdma4j.xprt.client.RdmaClientStats;

/**
 * The counters of one mount at one moment.
 *
 * @param url         what is mounted
 * @param ageSeconds  seconds since the mount
 * @param transport   the RPC-over-RDMA transport's counters, or null over TCP (which keeps none)
 * @param procedures  per NFS procedure, those called so far
 */
public record StatsSnapshot(NfsUrl url, long ageSeconds, RdmaClientStats transport,
                            Map<String, OpCounters.Op> procedures) {
    public StatsSnapshot {
        procedures = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(procedures));
    }
}
