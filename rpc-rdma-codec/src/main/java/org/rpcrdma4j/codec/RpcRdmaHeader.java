package org.rpcrdma4j.codec;

import java.util.Arrays;
import java.util.Objects;

/**
 * A reusable, mutable RPC-over-RDMA version 1 transport header (RFC 8166): the fixed words, the Read list, the
 * Write list, the Reply chunk, and for RDMA_ERROR the error code and its version range.
 * <p>
 * Keep one per receive buffer (filled by {@link RpcRdmaDecoder}) or one per request context (filled with the
 * builder methods and written by {@link RpcRdmaEncoder}). The chunk lists live in their wire form, in one byte array
 * the header owns (its wire image): the decoder copies the received header there, checks it in one pass and keeps
 * only the counts and where each chunk starts; the builder writes segments there as they are added; the encoder
 * adds the fixed words and list terminators and copies the image out in one call. Each accessor reads its word from
 * the image, so the values stay valid after the receive buffer is reused or released. The image grows on demand,
 * never past the largest header the {@link RpcRdmaLimits} allow; once a header has held its largest message,
 * neither decoding into it nor building it allocates.
 *
 * <h2>Indexing</h2>
 * <ul>
 *   <li>Read list: segment {@code i} in {@code [0, readSegmentCount())}, in wire order. Segments with the same
 *       position form one Read chunk; chunk {@code c} in {@code [0, readChunkCount())} covers segments
 *       {@code readChunkFirstSegment(c)} .. {@code + readChunkSegmentCount(c) - 1}. Positions never decrease.</li>
 *   <li>Write list: chunk {@code c} in {@code [0, writeChunkCount())}, segment {@code s} in
 *       {@code [0, writeSegmentCount(c))}.</li>
 *   <li>Reply chunk: {@link #hasReplyChunk()}, then segment {@code s} in {@code [0, replySegmentCount())}.</li>
 * </ul>
 * Wire words are unsigned 32-bit values kept in {@code int}s: handles and positions as raw bits, lengths also as
 * {@code long} through the {@code ...LengthUnsigned} accessors (0xFFFFFFFF reads as 4294967295). Offsets are the
 * raw 64 bits. {@link #toString()} prints everything unsigned.
 *
 * <h2>Builder use</h2>
 * <pre>{@code
 * header.clear().xid(xid).credits(128).proc(RpcRdmaProc.RDMA_MSG)
 *       .addReadSegment(position, stag, length, iova)
 *       .beginWriteChunk().addWriteSegment(stag1, len1, iova1).addWriteSegment(stag2, len2, iova2)
 *       .beginReplyChunk().addReplySegment(stag3, len3, iova3);
 * }</pre>
 * Builder methods check what the decoder would refuse (misaligned or decreasing positions, limits) and throw
 * {@link IllegalArgumentException} or {@link IllegalStateException}.
 * <p>
 * Not thread-safe: one owner thread at a time. That includes encoding, which uses scratch space inside the header.
 */
public final class RpcRdmaHeader {

    private final RpcRdmaLimits limits;

    private int xid;
    private int vers = RpcRdmaLayout.VERSION;
    private int credits;
    private RpcRdmaProc proc = RpcRdmaProc.RDMA_MSG;

    /* Segment counts of the three lists; where a list's bytes lie in the image follows from the counts. */
    private final int readLimit;
    private final int writeLimit;
    private final int replyLimit;
    private int readCount;
    private int writeCount;
    private int replyCount;

    /** Index of the first read segment of each Read chunk. */
    private int[] readChunkStart;
    private int readChunkCount;

    /** Index (counted over the whole Write list) of the first write segment of each Write chunk. */
    private int[] writeChunkStart;
    private int writeChunkCount;

    private boolean replyChunkPresent;

    private RpcRdmaErrorCode errorCode;
    private int errorVersLow;
    private int errorVersHigh;

    /** The wire image: the decoder copies into it, the builder writes into it, the encoder copies out of it. */
    private final RpcRdmaWire wire;

    /** A header bounded by {@link RpcRdmaLimits#DEFAULT}. */
    public RpcRdmaHeader() {
        this(RpcRdmaLimits.DEFAULT);
    }

    /** @param limits how many chunks and segments this header may hold and its decoder may accept */
    public RpcRdmaHeader(RpcRdmaLimits limits) {
        this.limits = Objects.requireNonNull(limits, "limits");
        this.readLimit = Math.min(limits.maxReadSegments(), limits.maxSegments());
        this.writeLimit = (int) Math.min((long) limits.maxWriteChunks() * limits.maxSegmentsPerChunk(),
                limits.maxSegments());
        this.replyLimit = Math.min(limits.maxSegmentsPerChunk(), limits.maxSegments());
        this.wire = new RpcRdmaWire(maxLength(limits));
        this.readChunkStart = new int[Math.min(4, readLimit)];
        this.writeChunkStart = new int[Math.min(4, limits.maxWriteChunks())];
    }

