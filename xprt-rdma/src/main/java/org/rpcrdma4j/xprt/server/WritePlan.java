package org.rpcrdma4j.xprt.server;

import java.util.Arrays;

import org.rpcrdma4j.codec.RpcRdmaHeader;

/**
 * The RDMA WRITEs of one reply: a source byte sequence ({@link SgeList}) cut along the segments of the client's
 * write chunk or reply chunk, filling each segment in order and never past its length, with at most
 * {@code maxSge} SGEs per work request. Reusable and growable; one owner thread at a time.
 * <p>
 * Each operation is {@code (rkey, remote address, first SGE, SGE count, length)}; its SGEs are kept in a second
 * list so the poster copies them into a work request as they are.
 */
final class WritePlan {
    /** Stands for the reply chunk where a write chunk index is expected. */
    static final int REPLY_CHUNK = -1;

    private int[] rkeys = new int[4];
    private long[] remoteAddresses = new long[4];
    private int[] firstSges = new int[4];
    private int[] sgeCounts = new int[4];
    private int[] opLengths = new int[4];
    private int count;
    private final SgeList sges = new SgeList();

    WritePlan clear() {
        count = 0;
        sges.clear();
        return this;
    }

    /**
     * Appends the WRITEs that place {@code source} at the start of chunk {@code chunk} of {@code call} (a write
     * chunk index, or {@link #REPLY_CHUNK}).
     *
     * @return false when the chunk is too small for the source (nothing is appended then)
     */
    boolean add(SgeList source, RpcRdmaHeader call, int chunk, int maxSge) {
        long capacity = chunk == REPLY_CHUNK ? call.replyChunkLength() : call.writeChunkLength(chunk);
        if (source.total() > capacity) {
            return false;
        }
        int segments = chunk == REPLY_CHUNK ? call.replySegmentCount() : call.writeSegmentCount(chunk);
        int segment = 0;
        long segmentUsed = 0;
        int entry = 0;
        long entryUsed = 0;
        long left = source.total();
        while (left > 0 && segment < segments) {
            long segmentLength = chunk == REPLY_CHUNK ? call.replyLengthUnsigned(segment)
                    : call.writeLengthUnsigned(chunk, segment);
            if (segmentUsed == segmentLength) {
                segment++;
                segmentUsed = 0;
                continue;
            }
            int rkey = chunk == REPLY_CHUNK ? call.replyHandle(segment) : call.writeHandle(chunk, segment);
            long offset = chunk == REPLY_CHUNK ? call.replyOffset(segment) : call.writeOffset(chunk, segment);
            int first = sges.barrier().count();
            int n = 0;
            long opLength = 0;
            long room = Math.min(segmentLength - segmentUsed, Integer.MAX_VALUE);
            while (opLength < room && n < maxSge && entry < source.count()) {
                long take = Math.min(source.length(entry) - entryUsed, room - opLength);
                sges.add(source.lkey(entry), source.address(entry) + entryUsed, (int) take);
                n = sges.count() - first;
                opLength += take;
                entryUsed += take;
                if (entryUsed == source.length(entry)) {
                    entry++;
                    entryUsed = 0;
                }
            }
            append(rkey, offset + segmentUsed, first, sges.count() - first, (int) opLength);
            segmentUsed += opLength;
            left -= opLength;
        }
        return true;
    }

    private void append(int rkey, long remoteAddress, int firstSge, int sgeCount, int length) {
        if (count == rkeys.length) {
            int grown = count * 2;
            rkeys = Arrays.copyOf(rkeys, grown);
            remoteAddresses = Arrays.copyOf(remoteAddresses, grown);
            firstSges = Arrays.copyOf(firstSges, grown);
            sgeCounts = Arrays.copyOf(sgeCounts, grown);
            opLengths = Arrays.copyOf(opLengths, grown);
        }
        rkeys[count] = rkey;
        remoteAddresses[count] = remoteAddress;
        firstSges[count] = firstSge;
        sgeCounts[count] = sgeCount;
        opLengths[count] = length;
        count++;
    }

    /** Number of RDMA WRITE work requests. */
    int count() {
        return count;
    }

    int rkey(int op) {
        return rkeys[op];
    }

    long remoteAddress(int op) {
        return remoteAddresses[op];
    }

    int firstSge(int op) {
        return firstSges[op];
    }

    int sgeCount(int op) {
        return sgeCounts[op];
    }

    int length(int op) {
        return opLengths[op];
    }

    /** The SGEs of all operations. */
    SgeList sges() {
        return sges;
    }
}
