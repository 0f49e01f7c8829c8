package org.rpcrdma4j.codec;

/**
 * How many chunks and segments one transport header may carry. Immutable; a transport makes one from its
 * configuration and gives it to every {@link RpcRdmaHeader} it creates. The same limits bound what
 * {@link RpcRdmaDecoder} accepts from the wire (violations raise {@link RpcRdmaDecodeException} with ERR_CHUNK) and
 * how far a header's segment arrays may grow, so decoding never allocates more than the limits allow.
 * <p>
 * Defaults ({@link #DEFAULT}): 272 read segments, 8 Write chunks, 272 segments per chunk, 1024 segments in all.
 * 272 = 256 + 16 leaves room for a 1 MiB payload registered as one segment per 4 KiB page (257 pages when the
 * payload does not start on a page boundary) in one Read, Write or Reply chunk. The limits matter only for
 * large receive buffers: a header must also fit in the inline threshold, so with the 1024-byte default it
 * cannot carry more than about 60 segments anyway.
 */
public final class RpcRdmaLimits {

    /** The defaults described in the class comment. */
    public static final RpcRdmaLimits DEFAULT = new RpcRdmaLimits(272, 8, 272, 1024);

    private final int maxReadSegments;
    private final int maxWriteChunks;
    private final int maxSegmentsPerChunk;
    private final int maxSegments;

    /**
     * @param maxReadSegments     most read segments in the Read list (all Read chunks together), &gt;= 1
     * @param maxWriteChunks      most Write chunks in the Write list, &gt;= 1
     * @param maxSegmentsPerChunk most segments in one Read chunk, one Write chunk or the Reply chunk, &gt;= 1
     * @param maxSegments         most segments in one header (Read list, Write list and Reply chunk together), &gt;= 1
     * @throws IllegalArgumentException when a value is below 1 or would make arrays of over {@code 1 << 20} entries
     */
    public RpcRdmaLimits(int maxReadSegments, int maxWriteChunks, int maxSegmentsPerChunk, int maxSegments) {
        this.maxReadSegments = check("maxReadSegments", maxReadSegments);
        this.maxWriteChunks = check("maxWriteChunks", maxWriteChunks);
        this.maxSegmentsPerChunk = check("maxSegmentsPerChunk", maxSegmentsPerChunk);
        this.maxSegments = check("maxSegments", maxSegments);
    }

    private static int check(String name, int value) {
        if (value < 1 || value > 1 << 20) {
            throw new IllegalArgumentException(name + " must be in [1, 1048576]: " + value);
        }
        return value;
    }

    /** @return the length of the largest RDMA_MSG header these limits allow (every list at its limit) */
    int maxHeaderLength() {
        long read = Math.min(maxReadSegments, maxSegments);
        long write = Math.min((long) maxWriteChunks * maxSegmentsPerChunk, maxSegments);
        long reply = Math.min(maxSegmentsPerChunk, maxSegments);
        long length = RpcRdmaLayout.FIXED_HEADER_LENGTH + read * RpcRdmaLayout.READ_LIST_ENTRY_LENGTH
                + RpcRdmaLayout.WORD + maxWriteChunks * (long) RpcRdmaLayout.CHUNK_PREFIX_LENGTH
                + write * RpcRdmaLayout.SEGMENT_LENGTH + RpcRdmaLayout.WORD
                + RpcRdmaLayout.CHUNK_PREFIX_LENGTH + reply * RpcRdmaLayout.SEGMENT_LENGTH;
        return (int) Math.min(Integer.MAX_VALUE - 8, length);
    }

    /** @return most read segments in the Read list */
    public int maxReadSegments() {
        return maxReadSegments;
    }

    /** @return most Write chunks in the Write list */
    public int maxWriteChunks() {
        return maxWriteChunks;
    }

    /** @return most segments in any one chunk (Read, Write or Reply) */
    public int maxSegmentsPerChunk() {
        return maxSegmentsPerChunk;
    }

    /** @return most segments in a whole header */
    public int maxSegments() {
        return maxSegments;
    }

    /** @return a copy with another read segment limit */
    public RpcRdmaLimits withMaxReadSegments(int value) {
        return new RpcRdmaLimits(value, maxWriteChunks, maxSegmentsPerChunk, maxSegments);
    }

    /** @return a copy with another Write chunk limit */
    public RpcRdmaLimits withMaxWriteChunks(int value) {
        return new RpcRdmaLimits(maxReadSegments, value, maxSegmentsPerChunk, maxSegments);
    }

    /** @return a copy with another per-chunk segment limit */
    public RpcRdmaLimits withMaxSegmentsPerChunk(int value) {
        return new RpcRdmaLimits(maxReadSegments, maxWriteChunks, value, maxSegments);
    }

    /** @return a copy with another total segment limit */
    public RpcRdmaLimits withMaxSegments(int value) {
        return new RpcRdmaLimits(maxReadSegments, maxWriteChunks, maxSegmentsPerChunk, value);
    }

    @Override
    public String toString() {
        return "RpcRdmaLimits{maxReadSegments=" + maxReadSegments + ", maxWriteChunks=" + maxWriteChunks
                + ", maxSegmentsPerChunk=" + maxSegmentsPerChunk + ", maxSegments=" + maxSegments + '}';
    }
}