    /** @return the length of the largest RDMA_MSG header {@code limits} allow (all lists at their limits) */
    static int maxLength(RpcRdmaLimits limits) {
        long read = Math.min(limits.maxReadSegments(), limits.maxSegments());
        long write = Math.min((long) limits.maxWriteChunks() * limits.maxSegmentsPerChunk(), limits.maxSegments());
        long reply = Math.min(limits.maxSegmentsPerChunk(), limits.maxSegments());
        long length = RpcRdmaLayout.FIXED_HEADER_LENGTH + read * RpcRdmaLayout.READ_LIST_ENTRY_LENGTH
                + RpcRdmaLayout.WORD + limits.maxWriteChunks() * (long) RpcRdmaLayout.CHUNK_PREFIX_LENGTH
                + write * RpcRdmaLayout.SEGMENT_LENGTH + RpcRdmaLayout.WORD
                + RpcRdmaLayout.CHUNK_PREFIX_LENGTH + reply * RpcRdmaLayout.SEGMENT_LENGTH;
        return (int) Math.min(Integer.MAX_VALUE - 8, length);
    }

    /** @return the limits this header was made with */
    public RpcRdmaLimits limits() {
        return limits;
    }

    // ------------------------------------------------------------------------------------------------ builder

    /**
     * Resets to an empty RDMA_MSG: xid 0, vers 1, credits 0, no chunks, no error. Keeps the arrays.
     *
     * @return this
     */
    public RpcRdmaHeader clear() {
        xid = 0;
        vers = RpcRdmaLayout.VERSION;
        credits = 0;
        proc = RpcRdmaProc.RDMA_MSG;
        clearChunkLists();
        errorCode = null;
        errorVersLow = 0;
        errorVersHigh = 0;
        return this;
    }

    /**
     * Empties the Read list, the Write list and the Reply chunk; the fixed words stay.
     *
     * @return this
     */
    public RpcRdmaHeader clearChunkLists() {
        readCount = 0;
        readChunkCount = 0;
        writeCount = 0;
        writeChunkCount = 0;
        replyCount = 0;
        replyChunkPresent = false;
        return this;
    }

    /** @return this, with {@code rdma_xid} set */
    public RpcRdmaHeader xid(int xid) {
        this.xid = xid;
        return this;
    }

    /** @return this, with {@code rdma_vers} set (1 after {@link #clear()}; other values only make sense in tests) */
    public RpcRdmaHeader vers(int vers) {
        this.vers = vers;
        return this;
    }

    /** @return this, with {@code rdma_credit} set: the request in a Call, the grant in a Reply */
    public RpcRdmaHeader credits(int credits) {
        this.credits = credits;
        return this;
    }

    /** @return this, with {@code rdma_proc} set */
    public RpcRdmaHeader proc(RpcRdmaProc proc) {
        this.proc = Objects.requireNonNull(proc, "proc");
        return this;
    }

    /**
     * Appends a read segment. A position equal to the previous one extends the last Read chunk; a larger one starts
     * a new Read chunk.
     *
     * @param position byte offset of the chunk's data in the unreduced XDR stream; a multiple of 4, unsigned, not
     *                 below the previous segment's position
     * @param handle   the STag (R_key) that names the registered memory
     * @param length   bytes, unsigned
     * @param offset   the tagged offset (iova) of the first byte
     * @return this
     * @throws IllegalArgumentException for a misaligned or decreasing position
     * @throws IllegalStateException    when a limit would be exceeded
     */
    public RpcRdmaHeader addReadSegment(int position, int handle, int length, long offset) {
        if ((position & 3) != 0) {
            throw new IllegalArgumentException("read position not a multiple of 4: "
                    + Integer.toUnsignedString(position));
        }
        int n = readCount;
        if (n > 0 && Integer.compareUnsigned(position, readPos(n - 1)) < 0) {
            throw new IllegalArgumentException("read position " + Integer.toUnsignedString(position)
                    + " below the previous one " + Integer.toUnsignedString(readPos(n - 1)));
        }
        if (n >= limits.maxReadSegments()) {
            throw new IllegalStateException("more than " + limits.maxReadSegments() + " read segments");
        }
        boolean newChunk = n == 0 || position != readPos(n - 1);
        int inChunk = newChunk ? 0 : n - readChunkStart[readChunkCount - 1];
        if (inChunk >= limits.maxSegmentsPerChunk()) {
            throw new IllegalStateException("more than " + limits.maxSegmentsPerChunk() + " segments in a Read chunk");
        }
        checkTotal();
        appendRead(position, handle, length, offset);
        return this;
    }

