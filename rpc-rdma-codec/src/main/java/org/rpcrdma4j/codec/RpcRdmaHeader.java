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
 * Not thread-safe: one owner thread at a time. That includes encoding, which completes the wire image inside the
 * header.
 */
public final class RpcRdmaHeader {

    private final RpcRdmaLimits limits;

    private int xid;
    private int vers = RpcRdmaLayout.VERSION;
    private int credits;
    private RpcRdmaProc proc = RpcRdmaProc.RDMA_MSG;

    private RpcRdmaErrorCode errorCode;
    private int errorVersLow;
    private int errorVersHigh;

    /** The chunk lists, in their wire form. */
    private final RpcRdmaChunkLists lists;

    /** A header bounded by {@link RpcRdmaLimits#DEFAULT}. */
    public RpcRdmaHeader() {
        this(RpcRdmaLimits.DEFAULT);
    }

    /** @param limits how many chunks and segments this header may hold and its decoder may accept */
    public RpcRdmaHeader(RpcRdmaLimits limits) {
        this.limits = Objects.requireNonNull(limits, "limits");
        this.lists = new RpcRdmaChunkLists(limits);
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
        lists.clear();
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
        int n = lists.readCount;
        if (n > 0 && Integer.compareUnsigned(position, lists.readPos(n - 1)) < 0) {
            throw new IllegalArgumentException("read position " + Integer.toUnsignedString(position)
                    + " below the previous one " + Integer.toUnsignedString(lists.readPos(n - 1)));
        }
        if (n >= limits.maxReadSegments()) {
            throw new IllegalStateException("more than " + limits.maxReadSegments() + " read segments");
        }
        boolean newChunk = n == 0 || position != lists.readPos(n - 1);
        int inChunk = newChunk ? 0 : n - lists.readChunkStart[lists.readChunkCount - 1];
        if (inChunk >= limits.maxSegmentsPerChunk()) {
            throw new IllegalStateException("more than " + limits.maxSegmentsPerChunk() + " segments in a Read chunk");
        }
        checkTotal();
        lists.appendRead(position, handle, length, offset);
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
        if (lists.writeChunkCount >= limits.maxWriteChunks()) {
            throw new IllegalStateException("more than " + limits.maxWriteChunks() + " Write chunks");
        }
        int at = lists.writeEnd();
        lists.resize(at, 0, RpcRdmaLayout.CHUNK_PREFIX_LENGTH, lists.replyChunkPresent);
        lists.wire.putLong(at, RpcRdmaSegments.pair(RpcRdmaLayout.PRESENT, 0));
        lists.ensureWriteChunkCapacity(lists.writeChunkCount + 1);
        lists.writeChunkStart[lists.writeChunkCount++] = lists.writeCount;
        return this;
    }

    /**
     * Appends a segment to the Write chunk begun last.
     *
     * @return this
     * @throws IllegalStateException when no Write chunk was begun or a limit would be exceeded
     */
    public RpcRdmaHeader addWriteSegment(int handle, int length, long offset) {
        if (lists.writeChunkCount == 0) {
            throw new IllegalStateException("addWriteSegment before beginWriteChunk");
        }
        int last = lists.writeChunkCount - 1;
        if (lists.writeCount - lists.writeChunkStart[last] >= limits.maxSegmentsPerChunk()) {
            throw new IllegalStateException("more than " + limits.maxSegmentsPerChunk() + " segments in a Write chunk");
        }
        checkTotal();
        int at = lists.writeEnd();
        lists.resize(at, 0, RpcRdmaLayout.SEGMENT_LENGTH, lists.replyChunkPresent);
        RpcRdmaSegments.putSegment(lists.wire.bytes(), at, handle, length, offset);
        int countAt = lists.writeSegmentAt(last, lists.writeChunkStart[last]) - RpcRdmaLayout.WORD;
        lists.wire.putInt(countAt, lists.wire.getInt(countAt) + 1);
        lists.writeCount++;
        return this;
    }

