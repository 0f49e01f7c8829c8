package org.rpcrdma4j.mount.client;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;

import org.rpcrdma4j.nfs.client.RpcTimeoutException;
import org.rpcrdma4j.nfs.xdr.Nfs3;

/**
 * Per-procedure statistics of one mount, as the client sees them: calls, failures, timeouts, bulk data bytes and
 * round-trip times. Updated from the transports' completion threads (lock-free); read as a snapshot.
 */
public final class OpCounters {
    private static final int PROCEDURES = 22;
    private static final int OPS = 0;
    private static final int ERRORS = 1;
    private static final int TIMEOUTS = 2;
    private static final int BYTES = 3;
    private static final int RTT_NANOS = 4;
    private static final int RTT_MAX_NANOS = 5;
    private static final int FIELDS = 6;

    private final AtomicLongArray values = new AtomicLongArray(PROCEDURES * FIELDS);

    /**
     * One procedure's numbers.
     *
     * @param ops         calls completed
     * @param errors      calls that failed (no reply or RPC-level error; NFS error statuses are replies)
     * @param timeouts    of those, timeouts
     * @param bytes       bulk data moved (WRITE data sent, READ data received)
     * @param rttNanos    sum of the round-trip times
     * @param maxRttNanos longest round trip
     */
    public record Op(long ops, long errors, long timeouts, long bytes, long rttNanos, long maxRttNanos) {
        /** Mean round trip in milliseconds (0 without calls). */
        public double meanRttMillis() {
            return ops == 0 ? 0 : rttNanos / 1e6 / ops;
        }
    }

    void record(int procedure, long nanos, long bytes, Throwable failure) {
        if (procedure < 0 || procedure >= PROCEDURES) {
            return;
        }
        int base = procedure * FIELDS;
        values.incrementAndGet(base + OPS);
        if (failure != null) {
            values.incrementAndGet(base + ERRORS);
            if (failure instanceof RpcTimeoutException
                    || failure.getCause() instanceof RpcTimeoutException) {
                values.incrementAndGet(base + TIMEOUTS);
            }
        }
        values.addAndGet(base + BYTES, bytes);
        values.addAndGet(base + RTT_NANOS, nanos);
        values.accumulateAndGet(base + RTT_MAX_NANOS, nanos, Math::max);
    }

    /** The procedures called so far, by name, in procedure order. */
    public Map<String, Op> snapshot() {
        Map<String, Op> map = new LinkedHashMap<>();
        for (int p = 0; p < PROCEDURES; p++) {
            int base = p * FIELDS;
            long ops = values.get(base + OPS);
            if (ops > 0) {
                map.put(Nfs3.procedureName(p), new Op(ops, values.get(base + ERRORS), values.get(base + TIMEOUTS),
                        values.get(base + BYTES), values.get(base + RTT_NANOS), values.get(base + RTT_MAX_NANOS)));
            }
        }
        return map;
    }
}