    /**
     * Starts a new, empty Write chunk; {@link #addWriteSegment} fills it. A chunk left without segments is encoded
     * as an empty Write chunk (count 0).
     *
     * @return this
     * @throws IllegalStateException when the Write chunk limit would be exceeded
     */
    public RpcRdmaHeader beginWriteChunk() {
        if (writeChunkCount >= limits.maxWriteChunks()) {
            throw new IllegalStateException("more than " + limits.maxWriteChunks() + " Write chunks");
        }
        int at = writeEnd();
        resize(at, 0, RpcRdmaLayout.CHUNK_PREFIX_LENGTH, replyChunkPresent);
        wire.putLong(at, RpcRdmaSegments.pair(RpcRdmaLayout.PRESENT, 0));
        ensureWriteChunkCapacity(writeChunkCount + 1);
        writeChunkStart[writeChunkCount++] = writeCount;
        return this;
    }

    /**
     * Appends a segment to the Write chunk begun last.
     *
     * @return this
     * @throws IllegalStateException when no Write chunk was begun or a limit would be exceeded
     */
    public RpcRdmaHeader addWriteSegment(int handle, int length, long offset) {
        if (writeChunkCount == 0) {
            throw new IllegalStateException("addWriteSegment before beginWriteChunk");
        }
        int last = writeChunkCount - 1;
        if (writeCount - writeChunkStart[last] >= limits.maxSegmentsPerChunk()) {
            throw new IllegalStateException("more than " + limits.maxSegmentsPerChunk() + " segments in a Write chunk");
        }
        checkTotal();
        int at = writeEnd();
        resize(at, 0, RpcRdmaLayout.SEGMENT_LENGTH, replyChunkPresent);
        RpcRdmaSegments.putSegment(wire.bytes(), at, handle, length, offset);
        int countAt = writeSegmentAt(last, writeChunkStart[last]) - RpcRdmaLayout.WORD;
        wire.putInt(countAt, wire.getInt(countAt) + 1);
        writeCount++;
        return this;
    }

    /**
     * Makes the Reply chunk present with no segments yet (dropping any it had); {@link #addReplySegment} fills it.
     *
     * @return this
     */
    public RpcRdmaHeader beginReplyChunk() {
        replyCount = 0;
        replyChunkPresent = true;
        return this;
    }

    /**
     * Appends a segment to the Reply chunk.
     *
     * @return this
     * @throws IllegalStateException when {@link #beginReplyChunk()} was not called or a limit would be exceeded
     */
    public RpcRdmaHeader addReplySegment(int handle, int length, long offset) {
        if (!replyChunkPresent) {
            throw new IllegalStateException("addReplySegment before beginReplyChunk");
        }
        if (replyCount >= limits.maxSegmentsPerChunk()) {
            throw new IllegalStateException("more than " + limits.maxSegmentsPerChunk() + " segments in the Reply chunk");
        }
        checkTotal();
        int at = replySegmentAt(replyCount);
        wire.ensureCapacity(at + RpcRdmaLayout.SEGMENT_LENGTH);
        RpcRdmaSegments.putSegment(wire.bytes(), at, handle, length, offset);
        replyCount++;
        return this;
    }

    /**
     * Turns this header into an RDMA_ERROR: sets the procedure and the error, empties the chunk lists.
     *
     * @param code ERR_VERS or ERR_CHUNK
     * @param low  lowest supported version (ERR_VERS only; ignored otherwise)
     * @param high highest supported version (ERR_VERS only; ignored otherwise)
     * @return this
     * @throws IllegalArgumentException for {@link RpcRdmaErrorCode#UNKNOWN}
     */
    public RpcRdmaHeader error(RpcRdmaErrorCode code, int low, int high) {
        if (Objects.requireNonNull(code, "code") == RpcRdmaErrorCode.UNKNOWN) {
            throw new IllegalArgumentException("UNKNOWN is not an error code that can be sent");
        }
        clearChunkLists();
        proc = RpcRdmaProc.RDMA_ERROR;
        errorCode = code;
        errorVersLow = code == RpcRdmaErrorCode.ERR_VERS ? low : 0;
        errorVersHigh = code == RpcRdmaErrorCode.ERR_VERS ? high : 0;
        return this;
    }

    /** @return this, made an RDMA_ERROR / ERR_VERS reporting versions {@code low..high} */
    public RpcRdmaHeader errorVers(int low, int high) {
        return error(RpcRdmaErrorCode.ERR_VERS, low, high);
    }

    /** @return this, made an RDMA_ERROR / ERR_CHUNK */
    public RpcRdmaHeader errorChunk() {
        return error(RpcRdmaErrorCode.ERR_CHUNK, 0, 0);
    }

