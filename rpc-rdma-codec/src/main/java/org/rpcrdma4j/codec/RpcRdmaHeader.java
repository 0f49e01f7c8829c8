package org.rpcrdma4j.codec;

import java.util.Arrays;
import java.util.Objects;

/**
 * A reusable, mutable RPC-over-RDMA version 1 transport header (RFC 8166): the fixed words, the Read list, the
 * Write list, the Reply chunk, and for RDMA_ERROR the error code and its version range.
 * <p>
 * Keep one per receive buffer (filled by {@link RpcRdmaDecoder}) or one per request context (filled with the
 * builder methods and written by {@link RpcRdmaEncoder}). Segments live in parallel primitive arrays that grow on
 * demand, never past the header's {@link RpcRdmaLimits}; once a header has held its largest message, neither
 * decoding into it nor building it allocates.
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

    private final RpcRdmaSegments read;
    /** Index of the first read segment of each Read chunk. */
    private int[] readChunkStart;
    private int readChunkCount;

    private final RpcRdmaSegments write;
    /** Index of the first write segment of each Write chunk. */
    private int[] writeChunkStart;
    private int writeChunkCount;

    private final RpcRdmaSegments reply;
    private boolean replyChunkPresent;

    private RpcRdmaErrorCode errorCode;
    private int errorVersLow;
    private int errorVersHigh;

    /** Scratch space the decoder reads from and the encoder writes into. */
    private final RpcRdmaWire wire = new RpcRdmaWire();

    /** A header bounded by {@link RpcRdmaLimits#DEFAULT}. */
    public RpcRdmaHeader() {
        this(RpcRdmaLimits.DEFAULT);
    }

    /** @param limits how many chunks and segments this header may hold and its decoder may accept */
    public RpcRdmaHeader(RpcRdmaLimits limits) {
        this.limits = Objects.requireNonNull(limits, "limits");
        int readLimit = Math.min(limits.maxReadSegments(), limits.maxSegments());
        int writeLimit = (int) Math.min((long) limits.maxWriteChunks() * limits.maxSegmentsPerChunk(),
                limits.maxSegments());
        int replyLimit = Math.min(limits.maxSegmentsPerChunk(), limits.maxSegments());
        this.read = new RpcRdmaSegments(readLimit, true);
        this.write = new RpcRdmaSegments(writeLimit, false);
        this.reply = new RpcRdmaSegments(replyLimit, false);
        this.readChunkStart = new int[Math.min(4, readLimit)];
        this.writeChunkStart = new int[Math.min(4, limits.maxWriteChunks())];
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
        read.clear();
        readChunkCount = 0;
        write.clear();
        writeChunkCount = 0;
        reply.clear();
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
        int n = read.count();
        if (n > 0 && Integer.compareUnsigned(position, read.position(n - 1)) < 0) {
            throw new IllegalArgumentException("read position " + Integer.toUnsignedString(position)
                    + " below the previous one " + Integer.toUnsignedString(read.position(n - 1)));
        }
        if (n >= limits.maxReadSegments()) {
            throw new IllegalStateException("more than " + limits.maxReadSegments() + " read segments");
        }
        boolean newChunk = n == 0 || position != read.position(n - 1);
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
        appendWriteChunk();
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
        if (write.count() - writeChunkStart[writeChunkCount - 1] >= limits.maxSegmentsPerChunk()) {
            throw new IllegalStateException("more than " + limits.maxSegmentsPerChunk() + " segments in a Write chunk");
        }
        checkTotal();
        write.add(0, handle, length, offset);
        return this;
    }

    /**
     * Makes the Reply chunk present with no segments yet (dropping any it had); {@link #addReplySegment} fills it.
     *
     * @return this
     */
    public RpcRdmaHeader beginReplyChunk() {
        reply.clear();
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
        if (reply.count() >= limits.maxSegmentsPerChunk()) {
            throw new IllegalStateException("more than " + limits.maxSegmentsPerChunk() + " segments in the Reply chunk");
        }
        checkTotal();
        reply.add(0, handle, length, offset);
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
        if (call.writeChunkCount > limits.maxWriteChunks() || call.write.count() > write.limit()) {
            throw new IllegalStateException("the Write list does not fit this header's limits");
        }
        for (int c = 0; c < call.writeChunkCount; c++) {
            if (call.writeSegmentCount(c) > limits.maxSegmentsPerChunk()) {
                throw new IllegalStateException("Write chunk " + c + " does not fit this header's limits");
            }
        }
        checkTotalAfter(read.count() + call.write.count() + reply.count());
        write.copyFrom(call.write);
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
        if (call.reply.count() > reply.limit()) {
            throw new IllegalStateException("the Reply chunk does not fit this header's limits");
        }
        checkTotalAfter(read.count() + write.count() + call.reply.count());
        reply.copyFrom(call.reply);
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
        write.setLength(writeIndex(chunk, segment), length);
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
        write.spread(writeChunkStart[chunk], writeChunkEnd(chunk), bytes);
        return this;
    }

    /**
     * Sets one Reply segment's length.
     *
     * @return this
     * @throws IndexOutOfBoundsException for a segment that does not exist
     */
    public RpcRdmaHeader setReplySegmentLength(int segment, int length) {
        reply.setLength(Objects.checkIndex(segment, reply.count()), length);
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
        reply.spread(0, reply.count(), bytes);
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
        if (other.read.count() > read.limit() || other.totalSegmentCount() > limits.maxSegments()) {
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
        read.copyFrom(other.read);
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
        return read.count();
    }

    /** @return position of read segment {@code i} (raw bits of the unsigned word) */
    public int readPosition(int i) {
        return read.position(Objects.checkIndex(i, read.count()));
    }

    /** @return handle (STag) of read segment {@code i} */
    public int readHandle(int i) {
        return read.handle(Objects.checkIndex(i, read.count()));
    }

    /** @return length of read segment {@code i}, raw bits */
    public int readLength(int i) {
        return read.length(Objects.checkIndex(i, read.count()));
    }

    /** @return length of read segment {@code i}, unsigned */
    public long readLengthUnsigned(int i) {
        return Integer.toUnsignedLong(readLength(i));
    }

    /** @return offset of read segment {@code i} */
    public long readOffset(int i) {
        return read.offset(Objects.checkIndex(i, read.count()));
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
        return read.position(readChunkFirstSegment(chunk));
    }

    /** @return total unsigned length of Read chunk {@code chunk} */
    public long readChunkLength(int chunk) {
        return read.sumLengths(readChunkFirstSegment(chunk), readChunkEnd(chunk));
    }

    /** @return index of the Read chunk at {@code position}, or -1 when there is none */
    public int findReadChunk(int position) {
        for (int c = 0; c < readChunkCount; c++) {
            if (read.position(readChunkStart[c]) == position) {
                return c;
            }
        }
        return -1;
    }

    /** @return whether the Read list has a chunk at position 0 (the whole Call, sent with RDMA_NOMSG) */
    public boolean hasPositionZeroReadChunk() {
        return readChunkCount > 0 && read.position(0) == 0;
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
        return write.count();
    }

    /** @return handle of segment {@code segment} of Write chunk {@code chunk} */
    public int writeHandle(int chunk, int segment) {
        return write.handle(writeIndex(chunk, segment));
    }

    /** @return length (raw bits) of segment {@code segment} of Write chunk {@code chunk} */
    public int writeLength(int chunk, int segment) {
        return write.length(writeIndex(chunk, segment));
    }

    /** @return length, unsigned, of segment {@code segment} of Write chunk {@code chunk} */
    public long writeLengthUnsigned(int chunk, int segment) {
        return Integer.toUnsignedLong(writeLength(chunk, segment));
    }

    /** @return offset of segment {@code segment} of Write chunk {@code chunk} */
    public long writeOffset(int chunk, int segment) {
        return write.offset(writeIndex(chunk, segment));
    }

    /** @return total unsigned length of Write chunk {@code chunk} */
    public long writeChunkLength(int chunk) {
        return write.sumLengths(writeChunkStart[Objects.checkIndex(chunk, writeChunkCount)], writeChunkEnd(chunk));
    }

    // ------------------------------------------------------------------------------------------- reply chunk

    /** @return whether the Reply chunk is present (it may still have 0 segments) */
    public boolean hasReplyChunk() {
        return replyChunkPresent;
    }

    /** @return number of segments in the Reply chunk (0 when absent) */
    public int replySegmentCount() {
        return reply.count();
    }

    /** @return handle of Reply segment {@code segment} */
    public int replyHandle(int segment) {
        return reply.handle(Objects.checkIndex(segment, reply.count()));
    }

    /** @return length (raw bits) of Reply segment {@code segment} */
    public int replyLength(int segment) {
        return reply.length(Objects.checkIndex(segment, reply.count()));
    }

    /** @return length, unsigned, of Reply segment {@code segment} */
    public long replyLengthUnsigned(int segment) {
        return Integer.toUnsignedLong(replyLength(segment));
    }

    /** @return offset of Reply segment {@code segment} */
    public long replyOffset(int segment) {
        return reply.offset(Objects.checkIndex(segment, reply.count()));
    }

    /** @return total unsigned length of the Reply chunk (0 when absent) */
    public long replyChunkLength() {
        return reply.sumLengths(0, reply.count());
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
        return read.count() + write.count() + reply.count();
    }

    /**
     * The one handle named by this header, if there is exactly one distinct handle among all its segments: the
     * condition under which a responder may answer with Send With Invalidate (as the Linux server does).
     *
     * @return that handle as an unsigned value, or -1 when the header names no handle or more than one
     */
    public long soleHandle() {
        long sole = reply.foldSoleHandle(write.foldSoleHandle(read.foldSoleHandle(RpcRdmaSegments.NO_HANDLE)));
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
                || replyChunkPresent != other.replyChunkPresent) {
            return false;
        }
        for (int c = 0; c < writeChunkCount; c++) {
            if (writeChunkStart[c] != other.writeChunkStart[c]) {
                return false;
            }
        }
        return read.contentEquals(other.read) && write.contentEquals(other.write) && reply.contentEquals(other.reply);
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
            read.appendTo(sb, 0, read.count());
            sb.append(" write=[");
            for (int c = 0; c < writeChunkCount; c++) {
                if (c > 0) {
                    sb.append(", ");
                }
                write.appendTo(sb, writeChunkStart[c], writeChunkEnd(c));
            }
            sb.append("] reply=");
            if (replyChunkPresent) {
                reply.appendTo(sb, 0, reply.count());
            } else {
                sb.append("none");
            }
        }
        return sb.append('}').toString();
    }

    // --------------------------------------------------------------------- package-private decoder fast path

    RpcRdmaWire wire() {
        return wire;
    }

    RpcRdmaSegments readSegments() {
        return read;
    }

    RpcRdmaSegments writeSegments() {
        return write;
    }

    RpcRdmaSegments replySegments() {
        return reply;
    }

    /**
     * Decodes {@code n} Read list entries at offset {@code at} of {@code wire} and groups them into Read chunks; see
     * {@link RpcRdmaSegments#decodeReadEntries}.
     *
     * @return -1, or the index of the refused entry
     */
    int decodeReadEntries(RpcRdmaWire wire, int at, int n, int maxPerChunk) {
        ensureReadChunkCapacity(n);
        int chunks = read.decodeReadEntries(wire.bytes(), at, n, readChunkStart, maxPerChunk);
        if (chunks < 0) {
            return -1 - chunks;
        }
        readChunkCount = chunks;
        return -1;
    }

    /** Appends a read segment without checks; the caller has checked alignment, order and limits. */
    void appendRead(int position, int handle, int length, long offset) {
        int n = read.count();
        if (n == 0 || position != read.position(n - 1)) {
            ensureReadChunkCapacity(readChunkCount + 1);
            readChunkStart[readChunkCount++] = n;
        }
        read.add(position, handle, length, offset);
    }

    /** Starts a Write chunk without checks; the caller has checked the limit. */
    void appendWriteChunk() {
        ensureWriteChunkCapacity(writeChunkCount + 1);
        writeChunkStart[writeChunkCount++] = write.count();
    }

    /** Marks the Reply chunk present without clearing it; the decoder's counterpart of {@link #beginReplyChunk}. */
    void markReplyChunkPresent() {
        replyChunkPresent = true;
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
        return chunk + 1 < readChunkCount ? readChunkStart[chunk + 1] : read.count();
    }

    private int writeChunkEnd(int chunk) {
        Objects.checkIndex(chunk, writeChunkCount);
        return chunk + 1 < writeChunkCount ? writeChunkStart[chunk + 1] : write.count();
    }

    private int writeIndex(int chunk, int segment) {
        int start = writeChunkStart[Objects.checkIndex(chunk, writeChunkCount)];
        return start + Objects.checkIndex(segment, writeChunkEnd(chunk) - start);
    }

    private void ensureReadChunkCapacity(int needed) {
        if (needed > readChunkStart.length) {
            int capacity = (int) Math.min(read.limit(), Math.max(needed, 2L * readChunkStart.length));
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
