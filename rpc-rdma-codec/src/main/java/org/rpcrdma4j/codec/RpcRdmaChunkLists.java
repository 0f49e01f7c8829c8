package org.rpcrdma4j.codec;

import java.util.Arrays;
import java.util.Objects;

/**
 * The chunk lists of one {@link RpcRdmaHeader} in their wire form: the header's wire image ({@link RpcRdmaWire})
 * and what is needed to find things in it, the segment counts of the three lists and where each Read and Write chunk
 * starts. The image has the header's wire layout: the fixed words, the Read list entries and their terminator, the
 * Write list (per chunk: discriminator 1, segment count, segments) and its terminator, the Reply chunk. Where a list
 * lies follows from the counts, so a decode records counts and nothing else per segment.
 * <p>
 * The header checks every rule and limit before it calls in here. Owned by one header; not thread-safe.
 */
final class RpcRdmaChunkLists {

    final RpcRdmaWire wire;
    final int readLimit;
    final int writeLimit;
    final int replyLimit;
    private final int maxWriteChunks;
    private final int maxPerChunk;
    private final int maxSegments;

    int readCount;
    int writeCount;
    int replyCount;

    /** Index of the first read segment of each Read chunk. */
    int[] readChunkStart;
    int readChunkCount;

    /** Index (counted over the whole Write list) of the first write segment of each Write chunk. */
    int[] writeChunkStart;
    int writeChunkCount;

    boolean replyChunkPresent;

    RpcRdmaChunkLists(RpcRdmaLimits limits) {
        this.readLimit = Math.min(limits.maxReadSegments(), limits.maxSegments());
        this.writeLimit = (int) Math.min((long) limits.maxWriteChunks() * limits.maxSegmentsPerChunk(),
                limits.maxSegments());
        this.replyLimit = Math.min(limits.maxSegmentsPerChunk(), limits.maxSegments());
        this.maxWriteChunks = limits.maxWriteChunks();
        this.maxPerChunk = limits.maxSegmentsPerChunk();
        this.maxSegments = limits.maxSegments();
        this.wire = new RpcRdmaWire(limits.maxHeaderLength());
        this.readChunkStart = new int[Math.min(4, readLimit)];
        this.writeChunkStart = new int[Math.min(4, maxWriteChunks)];
    }

    /** Empties the three lists; the image keeps its capacity. */
    void clear() {
        readCount = 0;
        readChunkCount = 0;
        writeCount = 0;
        writeChunkCount = 0;
        replyCount = 0;
        replyChunkPresent = false;
    }

    /*
     * Where the lists lie in the image, which has the header's wire layout: the fixed words, the Read list entries
     * and their terminator, the Write list (per chunk: 1, count, segments) and its terminator, the Reply chunk.
     */

    /** @return offset of the Read list's terminating discriminator */
    int readEnd() {
        return RpcRdmaLayout.FIXED_HEADER_LENGTH + readCount * RpcRdmaLayout.READ_LIST_ENTRY_LENGTH;
    }

    /** @return offset of the Write list's first entry */
    int writeAt() {
        return readEnd() + RpcRdmaLayout.WORD;
    }

    /** @return offset of the Write list's terminating discriminator */
    int writeEnd() {
        return writeAt() + writeChunkCount * RpcRdmaLayout.CHUNK_PREFIX_LENGTH
                + writeCount * RpcRdmaLayout.SEGMENT_LENGTH;
    }

    /** @return offset of the Reply chunk's discriminator */
    int replyAt() {
        return writeEnd() + RpcRdmaLayout.WORD;
    }

    /** @return the length of the RDMA_MSG or RDMA_NOMSG header these lists make */
    int imageLength() {
        return replyAt() + (replyChunkPresent
                ? RpcRdmaLayout.CHUNK_PREFIX_LENGTH + replyCount * RpcRdmaLayout.SEGMENT_LENGTH : RpcRdmaLayout.WORD);
    }

    /** @return offset of the handle of read segment {@code i} */
    static int readSegmentAt(int i) {
        return RpcRdmaLayout.FIXED_HEADER_LENGTH + i * RpcRdmaLayout.READ_LIST_ENTRY_LENGTH + 2 * RpcRdmaLayout.WORD;
    }