    /**
     * Replaces this header's Write list by a copy of {@code call}'s: the same chunks, the same segment counts,
     * handles, offsets and lengths. A responder then reports what it wrote with
     * {@link #setWriteChunkBytesWritten(int, long)} or {@link #setWriteSegmentLength(int, int, int)}.
     *
     * @param call borrowed; not changed
     * @return this
     * @throws IllegalStateException when {@code call}'s Write list exceeds this header's limits
     */
    public RpcRdmaHeader copyWriteListFrom(RpcRdmaHeader call) {
        if (call.writeChunkCount > limits.maxWriteChunks() || call.writeCount > writeLimit) {
            throw new IllegalStateException("the Write list does not fit this header's limits");
        }
        for (int c = 0; c < call.writeChunkCount; c++) {
            if (call.writeSegmentCount(c) > limits.maxSegmentsPerChunk()) {
                throw new IllegalStateException("Write chunk " + c + " does not fit this header's limits");
            }
        }
        checkTotalAfter(readCount + call.writeCount + replyCount);
        int at = writeAt();
        int length = call.writeEnd() - call.writeAt();
        resize(at, writeEnd() - at, length, replyChunkPresent);
        System.arraycopy(call.wire.bytes(), call.writeAt(), wire.bytes(), at, length);
        writeCount = call.writeCount;
        ensureWriteChunkCapacity(call.writeChunkCount);
        System.arraycopy(call.writeChunkStart, 0, writeChunkStart, 0, call.writeChunkCount);
        writeChunkCount = call.writeChunkCount;
        return this;
    }

    /**
     * Replaces this header's Reply chunk by a copy of {@code call}'s (absent stays absent).
     *
     * @param call borrowed; not changed
     * @return this
     * @throws IllegalStateException when {@code call}'s Reply chunk exceeds this header's limits
     */
    public RpcRdmaHeader copyReplyChunkFrom(RpcRdmaHeader call) {
        if (call.replyCount > replyLimit) {
            throw new IllegalStateException("the Reply chunk does not fit this header's limits");
        }
        checkTotalAfter(readCount + writeCount + call.replyCount);
        int at = replySegmentAt(0);
        int length = call.replyCount * RpcRdmaLayout.SEGMENT_LENGTH;
        wire.ensureCapacity(at + length);
        System.arraycopy(call.wire.bytes(), call.replySegmentAt(0), wire.bytes(), at, length);
        replyCount = call.replyCount;
        replyChunkPresent = call.replyChunkPresent;
        return this;
    }

    /**
     * Sets one Write segment's length (a responder reporting the bytes it wrote there).
     *
     * @return this
     * @throws IndexOutOfBoundsException for a chunk or segment that does not exist
     */
    public RpcRdmaHeader setWriteSegmentLength(int chunk, int segment, int length) {
        RpcRdmaSegments.setLength(wire.bytes(), writeSegmentAt(chunk, writeIndex(chunk, segment)), length);
        return this;
    }

    /**
     * Reports that {@code bytes} were written into Write chunk {@code chunk}: the segments are filled in order, each
     * up to its current length (taken as its capacity), and the remaining segments get length 0 ("unused"). The
     * segment count stays, as RFC 8166 requires of a Reply's Write list.
     *
     * @return this
     * @throws IllegalArgumentException  when {@code bytes} is negative or more than the chunk holds
     * @throws IndexOutOfBoundsException for a chunk that does not exist
     */
    public RpcRdmaHeader setWriteChunkBytesWritten(int chunk, long bytes) {
        long capacity = writeChunkLength(chunk);
        if (bytes < 0 || bytes > capacity) {
            throw new IllegalArgumentException(bytes + " bytes do not fit Write chunk " + chunk + " of " + capacity);
        }
        int first = writeChunkStart[chunk];
        RpcRdmaSegments.spread(wire.bytes(), writeSegmentAt(chunk, first), writeChunkEnd(chunk) - first,
                RpcRdmaSegments.PLAIN_STRIDE, bytes);
        return this;
    }

    /**
     * Sets one Reply segment's length.
     *
     * @return this
     * @throws IndexOutOfBoundsException for a segment that does not exist
     */
    public RpcRdmaHeader setReplySegmentLength(int segment, int length) {
        RpcRdmaSegments.setLength(wire.bytes(), replySegmentAt(Objects.checkIndex(segment, replyCount)), length);
        return this;
    }

    /**
     * Reports that {@code bytes} were written into the Reply chunk, like {@link #setWriteChunkBytesWritten}.
     *
     * @return this
     * @throws IllegalArgumentException when {@code bytes} is negative or more than the Reply chunk holds
     */
    public RpcRdmaHeader setReplyChunkBytesWritten(long bytes) {
        long capacity = replyChunkLength();
        if (bytes < 0 || bytes > capacity) {
            throw new IllegalArgumentException(bytes + " bytes do not fit the Reply chunk of " + capacity);
        }
        RpcRdmaSegments.spread(wire.bytes(), replySegmentAt(0), replyCount, RpcRdmaSegments.PLAIN_STRIDE, bytes);
        return this;
    }