    /**
     * Makes the Reply chunk present with no segments yet (dropping any it had); {@link #addReplySegment} fills it.
     *
     * @return this
     */
    public RpcRdmaHeader beginReplyChunk() {
        lists.replyCount = 0;
        lists.replyChunkPresent = true;
        return this;
    }

    /**
     * Appends a segment to the Reply chunk.
     *
     * @return this
     * @throws IllegalStateException when {@link #beginReplyChunk()} was not called or a limit would be exceeded
     */
    public RpcRdmaHeader addReplySegment(int handle, int length, long offset) {
        if (!lists.replyChunkPresent) {
            throw new IllegalStateException("addReplySegment before beginReplyChunk");
        }
        if (lists.replyCount >= limits.maxSegmentsPerChunk()) {
            throw new IllegalStateException("more than " + limits.maxSegmentsPerChunk() + " segments in the Reply chunk");
        }
        checkTotal();
        int at = lists.replySegmentAt(lists.replyCount);
        lists.wire.ensureCapacity(at + RpcRdmaLayout.SEGMENT_LENGTH);
        RpcRdmaSegments.putSegment(lists.wire.bytes(), at, handle, length, offset);
        lists.replyCount++;
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
        if (call.lists.writeChunkCount > limits.maxWriteChunks() || call.lists.writeCount > lists.writeLimit) {
            throw new IllegalStateException("the Write list does not fit this header's limits");
        }
        for (int c = 0; c < call.lists.writeChunkCount; c++) {
            if (call.writeSegmentCount(c) > limits.maxSegmentsPerChunk()) {
                throw new IllegalStateException("Write chunk " + c + " does not fit this header's limits");
            }
        }
        checkTotalAfter(lists.readCount + call.lists.writeCount + lists.replyCount);
        int at = lists.writeAt();
        int length = call.lists.writeEnd() - call.lists.writeAt();
        lists.resize(at, lists.writeEnd() - at, length, lists.replyChunkPresent);
        System.arraycopy(call.lists.wire.bytes(), call.lists.writeAt(), lists.wire.bytes(), at, length);
        lists.writeCount = call.lists.writeCount;
        lists.ensureWriteChunkCapacity(call.lists.writeChunkCount);
        System.arraycopy(call.lists.writeChunkStart, 0, lists.writeChunkStart, 0, call.lists.writeChunkCount);
        lists.writeChunkCount = call.lists.writeChunkCount;
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
        if (call.lists.replyCount > lists.replyLimit) {
            throw new IllegalStateException("the Reply chunk does not fit this header's limits");
        }
        checkTotalAfter(lists.readCount + lists.writeCount + call.lists.replyCount);
        int at = lists.replySegmentAt(0);
        int length = call.lists.replyCount * RpcRdmaLayout.SEGMENT_LENGTH;
        lists.wire.ensureCapacity(at + length);
        System.arraycopy(call.lists.wire.bytes(), call.lists.replySegmentAt(0), lists.wire.bytes(), at, length);
        lists.replyCount = call.lists.replyCount;
        lists.replyChunkPresent = call.lists.replyChunkPresent;
        return this;
    }