    /** @return offset of write segment {@code k} (counted over the Write list), which belongs to chunk {@code c} */
    int writeSegmentAt(int c, int k) {
        return writeAt() + (c + 1) * RpcRdmaLayout.CHUNK_PREFIX_LENGTH + k * RpcRdmaLayout.SEGMENT_LENGTH;
    }

    /** @return offset of Reply segment {@code s} */
    int replySegmentAt(int s) {
        return replyAt() + RpcRdmaLayout.CHUNK_PREFIX_LENGTH + s * RpcRdmaLayout.SEGMENT_LENGTH;
    }

    int readPos(int i) {
        return RpcRdmaSegments.position(wire.bytes(), readSegmentAt(i));
    }

    /**
     * Replaces the {@code oldSize} bytes at {@code at} by room for {@code newSize} bytes; when {@code moveTail},
     * the lists after them move along (a builder call out of wire order, or replacing a list in the middle).
     */
    void resize(int at, int oldSize, int newSize, boolean moveTail) {
        int end = imageLength();
        wire.ensureCapacity(end - oldSize + newSize);
        if (moveTail && oldSize != newSize) {
            byte[] image = wire.bytes();
            System.arraycopy(image, at + oldSize, image, at + newSize, end - at - oldSize);
        }
    }

    /**
     * Reads the chunk lists of an RDMA_MSG or RDMA_NOMSG header whose first {@code available} bytes are in the image
     * already, in one pass over the discriminators, positions and counts, when the lists are of the common kind:
     * everything valid and within the limits, inside those bytes, and within the chunk start arrays as they are.
     * Then the counts and chunk starts are recorded and the offset after the lists is returned. Otherwise nothing is
     * recorded and 0 is returned: the decoder's checked path decides (it reports the first rule broken, copies more
     * bytes, grows the arrays). Accepting only what the checked path accepts, with the same result, is what makes
     * the two interchangeable; {@code RpcRdmaFastPathTest} compares them. Allocates nothing.
     *
     * @param available bytes of the header in the image, at most its length
     */
    int decodeCommon(int available) {
        byte[] image = wire.bytes();
        // the words are read in pairs (discriminator and position, discriminator and count, terminator and the next
        // list's discriminator): a read of 8 bytes at p needs p <= last. Lengths stay far below 2^31 - 2^24, so with
        // counts of at most 2^20 no sum below overflows.
        int last = Math.min(available, image.length) - 2 * RpcRdmaLayout.WORD;
        int[] readStarts = readChunkStart;
        // Read list: {1, position, segment}* 0
        int p = RpcRdmaLayout.FIXED_HEADER_LENGTH;
        int n = 0;
        int chunks = 0;
        int first = 0;
        int previous = 0;
        long words;
        while (true) {
            if (p > last) {
                return 0;
            }
            words = RpcRdmaWire.getLong(image, p);
            if (words >>> 32 != RpcRdmaLayout.PRESENT) {
                break;
            }
            // the entry lies inside the bytes because the next pair read does
            int position = (int) words;
            if (position != previous || n == 0) {
                if ((position & 3) != 0 || Integer.compareUnsigned(position, previous) < 0
                        || chunks == readStarts.length) {
                    return 0;
                }
                first = n;
                readStarts[chunks++] = n;
            } else if (n - first >= maxPerChunk) {
                return 0;
            }
            if (++n > readLimit) {
                return 0;
            }
            previous = position;
            p += RpcRdmaLayout.READ_LIST_ENTRY_LENGTH;
        }
        if (words >>> 32 != RpcRdmaLayout.ABSENT) {
            return 0;
        }
        p += RpcRdmaLayout.WORD;
        // Write list: {1, count, count x segment}* 0
        int[] writeStarts = writeChunkStart;
        int writeChunks = 0;
        int writeSegments = 0;
        int total = n;
        while (true) {
            if (p > last) {
                return 0;
            }
            words = RpcRdmaWire.getLong(image, p);
            if (words >>> 32 != RpcRdmaLayout.PRESENT) {
                break;
            }
            // an unsigned count of 2^31 or more reads as negative; the segments lie inside the bytes because the
            // next pair read does
            int count = (int) words;
            if (count < 0 || count > maxPerChunk || count > maxSegments - total || writeChunks == writeStarts.length) {
                return 0;
            }
            p += RpcRdmaLayout.CHUNK_PREFIX_LENGTH + count * RpcRdmaLayout.SEGMENT_LENGTH;
            writeStarts[writeChunks++] = writeSegments;
            writeSegments += count;
            total += count;
        }
        if (words >>> 32 != RpcRdmaLayout.ABSENT) {
            return 0;
        }
        // Reply chunk: 0 | 1, count, count x segment; its discriminator came with the Write list's terminator
        int discriminator = (int) words;
        p += 2 * RpcRdmaLayout.WORD;
        int replySegments = 0;
        if (discriminator == RpcRdmaLayout.PRESENT) {
            if (p > last + RpcRdmaLayout.WORD) {
                return 0;
            }
            replySegments = RpcRdmaWire.getInt(image, p);
            p += RpcRdmaLayout.WORD;
            if (replySegments < 0 || replySegments > maxPerChunk || replySegments > maxSegments - total
                    || replySegments * RpcRdmaLayout.SEGMENT_LENGTH > last + 2 * RpcRdmaLayout.WORD - p) {
                return 0;
            }
            p += replySegments * RpcRdmaLayout.SEGMENT_LENGTH;
        } else if (discriminator != RpcRdmaLayout.ABSENT) {
            return 0;
        }
        readCount = n;
        readChunkCount = chunks;
        writeCount = writeSegments;
        writeChunkCount = writeChunks;
        replyCount = replySegments;
        replyChunkPresent = discriminator == RpcRdmaLayout.PRESENT;
        return p;
    }

