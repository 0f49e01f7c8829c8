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
 * @param procedures  per NFSv3 procedure or NFSv4 operation (the one each COMPOUND was sent for), those called so far
 * @param nfsVersion  the NFS version mounted: "3", "4.1" or "4.2"
 */
public record StatsSnapshot(NfsUrl url, long ageSeconds, RdmaClientStats transport,
                            Map<String, OpCounters.Op> procedures, String nfsVersion) {
    public StatsSnapshot {
        procedures = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(procedures));
    }
}
