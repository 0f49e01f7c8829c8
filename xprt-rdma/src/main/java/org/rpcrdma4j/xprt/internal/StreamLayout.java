package org.rpcrdma4j.xprt.internal;

import java.util.Arrays;

import io.netty.buffer.ByteBuf;
import org.rpcrdma4j.codec.RpcRdmaHeader;
import org.rpcrdma4j.codec.RpcRdmaProc;

/**
 * How a reduced XDR stream (RFC 8166 section 3.5.3) is put back together: the bytes of the rebuilt message, in order,
 * as a list of extents, each taken from the inline message, from a chunk, or zeros (XDR padding). The one
 * implementation of "splicing chunks back in", for both directions:
 * <ul>
 *   <li>the server rebuilds a <em>call</em> from its inline part and its read chunks ({@link #layOutCall}), pulled
 *       with RDMA READ: a chunk extent names a read segment;</li>
 *   <li>the client rebuilds a <em>reply</em> from its inline part and the bytes the server placed in the call's
 *       write chunk ({@link #layOutReply}): the one chunk extent is the write chunk's sink.</li>
 * </ul>
 * Its mirror, cutting a flat message around its data item, is {@link DataItemCut}. Reusable, one per slot; grows to
 * the largest message seen and never shrinks, so steady state allocates nothing.
 * <p>
 * Rules for calls:
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
 * Every violation is reported as a message (the server answers RDMA_ERROR / ERR_CHUNK).
 */
public final class StreamLayout {
    /** Bytes of the inline message. */
    public static final byte INLINE = 0;
    /** Bytes of a chunk. */
    public static final byte REMOTE = 1;
    /** XDR padding. */
    public static final byte ZERO = 2;

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
    public String layOutCall(RpcRdmaHeader call, int inlineLength, int maxChunks, long maxChunkBytes,
                             long maxCallSize) {
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

    /**
     * Lays out a reply whose data item went into a write chunk: {@code inlineLength} bytes of reduced inline reply,
     * with the {@code placed} bytes of the chunk (and their XDR pad) put back at {@code position}, just after the
     * item's length word. A chunk extent's source is 0 and its offset counts from the chunk's first byte.
     */
    public void layOutReply(int inlineLength, int position, long placed) {
        if (position < 0 || position > inlineLength || placed < 0 || placed > Integer.MAX_VALUE - inlineLength - 3) {
            throw new IllegalArgumentException("item of " + placed + " bytes at " + position + " of a "
                    + inlineLength + "-byte reply");
        }
        count = 0;
        chunkCount = placed > 0 ? 1 : 0;
        add(INLINE, 0, 0, position);
        add(REMOTE, 0, 0, (int) placed);
        int pad = (int) ((4 - (placed & 3)) & 3);
        add(ZERO, 0, 0, pad);
        add(INLINE, position, 0, inlineLength - position);
        remoteBytes = placed;
        totalLength = inlineLength + placed + pad;
    }

    /**
     * Appends the laid-out message to {@code target} (grown as needed): inline extents from
     * {@code inline[inlineIndex + source]}, chunk extents from {@code chunk[chunkIndex + offset]} (a chunk whose bytes
     * lie contiguously, as a requester's sink), zeros for padding. All buffers are borrowed; indexes of
     * {@code inline} and {@code chunk} are not moved.
     */
    public void appendTo(ByteBuf target, ByteBuf inline, int inlineIndex, ByteBuf chunk, int chunkIndex) {
        target.ensureWritable((int) totalLength);
        for (int i = 0; i < count; i++) {
            switch (kinds[i]) {
                case INLINE -> target.writeBytes(inline, inlineIndex + sources[i], lengths[i]);
                case REMOTE -> target.writeBytes(chunk, chunkIndex + (int) segmentOffsets[i], lengths[i]);
                default -> target.writeZero(lengths[i]);
            }
        }
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

    /** Length of the rebuilt message. */
    public int totalLength() {
        return (int) totalLength;
    }

    /** Bytes that come from chunks (for a call: to pull with RDMA READ). */
    public long remoteBytes() {
        return remoteBytes;
    }

    /** Chunks in the message (read chunks of a call; 1 or 0 for a reply). */
    public int chunkCount() {
        return chunkCount;
    }

    /** Whether any byte comes from a chunk (for a call: must be pulled with RDMA READ). */
    public boolean needsRead() {
        return remoteBytes > 0;
    }

    public int extentCount() {
        return count;
    }

    public byte kind(int i) {
        return kinds[i];
    }

    /** INLINE: offset in the inline message; REMOTE: read segment index (0 for a reply's write chunk). */
    public int source(int i) {
        return sources[i];
    }

    /** REMOTE: offset within the read segment (within the write chunk for a reply). */
    public long segmentOffset(int i) {
        return segmentOffsets[i];
    }

    public int length(int i) {
        return lengths[i];
    }
}