    /**
     * Takes the {@code n} Read list entries the decoder found at the start of the image's lists and groups them
     * into Read chunks; see {@link RpcRdmaSegments#groupReadEntries}.
     *
     * @return -1, or the index of the refused entry
     */
    int decodeReadEntries(int n, int maxPerChunk) {
        ensureReadChunkCapacity(n);
        int chunks = RpcRdmaSegments.groupReadEntries(wire.bytes(), readSegmentAt(0), n, readChunkStart, maxPerChunk);
        if (chunks < 0) {
            return -1 - chunks;
        }
        readCount = n;
        readChunkCount = chunks;
        return -1;
    }

    /** Takes a Write chunk of {@code count} segments that the decoder checked; its bytes are in the image. */
    void decodedWriteChunk(int count) {
        ensureWriteChunkCapacity(writeChunkCount + 1);
        writeChunkStart[writeChunkCount++] = writeCount;
        writeCount += count;
    }

    /** Takes a Reply chunk of {@code count} segments that the decoder checked; its bytes are in the image. */
    void decodedReplyChunk(int count) {
        replyChunkPresent = true;
        replyCount = count;
    }

    /** Appends a read segment without checks; the caller has checked alignment, order and limits. */
    void appendRead(int position, int handle, int length, long offset) {
        int n = readCount;
        if (n == 0 || position != readPos(n - 1)) {
            ensureReadChunkCapacity(readChunkCount + 1);
            readChunkStart[readChunkCount++] = n;
        }
        resize(readEnd(), 0, RpcRdmaLayout.READ_LIST_ENTRY_LENGTH, writeChunkCount > 0 || replyChunkPresent);
        RpcRdmaSegments.putReadEntry(wire.bytes(), readSegmentAt(n), position, handle, length, offset);
        readCount = n + 1;
    }

    int readChunkEnd(int chunk) {
        Objects.checkIndex(chunk, readChunkCount);
        return chunk + 1 < readChunkCount ? readChunkStart[chunk + 1] : readCount;
    }

    int writeChunkEnd(int chunk) {
        Objects.checkIndex(chunk, writeChunkCount);
        return chunk + 1 < writeChunkCount ? writeChunkStart[chunk + 1] : writeCount;
    }

    void ensureReadChunkCapacity(int needed) {
        if (needed > readChunkStart.length) {
            int capacity = (int) Math.min(readLimit, Math.max(needed, 2L * readChunkStart.length));
            readChunkStart = Arrays.copyOf(readChunkStart, capacity);
        }
    }

    void ensureWriteChunkCapacity(int needed) {
        if (needed > writeChunkStart.length) {
            int capacity = (int) Math.min(maxWriteChunks, Math.max(needed, 2L * writeChunkStart.length));
            writeChunkStart = Arrays.copyOf(writeChunkStart, capacity);
        }
    }
}