    /**
     * Makes this header a copy of {@code other}.
     *
     * @param other borrowed; not changed
     * @return this
     * @throws IllegalStateException when {@code other}'s lists exceed this header's limits
     */
    public RpcRdmaHeader copyFrom(RpcRdmaHeader other) {
        if (other.readCount > readLimit || other.totalSegmentCount() > limits.maxSegments()) {
            throw new IllegalStateException("the Read list does not fit this header's limits");
        }
        clear();
        xid = other.xid;
        vers = other.vers;
        credits = other.credits;
        proc = other.proc;
        errorCode = other.errorCode;
        errorVersLow = other.errorVersLow;
        errorVersHigh = other.errorVersHigh;
        copyWriteListFrom(other);
        copyReplyChunkFrom(other);
        int length = other.readCount * RpcRdmaLayout.READ_LIST_ENTRY_LENGTH;
        resize(RpcRdmaLayout.FIXED_HEADER_LENGTH, 0, length, true);
        System.arraycopy(other.wire.bytes(), RpcRdmaLayout.FIXED_HEADER_LENGTH, wire.bytes(),
                RpcRdmaLayout.FIXED_HEADER_LENGTH, length);
        readCount = other.readCount;
        ensureReadChunkCapacity(other.readChunkCount);
        System.arraycopy(other.readChunkStart, 0, readChunkStart, 0, other.readChunkCount);
        readChunkCount = other.readChunkCount;
        return this;
    }

    // ------------------------------------------------------------------------------------------- fixed words

    /** @return {@code rdma_xid} (raw bits) */
    public int xid() {
        return xid;
    }

    /** @return {@code rdma_vers} */
    public int vers() {
        return vers;
    }

    /** @return {@code rdma_credit} (raw bits; see {@link Integer#toUnsignedLong(int)}) */
    public int credits() {
        return credits;
    }

    /** @return {@code rdma_proc}; never null */
    public RpcRdmaProc proc() {
        return proc;
    }

    // --------------------------------------------------------------------------------------------- read list

    /** @return number of read segments in the Read list */
    public int readSegmentCount() {
        return readCount;
    }

    /** @return position of read segment {@code i} (raw bits of the unsigned word) */
    public int readPosition(int i) {
        return readPos(Objects.checkIndex(i, readCount));
    }

    /** @return handle (STag) of read segment {@code i} */
    public int readHandle(int i) {
        return RpcRdmaSegments.handle(wire.bytes(), readSegmentAt(Objects.checkIndex(i, readCount)));
    }

    /** @return length of read segment {@code i}, raw bits */
    public int readLength(int i) {
        return RpcRdmaSegments.length(wire.bytes(), readSegmentAt(Objects.checkIndex(i, readCount)));
    }

    /** @return length of read segment {@code i}, unsigned */
    public long readLengthUnsigned(int i) {
        return Integer.toUnsignedLong(readLength(i));
    }

    /** @return offset of read segment {@code i} */
    public long readOffset(int i) {
        return RpcRdmaSegments.offset(wire.bytes(), readSegmentAt(Objects.checkIndex(i, readCount)));
    }

    /** @return number of Read chunks (runs of read segments sharing a position) */
    public int readChunkCount() {
        return readChunkCount;
    }

    /** @return index of the first read segment of Read chunk {@code chunk} */
    public int readChunkFirstSegment(int chunk) {
        return readChunkStart[Objects.checkIndex(chunk, readChunkCount)];
    }

    /** @return number of segments in Read chunk {@code chunk} */
    public int readChunkSegmentCount(int chunk) {
        return readChunkEnd(chunk) - readChunkStart[chunk];
    }

    /** @return position of Read chunk {@code chunk} */
    public int readChunkPosition(int chunk) {
        return readPos(readChunkFirstSegment(chunk));
    }

    /** @return total unsigned length of Read chunk {@code chunk} */
    public long readChunkLength(int chunk) {
        int first = readChunkFirstSegment(chunk);
        return RpcRdmaSegments.sumLengths(wire.bytes(), readSegmentAt(first), readChunkEnd(chunk) - first,
                RpcRdmaSegments.READ_STRIDE);
    }

    /** @return index of the Read chunk at {@code position}, or -1 when there is none */
    public int findReadChunk(int position) {
        for (int c = 0; c < readChunkCount; c++) {
            if (readPos(readChunkStart[c]) == position) {
                return c;
            }
        }
        return -1;
    }

