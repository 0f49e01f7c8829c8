package org.rpcrdma4j.xprt.server;

import java.util.Arrays;

import org.rpcrdma4j.registration.Registration;

/**
 * The RDMA READs that pull one call's read chunks into its sink: one per (remote read segment piece, local sink
 * segment) pair, so each READ has exactly one SGE (iWARP allows no more) and never crosses a segment on either side.
 * The last READ into each sink handle may invalidate it (RDMA READ with Invalidate). Reusable, growable; filled by
 * the preparing thread, then owned by the connection's agent (posting and completion).
 */
final class ReadOps {
    private int[] rkeys = new int[4];
    private long[] remoteAddresses = new long[4];
    private int[] lkeys = new int[4];
    private long[] localAddresses = new long[4];
    private int[] lengths = new int[4];
    /** Index of the sink segment (in the slot's {@link Registration}) each READ lands in. */
    private int[] sinkSegments = new int[4];
    /** STag to invalidate with the READ (RDMA_READ_WITH_INV), 0 for a plain READ. */
    private int[] invalidates = new int[4];
    private int count;
    /** READs handed to the queue pair so far (agent). */
    int posted;
    /** READs posted and not yet completed (agent). */
    int outstanding;
    /** Whether any READ failed (agent). */
    boolean failed;

    void clear() {
        count = 0;
        posted = 0;
        outstanding = 0;
        failed = false;
    }

    void add(int rkey, long remoteAddress, int lkey, long localAddress, int length, int sinkSegment) {
        if (count == rkeys.length) {
            int grown = count * 2;
            rkeys = Arrays.copyOf(rkeys, grown);
            remoteAddresses = Arrays.copyOf(remoteAddresses, grown);
            lkeys = Arrays.copyOf(lkeys, grown);
            localAddresses = Arrays.copyOf(localAddresses, grown);
            lengths = Arrays.copyOf(lengths, grown);
            sinkSegments = Arrays.copyOf(sinkSegments, grown);
            invalidates = Arrays.copyOf(invalidates, grown);
        }
        rkeys[count] = rkey;
        remoteAddresses[count] = remoteAddress;
        lkeys[count] = lkey;
        localAddresses[count] = localAddress;
        lengths[count] = length;
        sinkSegments[count] = sinkSegment;
        invalidates[count] = 0;
        count++;
    }

    /**
     * Marks the last READ into each sink segment that has a handle to invalidate it (when the device can).
     */
    void invalidateWithLastRead(Registration sink) {
        for (int i = count - 1; i >= 0; i--) {
            int segment = sinkSegments[i];
            boolean later = false;
            for (int j = i + 1; j < count; j++) {
                if (sinkSegments[j] == segment) {
                    later = true;
                    break;
                }
            }
            if (!later && sink.hasHandle(segment)) {
                invalidates[i] = sink.handle(segment);
            }
        }
    }

    /** After every READ succeeded: tells the registration which handles the READs invalidated. */
    void reportInvalidated(Registration sink) {
        for (int i = 0; i < count; i++) {
            if (invalidates[i] != 0) {
                sink.invalidatedByRead(sinkSegments[i]);
            }
        }
    }

    int count() {
        return count;
    }

    int rkey(int i) {
        return rkeys[i];
    }

    long remoteAddress(int i) {
        return remoteAddresses[i];
    }

    int lkey(int i) {
        return lkeys[i];
    }

    long localAddress(int i) {
        return localAddresses[i];
    }

    int length(int i) {
        return lengths[i];
    }

    int invalidate(int i) {
        return invalidates[i];
    }
}
