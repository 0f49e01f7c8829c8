package org.rpcrdma4j.mount.client;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLongArray;

import org.rpcrdma4j.nfs.client.RpcTimeoutException;
import org.rpcrdma4j.nfs.xdr.Nfs3;

/**
 * Per-operation statistics of one mount, as the client sees them: calls, failures, timeouts, bulk data bytes and
 * round-trip times, by NFSv3 procedure (GETATTR, READ...) or, for NFSv4, by the operation each COMPOUND was sent for
 * (READ, OPEN, SEQUENCE...). Updated from the transports' completion threads (lock-free once an operation has been
 * seen); read as a snapshot.
 */
public final class OpCounters {
    private static final int OPS = 0;
    private static final int ERRORS = 1;
    private static final int TIMEOUTS = 2;
    private static final int BYTES = 3;
    private static final int RTT_NANOS = 4;
    private static final int RTT_MAX_NANOS = 5;
    private static final int FIELDS = 6;

    private final ConcurrentHashMap<String, AtomicLongArray> values = new ConcurrentHashMap<>();

    /**
     * One operation's numbers.
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

    void record(String operation, long nanos, long bytes, Throwable failure) {
        AtomicLongArray v = values.get(operation);
        if (v == null) {
            v = values.computeIfAbsent(operation, k -> new AtomicLongArray(FIELDS));
        }
        v.incrementAndGet(OPS);
        if (failure != null) {
            v.incrementAndGet(ERRORS);
            if (failure instanceof RpcTimeoutException
                    || failure.getCause() instanceof RpcTimeoutException) {
                v.incrementAndGet(TIMEOUTS);
            }
        }
        v.addAndGet(BYTES, bytes);
        v.addAndGet(RTT_NANOS, nanos);
        v.accumulateAndGet(RTT_MAX_NANOS, nanos, Math::max);
    }

    /** The operations called so far, by name: NFSv3 procedures in procedure order, then the others by name. */
    public Map<String, Op> snapshot() {
        List<String> names = new ArrayList<>(values.keySet());
        names.sort(Comparator.comparingInt(OpCounters::nfs3Order).thenComparing(Comparator.naturalOrder()));
        Map<String, Op> map = new LinkedHashMap<>();
        for (String name : names) {
            AtomicLongArray v = values.get(name);
            map.put(name, new Op(v.get(OPS), v.get(ERRORS), v.get(TIMEOUTS), v.get(BYTES), v.get(RTT_NANOS),
                    v.get(RTT_MAX_NANOS)));
        }
        return map;
    }

    private static int nfs3Order(String name) {
        for (int p = 0; p <= Nfs3.COMMIT; p++) {
            if (Nfs3.procedureName(p).equals(name)) {
                return p;
            }
        }
        return Integer.MAX_VALUE;
    }
}