    /** @return whether the Read list has a chunk at position 0 (the whole Call, sent with RDMA_NOMSG) */
    public boolean hasPositionZeroReadChunk() {
        return readChunkCount > 0 && readPos(0) == 0;
    }

    // -------------------------------------------------------------------------------------------- write list

    /** @return number of Write chunks in the Write list */
    public int writeChunkCount() {
        return writeChunkCount;
    }

    /** @return number of segments in Write chunk {@code chunk} (0 for an empty Write chunk) */
    public int writeSegmentCount(int chunk) {
        return writeChunkEnd(chunk) - writeChunkStart[chunk];
    }

    /** @return number of segments in all Write chunks together */
    public int totalWriteSegmentCount() {
        return writeCount;
    }

    /** @return handle of segment {@code segment} of Write chunk {@code chunk} */
    public int writeHandle(int chunk, int segment) {
        return RpcRdmaSegments.handle(wire.bytes(), writeSegmentAt(chunk, writeIndex(chunk, segment)));
    }

    /** @return length (raw bits) of segment {@code segment} of Write chunk {@code chunk} */
    public int writeLength(int chunk, int segment) {
        return RpcRdmaSegments.length(wire.bytes(), writeSegmentAt(chunk, writeIndex(chunk, segment)));
    }

    /** @return length, unsigned, of segment {@code segment} of Write chunk {@code chunk} */
    public long writeLengthUnsigned(int chunk, int segment) {
        return Integer.toUnsignedLong(writeLength(chunk, segment));
    }

    /** @return offset of segment {@code segment} of Write chunk {@code chunk} */
    public long writeOffset(int chunk, int segment) {
        return RpcRdmaSegments.offset(wire.bytes(), writeSegmentAt(chunk, writeIndex(chunk, segment)));
    }

    /** @return total unsigned length of Write chunk {@code chunk} */
    public long writeChunkLength(int chunk) {
        int first = writeChunkStart[Objects.checkIndex(chunk, writeChunkCount)];
        return RpcRdmaSegments.sumLengths(wire.bytes(), writeSegmentAt(chunk, first), writeChunkEnd(chunk) - first,
                RpcRdmaSegments.PLAIN_STRIDE);
    }

    // ------------------------------------------------------------------------------------------- reply chunk

    /** @return whether the Reply chunk is present (it may still have 0 segments) */
    public boolean hasReplyChunk() {
        return replyChunkPresent;
    }

    /** @return number of segments in the Reply chunk (0 when absent) */
    public int replySegmentCount() {
        return replyCount;
    }

    /** @return handle of Reply segment {@code segment} */
    public int replyHandle(int segment) {
        return RpcRdmaSegments.handle(wire.bytes(), replySegmentAt(Objects.checkIndex(segment, replyCount)));
    }

    /** @return length (raw bits) of Reply segment {@code segment} */
    public int replyLength(int segment) {
        return RpcRdmaSegments.length(wire.bytes(), replySegmentAt(Objects.checkIndex(segment, replyCount)));
    }

    /** @return length, unsigned, of Reply segment {@code segment} */
    public long replyLengthUnsigned(int segment) {
        return Integer.toUnsignedLong(replyLength(segment));
    }

    /** @return offset of Reply segment {@code segment} */
    public long replyOffset(int segment) {
        return RpcRdmaSegments.offset(wire.bytes(), replySegmentAt(Objects.checkIndex(segment, replyCount)));
    }

    /** @return total unsigned length of the Reply chunk (0 when absent) */
    public long replyChunkLength() {
        return RpcRdmaSegments.sumLengths(wire.bytes(), replySegmentAt(0), replyCount, RpcRdmaSegments.PLAIN_STRIDE);
    }

    // ----------------------------------------------------------------------------------------------- errors

    /** @return the error code of an RDMA_ERROR header; {@code null} for other procedures */
    public RpcRdmaErrorCode errorCode() {
        return proc == RpcRdmaProc.RDMA_ERROR ? errorCode : null;
    }

    /** @return {@code rdma_vers_low} of an ERR_VERS header, else 0 */
    public int errorVersLow() {
        return errorVersLow;
    }

    /** @return {@code rdma_vers_high} of an ERR_VERS header, else 0 */
    public int errorVersHigh() {
        return errorVersHigh;
    }

    // ------------------------------------------------------------------------------------------ whole header

    /** @return number of segments in the Read list, the Write list and the Reply chunk together */
    public int totalSegmentCount() {
        return readCount + writeCount + replyCount;
    }

