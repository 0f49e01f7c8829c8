package org.rpcrdma4j.xprt.server;

import java.util.Arrays;

import org.rpcrdma4j.codec.RpcRdmaHeader;
import org.rpcrdma4j.codec.RpcRdmaProc;

/**
 * How a call with read chunks is put back together (RFC 8166 section 3.5.3, the "reduced" XDR stream): the bytes of
 * the rebuilt call, in order, as a list of extents, each taken from the inline message, from a read segment (pulled
 * with RDMA READ), or zeros (XDR padding). Reusable, one per call slot; grows to the largest call seen and never
 * shrinks, so steady state allocates nothing.
 * <p>
 * Rules:
 * <ul>
 *   <li>A read chunk at position zero is the whole call (RDMA_NOMSG only); it includes its own XDR padding. Any
 *       other read chunk is one data item whose bytes belong at its position in the unreduced stream; it is
 *       accepted with or without its XDR pad (its length is rounded up with zeros to a multiple of 4).</li>
 *   <li>The base stream, into which data-item chunks are inserted, is the position-zero chunk for RDMA_NOMSG and
 *       the inline message for RDMA_MSG. An RDMA_NOMSG without a position-zero chunk, or an RDMA_MSG with one, is
 *       malformed.</li>
 *   <li>Positions must not fall inside an earlier chunk's bytes nor beyond the base stream.</li>
 *   <li>Limits, checked before any byte is read: at most {@code maxChunks} read chunks, at most
 *       {@code maxChunkBytes} in all chunks together, at most {@code maxCallSize} for the rebuilt call.</li>
 * </ul>
 * Every violation is reported as a message (the caller answers RDMA_ERROR / ERR_CHUNK).
 */
final class CallLayout {
    static final byte INLINE = 0;
    static final byte REMOTE = 1;
    static final byte ZERO = 2;

    private byte[] kinds = new byte[8];
    /** INLINE: offset in the inline message; REMOTE: read segment index. */
    private int[] sources = new int[8];
    /** REMOTE: byte offset within the read segment. */
    private long[] segmentOffsets = new long[8];
    private int[] lengths = new int[8];
    private int count;
    private long totalLength;
    private long remoteBytes;
    private int chunkCount;

    /**
     * Lays out the call described by {@code call} (a decoded RDMA_MSG or RDMA_NOMSG) with {@code inlineLength} bytes
     * of inline message.
     *
     * @return null when the layout is valid, else why not (for the log; the answer is ERR_CHUNK)
     */
    String layOut(RpcRdmaHeader call, int inlineLength, int maxChunks, long maxChunkBytes, long maxCallSize) {
        count = 0;
        totalLength = 0;
        remoteBytes = 0;
        int chunks = call.readChunkCount();
        chunkCount = chunks;
        boolean noMsg = call.proc() == RpcRdmaProc.RDMA_NOMSG;
        if (chunks == 0) {
            if (noMsg) {
                return "RDMA_NOMSG call without a position-zero read chunk";
            }
            add(INLINE, 0, 0, inlineLength);
            totalLength = inlineLength;
            return check(maxCallSize);
        }
        if (chunks > maxChunks) {
            return chunks + " read chunks, at most " + maxChunks + " accepted";
        }
        long chunkBytes = 0;
        for (int c = 0; c < chunks; c++) {
            chunkBytes += call.readChunkLength(c);
        }
        if (chunkBytes > maxChunkBytes) {
            return "read chunks of " + chunkBytes + " bytes, at most " + maxChunkBytes + " accepted";
        }
        boolean positionZero = call.readChunkPosition(0) == 0;
        if (noMsg != positionZero) {
            return noMsg ? "RDMA_NOMSG call without a position-zero read chunk"
                    : "RDMA_MSG call with a position-zero read chunk";
        }
        long baseLength = positionZero ? call.readChunkLength(0) : inlineLength;
        long out = 0;
        long base = 0;
        for (int c = positionZero ? 1 : 0; c < chunks; c++) {
            long position = Integer.toUnsignedLong(call.readChunkPosition(c));
            if (position < out) {
                return "read chunk at position " + position + " overlaps the data before it (ends at " + out + ")";
            }
            long before = position - out;
            if (before > baseLength - base) {
                return "read chunk at position " + position + " lies beyond the " + baseLength + "-byte message";
            }
            emitBase(call, positionZero, base, before);
            base += before;
            out += before;
            long length = call.readChunkLength(c);
            emitChunk(call, c, 0, length);
            long pad = (4 - (length & 3)) & 3;
            if (pad > 0) {
                add(ZERO, 0, 0, (int) pad);
            }
            out += length + pad;
            if (out > maxCallSize) {
                return "rebuilt call exceeds " + maxCallSize + " bytes";
            }
        }
        emitBase(call, positionZero, base, baseLength - base);
        out += baseLength - base;
        totalLength = out;
        return check(maxCallSize);
    }

    private String check(long maxCallSize) {
        if (totalLength > maxCallSize) {
            return "rebuilt call of " + totalLength + " bytes exceeds " + maxCallSize;
        }
        return null;
    }

    /** Bytes {@code [from, from + length)} of the base stream: the inline message or the position-zero chunk. */
    private void emitBase(RpcRdmaHeader call, boolean positionZero, long from, long length) {
        if (length == 0) {
            return;
        }
        if (positionZero) {
            emitChunk(call, 0, from, length);
        } else {
            add(INLINE, (int) from, 0, (int) length);
        }
    }

    /** Bytes {@code [from, from + length)} of read chunk {@code chunk}, split at its segment boundaries. */
    private void emitChunk(RpcRdmaHeader call, int chunk, long from, long length) {
        int first = call.readChunkFirstSegment(chunk);
        int n = call.readChunkSegmentCount(chunk);
        long skip = from;
        long left = length;
        for (int s = first; s < first + n && left > 0; s++) {
            long segmentLength = call.readLengthUnsigned(s);
            if (skip >= segmentLength) {
                skip -= segmentLength;
                continue;
            }
            long take = Math.min(segmentLength - skip, left);
            add(REMOTE, s, skip, (int) take);
            remoteBytes += take;
            left -= take;
            skip = 0;
        }
    }

    private void add(byte kind, int source, long segmentOffset, int length) {
        if (length == 0) {
            return;
        }
        if (count == kinds.length) {
            int grown = count * 2;
            kinds = Arrays.copyOf(kinds, grown);
            sources = Arrays.copyOf(sources, grown);
            segmentOffsets = Arrays.copyOf(segmentOffsets, grown);
            lengths = Arrays.copyOf(lengths, grown);
        }
        kinds[count] = kind;
        sources[count] = source;
        segmentOffsets[count] = segmentOffset;
        lengths[count] = length;
        count++;
    }

    /** Length of the rebuilt call. */
    int totalLength() {
        return (int) totalLength;
    }

    /** Bytes to pull with RDMA READ. */
    long remoteBytes() {
        return remoteBytes;
    }

    /** Read chunks in the call. */
    int chunkCount() {
        return chunkCount;
    }

    /** Whether anything must be pulled with RDMA READ. */
    boolean needsRead() {
        return remoteBytes > 0;
    }

    int extentCount() {
        return count;
    }

    byte kind(int i) {
        return kinds[i];
    }

    /** INLINE: offset in the inline message; REMOTE: read segment index. */
    int source(int i) {
        return sources[i];
    }

    /** REMOTE: offset within the read segment. */
    long segmentOffset(int i) {
        return segmentOffsets[i];
    }

    int length(int i) {
        return lengths[i];
    }
}