    /**
     * Sets one Write segment's length (a responder reporting the bytes it wrote there).
     *
     * @return this
     * @throws IndexOutOfBoundsException for a chunk or segment that does not exist
     */
    public RpcRdmaHeader setWriteSegmentLength(int chunk, int segment, int length) {
        RpcRdmaSegments.setLength(lists.wire.bytes(), lists.writeSegmentAt(chunk, writeIndex(chunk, segment)), length);
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
        int first = lists.writeChunkStart[chunk];
        RpcRdmaSegments.spread(lists.wire.bytes(), lists.writeSegmentAt(chunk, first), lists.writeChunkEnd(chunk) - first,
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
        RpcRdmaSegments.setLength(lists.wire.bytes(), lists.replySegmentAt(Objects.checkIndex(segment, lists.replyCount)), length);
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
        RpcRdmaSegments.spread(lists.wire.bytes(), lists.replySegmentAt(0), lists.replyCount, RpcRdmaSegments.PLAIN_STRIDE, bytes);
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
        if (other.lists.readCount > lists.readLimit || other.totalSegmentCount() > limits.maxSegments()) {
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
        int length = other.lists.readCount * RpcRdmaLayout.READ_LIST_ENTRY_LENGTH;
        lists.resize(RpcRdmaLayout.FIXED_HEADER_LENGTH, 0, length, true);
        System.arraycopy(other.lists.wire.bytes(), RpcRdmaLayout.FIXED_HEADER_LENGTH, lists.wire.bytes(),
                RpcRdmaLayout.FIXED_HEADER_LENGTH, length);
        lists.readCount = other.lists.readCount;
        lists.ensureReadChunkCapacity(other.lists.readChunkCount);
        System.arraycopy(other.lists.readChunkStart, 0, lists.readChunkStart, 0, other.lists.readChunkCount);
        lists.readChunkCount = other.lists.readChunkCount;
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
        return lists.readCount;
    }

    /** @return position of read segment {@code i} (raw bits of the unsigned word) */
    public int readPosition(int i) {
        return lists.readPos(Objects.checkIndex(i, lists.readCount));
    }

    /** @return handle (STag) of read segment {@code i} */
    public int readHandle(int i) {
        return RpcRdmaSegments.handle(lists.wire.bytes(), lists.readSegmentAt(Objects.checkIndex(i, lists.readCount)));
    }

    /** @return length of read segment {@code i}, raw bits */
    public int readLength(int i) {
        return RpcRdmaSegments.length(lists.wire.bytes(), lists.readSegmentAt(Objects.checkIndex(i, lists.readCount)));
    }

    /** @return length of read segment {@code i}, unsigned */
    public long readLengthUnsigned(int i) {
        return Integer.toUnsignedLong(readLength(i));
    }

    /** @return offset of read segment {@code i} */
    public long readOffset(int i) {
        return RpcRdmaSegments.offset(lists.wire.bytes(), lists.readSegmentAt(Objects.checkIndex(i, lists.readCount)));
    }

    /** @return number of Read chunks (runs of read segments sharing a position) */
    public int readChunkCount() {
        return lists.readChunkCount;
    }

    /** @return index of the first read segment of Read chunk {@code chunk} */
    public int readChunkFirstSegment(int chunk) {
        return lists.readChunkStart[Objects.checkIndex(chunk, lists.readChunkCount)];
    }

    /** @return number of segments in Read chunk {@code chunk} */
    public int readChunkSegmentCount(int chunk) {
        return lists.readChunkEnd(chunk) - lists.readChunkStart[chunk];
    }

    /** @return position of Read chunk {@code chunk} */
    public int readChunkPosition(int chunk) {
        return lists.readPos(readChunkFirstSegment(chunk));
    }

    /** @return total unsigned length of Read chunk {@code chunk} */
    public long readChunkLength(int chunk) {
        int first = readChunkFirstSegment(chunk);
        return RpcRdmaSegments.sumLengths(lists.wire.bytes(), lists.readSegmentAt(first), lists.readChunkEnd(chunk) - first,
                RpcRdmaSegments.READ_STRIDE);
    }

    /** @return index of the Read chunk at {@code position}, or -1 when there is none */
    public int findReadChunk(int position) {
        for (int c = 0; c < lists.readChunkCount; c++) {
            if (lists.readPos(lists.readChunkStart[c]) == position) {
                return c;
            }
        }
        return -1;
    }

    /** @return whether the Read list has a chunk at position 0 (the whole Call, sent with RDMA_NOMSG) */
    public boolean hasPositionZeroReadChunk() {
        return lists.readChunkCount > 0 && lists.readPos(0) == 0;
    }

    // -------------------------------------------------------------------------------------------- write list

    /** @return number of Write chunks in the Write list */
    public int writeChunkCount() {
        return lists.writeChunkCount;
    }

    /** @return number of segments in Write chunk {@code chunk} (0 for an empty Write chunk) */
    public int writeSegmentCount(int chunk) {
        return lists.writeChunkEnd(chunk) - lists.writeChunkStart[chunk];
    }

    /** @return number of segments in all Write chunks together */
    public int totalWriteSegmentCount() {
        return lists.writeCount;
    }

    /** @return handle of segment {@code segment} of Write chunk {@code chunk} */
    public int writeHandle(int chunk, int segment) {
        return RpcRdmaSegments.handle(lists.wire.bytes(), lists.writeSegmentAt(chunk, writeIndex(chunk, segment)));
    }

    /** @return length (raw bits) of segment {@code segment} of Write chunk {@code chunk} */
    public int writeLength(int chunk, int segment) {
        return RpcRdmaSegments.length(lists.wire.bytes(), lists.writeSegmentAt(chunk, writeIndex(chunk, segment)));
    }

    /** @return length, unsigned, of segment {@code segment} of Write chunk {@code chunk} */
    public long writeLengthUnsigned(int chunk, int segment) {
        return Integer.toUnsignedLong(writeLength(chunk, segment));
    }

    /** @return offset of segment {@code segment} of Write chunk {@code chunk} */
    public long writeOffset(int chunk, int segment) {
        return RpcRdmaSegments.offset(lists.wire.bytes(), lists.writeSegmentAt(chunk, writeIndex(chunk, segment)));
    }

    /** @return total unsigned length of Write chunk {@code chunk} */
    public long writeChunkLength(int chunk) {
        int first = lists.writeChunkStart[Objects.checkIndex(chunk, lists.writeChunkCount)];
        return RpcRdmaSegments.sumLengths(lists.wire.bytes(), lists.writeSegmentAt(chunk, first), lists.writeChunkEnd(chunk) - first,
                RpcRdmaSegments.PLAIN_STRIDE);
    }

    // ------------------------------------------------------------------------------------------- reply chunk

    /** @return whether the Reply chunk is present (it may still have 0 segments) */
    public boolean hasReplyChunk() {
        return lists.replyChunkPresent;
    }

    /** @return number of segments in the Reply chunk (0 when absent) */
    public int replySegmentCount() {
        return lists.replyCount;
    }

    /** @return handle of Reply segment {@code segment} */
    public int replyHandle(int segment) {
        return RpcRdmaSegments.handle(lists.wire.bytes(), lists.replySegmentAt(Objects.checkIndex(segment, lists.replyCount)));
    }

    /** @return length (raw bits) of Reply segment {@code segment} */
    public int replyLength(int segment) {
        return RpcRdmaSegments.length(lists.wire.bytes(), lists.replySegmentAt(Objects.checkIndex(segment, lists.replyCount)));
    }

    /** @return length, unsigned, of Reply segment {@code segment} */
    public long replyLengthUnsigned(int segment) {
        return Integer.toUnsignedLong(replyLength(segment));
    }

    /** @return offset of Reply segment {@code segment} */
    public long replyOffset(int segment) {
        return RpcRdmaSegments.offset(lists.wire.bytes(), lists.replySegmentAt(Objects.checkIndex(segment, lists.replyCount)));
    }

    /** @return total unsigned length of the Reply chunk (0 when absent) */
    public long replyChunkLength() {
        return RpcRdmaSegments.sumLengths(lists.wire.bytes(), lists.replySegmentAt(0), lists.replyCount, RpcRdmaSegments.PLAIN_STRIDE);
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
        return lists.readCount + lists.writeCount + lists.replyCount;
    }

    /**
     * The one handle named by this header, if there is exactly one distinct handle among all its segments: the
     * condition under which a responder may answer with Send With Invalidate (as the Linux server does).
     *
     * @return that handle as an unsigned value, or -1 when the header names no handle or more than one
     */
    public long soleHandle() {
        byte[] image = lists.wire.bytes();
        long sole = RpcRdmaSegments.foldSoleHandle(image, lists.readSegmentAt(0), lists.readCount, RpcRdmaSegments.READ_STRIDE,
                RpcRdmaSegments.NO_HANDLE);
        for (int c = 0; c < lists.writeChunkCount; c++) {
            int first = lists.writeChunkStart[c];
            sole = RpcRdmaSegments.foldSoleHandle(image, lists.writeSegmentAt(c, first), lists.writeChunkEnd(c) - first,
                    RpcRdmaSegments.PLAIN_STRIDE, sole);
        }
        sole = RpcRdmaSegments.foldSoleHandle(image, lists.replySegmentAt(0), lists.replyCount, RpcRdmaSegments.PLAIN_STRIDE, sole);
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
        if (lists.readChunkCount != other.lists.readChunkCount || lists.writeChunkCount != other.lists.writeChunkCount
                || lists.replyChunkPresent != other.lists.replyChunkPresent || lists.readCount != other.lists.readCount
                || lists.writeCount != other.lists.writeCount || lists.replyCount != other.lists.replyCount) {
            return false;
        }
        for (int c = 0; c < lists.writeChunkCount; c++) {
            if (lists.writeChunkStart[c] != other.lists.writeChunkStart[c]) {
                return false;
            }
        }
        // with equal counts the lists lie at the same offsets; the words between segments (discriminators 1,
        // segment counts) then agree too, so equal bytes mean equal lists
        byte[] a = lists.wire.bytes();
        byte[] b = other.lists.wire.bytes();
        int from = RpcRdmaLayout.FIXED_HEADER_LENGTH;
        int replyFrom = lists.replySegmentAt(0);
        int replyTo = replyFrom + lists.replyCount * RpcRdmaLayout.SEGMENT_LENGTH;
        return Arrays.equals(a, from, lists.readEnd(), b, from, lists.readEnd())
                && Arrays.equals(a, lists.writeAt(), lists.writeEnd(), b, lists.writeAt(), lists.writeEnd())
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
            RpcRdmaSegments.appendTo(sb, lists.wire.bytes(), lists.readSegmentAt(0), lists.readCount, RpcRdmaSegments.READ_STRIDE);
            sb.append(" write=[");
            for (int c = 0; c < lists.writeChunkCount; c++) {
                if (c > 0) {
                    sb.append(", ");
                }
                int first = lists.writeChunkStart[c];
                RpcRdmaSegments.appendTo(sb, lists.wire.bytes(), lists.writeSegmentAt(c, first), lists.writeChunkEnd(c) - first,
                        RpcRdmaSegments.PLAIN_STRIDE);
            }
            sb.append("] reply=");
            if (lists.replyChunkPresent) {
                RpcRdmaSegments.appendTo(sb, lists.wire.bytes(), lists.replySegmentAt(0), lists.replyCount, RpcRdmaSegments.PLAIN_STRIDE);
            } else {
                sb.append("none");
            }
        }
        return sb.append('}').toString();
    }

    // ------------------------------------------------------------------ package-private, for decoder and encoder

    RpcRdmaWire wire() {
        return lists.wire;
    }

    RpcRdmaChunkLists lists() {
        return lists;
    }

    void setFixed(int xid, int vers, int credits, RpcRdmaProc proc) {
        this.xid = xid;
        this.vers = vers;
        this.credits = credits;
        this.proc = proc;
    }

    /** The fixed words of a decoded RDMA_MSG or RDMA_NOMSG header, whose lists are recorded already. */
    void setDecoded(int xid, int credits, RpcRdmaProc proc) {
        this.xid = xid;
        this.vers = RpcRdmaLayout.VERSION;
        this.credits = credits;
        this.proc = proc;
        errorCode = null;
        errorVersLow = 0;
        errorVersHigh = 0;
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

    private int writeIndex(int chunk, int segment) {
        int start = lists.writeChunkStart[Objects.checkIndex(chunk, lists.writeChunkCount)];
        return start + Objects.checkIndex(segment, lists.writeChunkEnd(chunk) - start);
    }
}