    /**
     * The one handle named by this header, if there is exactly one distinct handle among all its segments: the
     * condition under which a responder may answer with Send With Invalidate (as the Linux server does).
     *
     * @return that handle as an unsigned value, or -1 when the header names no handle or more than one
     */
    public long soleHandle() {
        byte[] image = wire.bytes();
        long sole = RpcRdmaSegments.foldSoleHandle(image, readSegmentAt(0), readCount, RpcRdmaSegments.READ_STRIDE,
                RpcRdmaSegments.NO_HANDLE);
        for (int c = 0; c < writeChunkCount; c++) {
            int first = writeChunkStart[c];
            sole = RpcRdmaSegments.foldSoleHandle(image, writeSegmentAt(c, first), writeChunkEnd(c) - first,
                    RpcRdmaSegments.PLAIN_STRIDE, sole);
        }
        sole = RpcRdmaSegments.foldSoleHandle(image, replySegmentAt(0), replyCount, RpcRdmaSegments.PLAIN_STRIDE, sole);
        return sole < 0 ? -1 : sole;
    }

    /**
     * @param other another header
     * @return whether both describe the same header on the wire (the limits are not compared)
     */
    public boolean contentEquals(RpcRdmaHeader other) {
        if (other == this) {
            return true;
        }
        if (xid != other.xid || vers != other.vers || credits != other.credits || proc != other.proc) {
            return false;
        }
        if (proc == RpcRdmaProc.RDMA_ERROR) {
            return errorCode == other.errorCode && errorVersLow == other.errorVersLow
                    && errorVersHigh == other.errorVersHigh;
        }
        if (readChunkCount != other.readChunkCount || writeChunkCount != other.writeChunkCount
                || replyChunkPresent != other.replyChunkPresent || readCount != other.readCount
                || writeCount != other.writeCount || replyCount != other.replyCount) {
            return false;
        }
        for (int c = 0; c < writeChunkCount; c++) {
            if (writeChunkStart[c] != other.writeChunkStart[c]) {
                return false;
            }
        }
        // with equal counts the lists lie at the same offsets; the words between segments (discriminators 1,
        // segment counts) then agree too, so equal bytes mean equal lists
        byte[] a = wire.bytes();
        byte[] b = other.wire.bytes();
        int from = RpcRdmaLayout.FIXED_HEADER_LENGTH;
        int replyFrom = replySegmentAt(0);
        int replyTo = replyFrom + replyCount * RpcRdmaLayout.SEGMENT_LENGTH;
        return Arrays.equals(a, from, readEnd(), b, from, readEnd())
                && Arrays.equals(a, writeAt(), writeEnd(), b, writeAt(), writeEnd())
                && Arrays.equals(a, replyFrom, replyTo, b, replyFrom, replyTo);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(128);
        sb.append("RpcRdmaHeader{xid=0x").append(Integer.toHexString(xid))
                .append(" vers=").append(Integer.toUnsignedString(vers))
                .append(" credits=").append(Integer.toUnsignedString(credits))
                .append(' ').append(proc);
        if (proc == RpcRdmaProc.RDMA_ERROR) {
            sb.append(' ').append(errorCode);
            if (errorCode == RpcRdmaErrorCode.ERR_VERS) {
                sb.append(" low=").append(Integer.toUnsignedString(errorVersLow))
                        .append(" high=").append(Integer.toUnsignedString(errorVersHigh));
            }
        } else {
            sb.append(" read=");
            RpcRdmaSegments.appendTo(sb, wire.bytes(), readSegmentAt(0), readCount, RpcRdmaSegments.READ_STRIDE);
            sb.append(" write=[");
            for (int c = 0; c < writeChunkCount; c++) {
                if (c > 0) {
                    sb.append(", ");
                }
                int first = writeChunkStart[c];
                RpcRdmaSegments.appendTo(sb, wire.bytes(), writeSegmentAt(c, first), writeChunkEnd(c) - first,
                        RpcRdmaSegments.PLAIN_STRIDE);
            }
            sb.append("] reply=");
            if (replyChunkPresent) {
                RpcRdmaSegments.appendTo(sb, wire.bytes(), replySegmentAt(0), replyCount, RpcRdmaSegments.PLAIN_STRIDE);
            } else {
                sb.append("none");
            }
        }
        return sb.append('}').toString();
    }

    // ------------------------------------------------------------------ package-private, for decoder and encoder

    RpcRdmaWire wire() {
        return wire;
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
    private int imageLength() {
        return replyAt() + (replyChunkPresent
                ? RpcRdmaLayout.CHUNK_PREFIX_LENGTH + replyCount * RpcRdmaLayout.SEGMENT_LENGTH : RpcRdmaLayout.WORD);
    }

    /** @return offset of the handle of read segment {@code i} */
    private static int readSegmentAt(int i) {
        return RpcRdmaLayout.FIXED_HEADER_LENGTH + i * RpcRdmaLayout.READ_LIST_ENTRY_LENGTH + 2 * RpcRdmaLayout.WORD;
    }

    /** @return offset of write segment {@code k} (counted over the Write list), which belongs to chunk {@code c} */
    private int writeSegmentAt(int c, int k) {
        return writeAt() + (c + 1) * RpcRdmaLayout.CHUNK_PREFIX_LENGTH + k * RpcRdmaLayout.SEGMENT_LENGTH;
    }

    /** @return offset of Reply segment {@code s} */
    private int replySegmentAt(int s) {
        return replyAt() + RpcRdmaLayout.CHUNK_PREFIX_LENGTH + s * RpcRdmaLayout.SEGMENT_LENGTH;
    }

    private int readPos(int i) {
        return RpcRdmaSegments.position(wire.bytes(), readSegmentAt(i));
    }

    /**
     * Replaces the {@code oldSize} bytes at {@code at} by room for {@code newSize} bytes; when {@code moveTail},
     * the lists after them move along (a builder call out of wire order, or replacing a list in the middle).
     */
    private void resize(int at, int oldSize, int newSize, boolean moveTail) {
        int end = imageLength();
        wire.ensureCapacity(end - oldSize + newSize);
        if (moveTail && oldSize != newSize) {
            byte[] image = wire.bytes();
            System.arraycopy(image, at + oldSize, image, at + newSize, end - at - oldSize);
        }
    }

    /**
     * Takes the {@code n} Read list entries the decoder found at the start of the image's lists, and groups them
     * into Read chunks, checking positions on the way (see {@code RpcRdmaDecoder}): a position not a multiple of 4
     * or below the one before, or a chunk longer than {@code maxPerChunk}, refuses the entry.
     *
     * @return -1, or the index of the refused entry
     */
    int decodeReadEntries(int n, int maxPerChunk) {
        ensureReadChunkCapacity(n);
        byte[] image = wire.bytes();
        int[] starts = readChunkStart;
        int chunks = 0;
        int chunkStart = 0;
        int previous = 0;
        for (int i = 0; i < n; i++) {
            int current = RpcRdmaSegments.position(image, readSegmentAt(i));
            if (i == 0 || current != previous) {
                if ((current & 3) != 0 || i > 0 && Integer.compareUnsigned(current, previous) < 0) {
                    return i;
                }
                chunkStart = i;
                starts[chunks++] = i;
            } else if (i - chunkStart >= maxPerChunk) {
                return i;
            }
            previous = current;
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
    private void appendRead(int position, int handle, int length, long offset) {
        int n = readCount;
        if (n == 0 || position != readPos(n - 1)) {
            ensureReadChunkCapacity(readChunkCount + 1);
            readChunkStart[readChunkCount++] = n;
        }
        resize(readEnd(), 0, RpcRdmaLayout.READ_LIST_ENTRY_LENGTH, writeChunkCount > 0 || replyChunkPresent);
        RpcRdmaSegments.putReadEntry(wire.bytes(), readSegmentAt(n), position, handle, length, offset);
        readCount = n + 1;
    }

    void setFixed(int xid, int vers, int credits, RpcRdmaProc proc) {
        this.xid = xid;
        this.vers = vers;
        this.credits = credits;
        this.proc = proc;
    }

    void setError(RpcRdmaErrorCode code, int low, int high) {
        errorCode = code;
        errorVersLow = low;
        errorVersHigh = high;
    }

    // ---------------------------------------------------------------------------------------------- private

    private void checkTotal() {
        checkTotalAfter(totalSegmentCount() + 1);
    }

    private void checkTotalAfter(int total) {
        if (total > limits.maxSegments()) {
            throw new IllegalStateException("more than " + limits.maxSegments() + " segments in one header");
        }
    }

    private int readChunkEnd(int chunk) {
        Objects.checkIndex(chunk, readChunkCount);
        return chunk + 1 < readChunkCount ? readChunkStart[chunk + 1] : readCount;
    }

    private int writeChunkEnd(int chunk) {
        Objects.checkIndex(chunk, writeChunkCount);
        return chunk + 1 < writeChunkCount ? writeChunkStart[chunk + 1] : writeCount;
    }

    private int writeIndex(int chunk, int segment) {
        int start = writeChunkStart[Objects.checkIndex(chunk, writeChunkCount)];
        return start + Objects.checkIndex(segment, writeChunkEnd(chunk) - start);
    }

    private void ensureReadChunkCapacity(int needed) {
        if (needed > readChunkStart.length) {
            int capacity = (int) Math.min(readLimit, Math.max(needed, 2L * readChunkStart.length));
            readChunkStart = Arrays.copyOf(readChunkStart, capacity);
        }
    }

    private void ensureWriteChunkCapacity(int needed) {
        if (needed > writeChunkStart.length) {
            int capacity = (int) Math.min(limits.maxWriteChunks(), Math.max(needed, 2L * writeChunkStart.length));
            writeChunkStart = Arrays.copyOf(writeChunkStart, capacity);
        }
    }
}
