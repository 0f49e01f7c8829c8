package org.rpcrdma4j.codec;

import static org.rpcrdma4j.codec.RpcRdmaDecodeException.Reason;
import static org.rpcrdma4j.codec.RpcRdmaDecodeException.Response;
import static org.rpcrdma4j.codec.RpcRdmaLayout.ABSENT;
import static org.rpcrdma4j.codec.RpcRdmaLayout.CREDITS_OFFSET;
import static org.rpcrdma4j.codec.RpcRdmaLayout.ERROR_CODE_OFFSET;
import static org.rpcrdma4j.codec.RpcRdmaLayout.ERROR_VERS_HIGH_OFFSET;
import static org.rpcrdma4j.codec.RpcRdmaLayout.ERROR_VERS_LOW_OFFSET;
import static org.rpcrdma4j.codec.RpcRdmaLayout.ERR_CHUNK_LENGTH;
import static org.rpcrdma4j.codec.RpcRdmaLayout.ERR_VERS_LENGTH;
import static org.rpcrdma4j.codec.RpcRdmaLayout.FIXED_HEADER_LENGTH;
import static org.rpcrdma4j.codec.RpcRdmaLayout.MIN_HEADER_LENGTH;
import static org.rpcrdma4j.codec.RpcRdmaLayout.PRESENT;
import static org.rpcrdma4j.codec.RpcRdmaLayout.PROC_OFFSET;
import static org.rpcrdma4j.codec.RpcRdmaLayout.READ_LIST_ENTRY_LENGTH;
import static org.rpcrdma4j.codec.RpcRdmaLayout.SEGMENT_LENGTH;
import static org.rpcrdma4j.codec.RpcRdmaLayout.VERSION;
import static org.rpcrdma4j.codec.RpcRdmaLayout.VERS_OFFSET;
import static org.rpcrdma4j.codec.RpcRdmaLayout.WORD;
import static org.rpcrdma4j.codec.RpcRdmaLayout.XID_OFFSET;

import io.netty.buffer.ByteBuf;

/**
 * Reads an RPC-over-RDMA version 1 transport header from a {@link ByteBuf} into a reusable {@link RpcRdmaHeader},
 * validating it as it goes. Stateless; the limits are the header's ({@link RpcRdmaHeader#limits()}).
 * <p>
 * Allocation: none, once the header's wire image has grown to the largest message seen. A count read from the wire
 * is compared with the bytes that remain and with the limits <em>before</em> anything grows. The bytes are copied
 * into the header's wire image in a few bulk copies, checked there and left there (see {@code RpcRdmaWire}); the
 * buffer is only borrowed for the call.
 * <p>
 * Checks, each reported as an {@link RpcRdmaDecodeException} (the only exception decoding of wire input throws):
 * <ul>
 *   <li>truncation anywhere, including list entries and segment counts that need more bytes than remain;</li>
 *   <li>{@code rdma_vers} other than 1 (answer ERR_VERS 1..1); an RDMA_ERROR / ERR_VERS is still accepted from any
 *       version, because xid, vers, proc and the values RDMA_ERROR and ERR_VERS are fixed for all versions;</li>
 *   <li>unknown {@code rdma_proc}; RDMA_MSGP and RDMA_DONE recognised and refused;</li>
 *   <li>discriminators other than 0 or 1;</li>
 *   <li>read positions not a multiple of 4 or smaller than the previous one (lengths are not checked, so Read
 *       chunks with or without XDR pad bytes are both accepted);</li>
 *   <li>the limits of {@link RpcRdmaLimits}: read segments, Write chunks, segments per chunk, segments in all;</li>
 *   <li>RDMA_ERROR bodies: ERR_VERS (low, then high), ERR_CHUNK; any other code is refused.</li>
 * </ul>
 * The answer each failure carries ({@link RpcRdmaDecodeException#response()}): fewer than 4 bytes, RDMA_DONE, and
 * anything wrong with an RDMA_ERROR (of any version) are dropped, since there is no xid to answer or answering an
 * error with an error can loop; another version is answered with ERR_VERS 1..1; everything else with ERR_CHUNK,
 * as the Linux server does for short, malformed and unknown-procedure messages.
 * <p>
 * The common header (version 1, RDMA_MSG or RDMA_NOMSG, valid, within the first bulk copy of 512 bytes) is checked
 * and recorded in one short pass that reads the words it needs in pairs and never fails: anything it does not take
 * (another version or procedure, a broken rule, a longer header) is decoded again from the start by the checked
 * pass, which applies the checks above in order and reports the first one broken. Both accept exactly the same
 * headers with the same result.
 * <p>
 * Not checked here (they depend on direction and role, which the transport knows): whether a Call or a Reply may
 * carry a given list, whether the word after an RDMA_MSG header repeats the xid, and trailing bytes after an
 * RDMA_NOMSG or RDMA_ERROR header.
 */
public final class RpcRdmaDecoder {

    /** Stands for the Reply chunk where a Write chunk index is expected. */
    private static final int REPLY_CHUNK = -1;

    private RpcRdmaDecoder() {
    }

    /**
     * Decodes the header that starts at {@code in}'s reader index. On success the reader index moves to the end of
     * the header: the first byte of the RPC message for RDMA_MSG. On failure the indices do not move.
     *
     * @param in     borrowed; read between its reader and writer index
     * @param header overwritten with the decoded header; after a failure its content is unspecified
     * @return the header length in bytes
     * @throws RpcRdmaDecodeException when the bytes are not an acceptable header
     */
    public static int decode(ByteBuf in, RpcRdmaHeader header) throws RpcRdmaDecodeException {
        int start = in.readerIndex();
        int length = decodeAt(in, start, in.writerIndex() - start, header);
        in.readerIndex(start + length);
        return length;
    }

    /**
     * Decodes the header found in {@code length} bytes at absolute index {@code index}, without touching the
     * buffer's indices (flyweight style, for a receive buffer whose indices the caller manages).
     *
     * @param buffer borrowed
     * @param index  absolute index of the header's first byte
     * @param length bytes available from {@code index} (the received byte count)
     * @param header overwritten with the decoded header; after a failure its content is unspecified
     * @return the header length in bytes
     * @throws RpcRdmaDecodeException    when the bytes are not an acceptable header
     * @throws IndexOutOfBoundsException when {@code index} and {@code length} do not lie inside the buffer's capacity
     *                                   (a caller error, not a wire error); likewise a released buffer raises
     *                                   Netty's {@code IllegalReferenceCountException}
     */
    public static int decodeAt(ByteBuf buffer, int index, int length, RpcRdmaHeader header)
            throws RpcRdmaDecodeException {
        if ((index | length) < 0 || index > buffer.capacity() - length) {
            throw outOfBounds(buffer, index, length);
        }
        int decoded = decodeCommon(buffer, index, length, header);
        return decoded != 0 ? decoded : decodeChecked(buffer, index, length, header);
    }

    /**
     * The common case, kept small: a version 1 RDMA_MSG or RDMA_NOMSG header whose lists are valid, within the
     * limits and within the first bulk copy. One copy, then the lists are checked and recorded in one pass
     * ({@code RpcRdmaChunkLists.decodeCommon}). Anything else (another version or procedure, a broken rule, a header
     * longer than the first copy, chunk start arrays that must grow) returns 0 and is left to
     * {@link #decodeChecked}, which decodes the header again from its start with every check in order.
     *
     * @return the header length, or 0 when the checked path has to decide
     */
    static int decodeCommon(ByteBuf buffer, int index, int length, RpcRdmaHeader header) {
        RpcRdmaWire w = header.wire();
        int available = w.copyFirst(buffer, index, length);
        if (available < MIN_HEADER_LENGTH) {
            return 0;
        }
        byte[] image = w.bytes();
        int vers = RpcRdmaWire.getInt(image, VERS_OFFSET);
        int proc = RpcRdmaWire.getInt(image, PROC_OFFSET);
        // RDMA_MSG is 0 and RDMA_NOMSG 1
        if (vers != VERSION || (proc & ~1) != 0) {
            return 0;
        }
        int end = header.lists().decodeCommon(available);
        if (end != 0) {
            header.setDecoded(RpcRdmaWire.getInt(image, XID_OFFSET), RpcRdmaWire.getInt(image, CREDITS_OFFSET),
                    proc == 0 ? RpcRdmaProc.RDMA_MSG : RpcRdmaProc.RDMA_NOMSG);
        }
        return end;
    }

    /**
     * Decodes with every check, in the order the class comment gives, and reports the first rule broken. Also the
     * whole decode for what {@link #decodeCommon} leaves: RDMA_ERROR, other versions and procedures, headers longer
     * than the first copy.
     */
    static int decodeChecked(ByteBuf buffer, int index, int length, RpcRdmaHeader header)
            throws RpcRdmaDecodeException {
        header.clear();
        RpcRdmaWire wire = header.wire();
        wire.wrap(buffer, index, length);
        try {
            return decode(wire, header);
        } finally {
            wire.release();
        }
    }

    private static IndexOutOfBoundsException outOfBounds(ByteBuf buffer, int index, int length) {
        return new IndexOutOfBoundsException("index " + index + " length " + length + " capacity "
                + buffer.capacity());
    }

    /** Offsets below are relative to the header's first byte; {@code w.need(end)} precedes every read. */
    private static int decode(RpcRdmaWire w, RpcRdmaHeader header) throws RpcRdmaDecodeException {
        int length = w.length();
        if (length < WORD) {
            throw new RpcRdmaDecodeException(Reason.TRUNCATED, Response.DROP, false, 0, XID_OFFSET,
                    "only " + length + " bytes, the xid needs 4");
        }
        w.need(WORD);
        int xid = w.getInt(XID_OFFSET);
        if (length < VERS_OFFSET + WORD) {
            throw truncated(Response.ERR_CHUNK, xid, VERS_OFFSET, length, "rdma_vers");
        }
        w.need(VERS_OFFSET + WORD);
        int vers = w.getInt(VERS_OFFSET);
        if (vers != VERSION) {
            return decodeOtherVersion(w, header, xid, vers);
        }
        if (length < FIXED_HEADER_LENGTH) {
            int missing = length < PROC_OFFSET ? CREDITS_OFFSET : PROC_OFFSET;
            throw truncated(Response.ERR_CHUNK, xid, missing, length, missing == PROC_OFFSET ? "rdma_proc" : "rdma_credit");
        }
        w.need(FIXED_HEADER_LENGTH);
        int credits = w.getInt(CREDITS_OFFSET);
        int procValue = w.getInt(PROC_OFFSET);
        RpcRdmaProc proc = RpcRdmaProc.forValue(procValue);
        if (proc == null) {
            throw new RpcRdmaDecodeException(Reason.UNKNOWN_PROC, Response.ERR_CHUNK, true, xid, PROC_OFFSET,
                    "rdma_proc " + Integer.toUnsignedString(procValue) + " is not defined by RFC 8166");
        }
        header.setFixed(xid, vers, credits, proc);
        switch (proc) {
            case RDMA_MSG:
            case RDMA_NOMSG:
                return decodeChunkLists(w, header, xid);
            case RDMA_ERROR:
                return decodeError(w, header, xid);
            case RDMA_MSGP:
                throw new RpcRdmaDecodeException(Reason.UNSUPPORTED_PROC, Response.ERR_CHUNK, true, xid, PROC_OFFSET,
                        "RDMA_MSGP is not to be used (RFC 8166)");
            default:
                throw new RpcRdmaDecodeException(Reason.UNSUPPORTED_PROC, Response.DROP, true, xid, PROC_OFFSET,
                        "RDMA_DONE is not to be used (RFC 8166)");
        }
    }

    /**
     * A version other than 1: refuse with ERR_VERS, except that an RDMA_ERROR / ERR_VERS from a peer of any
     * version is decoded, and that any other RDMA_ERROR is dropped rather than answered.
     */
    private static int decodeOtherVersion(RpcRdmaWire w, RpcRdmaHeader header, int xid, int vers)
            throws RpcRdmaDecodeException {
        int length = w.length();
        String what = "rdma_vers " + Integer.toUnsignedString(vers) + ", only " + VERSION + " is supported";
        if (length >= FIXED_HEADER_LENGTH) {
            w.need(FIXED_HEADER_LENGTH);
            if (w.getInt(PROC_OFFSET) == RpcRdmaProc.RDMA_ERROR.value()) {
                if (length >= ERR_VERS_LENGTH) {
                    w.need(ERR_VERS_LENGTH);
                    if (w.getInt(ERROR_CODE_OFFSET) == RpcRdmaErrorCode.ERR_VERS.value()) {
                        header.setFixed(xid, vers, w.getInt(CREDITS_OFFSET), RpcRdmaProc.RDMA_ERROR);
                        header.setError(RpcRdmaErrorCode.ERR_VERS, w.getInt(ERROR_VERS_LOW_OFFSET),
                                w.getInt(ERROR_VERS_HIGH_OFFSET));
                        return ERR_VERS_LENGTH;
                    }
                }
                throw new RpcRdmaDecodeException(Reason.BAD_VERSION, Response.DROP, true, xid, VERS_OFFSET,
                        what + " (an RDMA_ERROR, not answered)");
            }
        }
        throw new RpcRdmaDecodeException(Reason.BAD_VERSION, Response.ERR_VERS, true, xid, VERS_OFFSET, what);
    }

    private static int decodeError(RpcRdmaWire w, RpcRdmaHeader header, int xid) throws RpcRdmaDecodeException {
        int length = w.length();
        if (length < ERR_CHUNK_LENGTH) {
            throw truncated(Response.DROP, xid, ERROR_CODE_OFFSET, length, "rdma_err");
        }
        w.need(ERR_CHUNK_LENGTH);
        int code = w.getInt(ERROR_CODE_OFFSET);
        switch (RpcRdmaErrorCode.forValue(code)) {
            case ERR_CHUNK:
                header.setError(RpcRdmaErrorCode.ERR_CHUNK, 0, 0);
                return ERR_CHUNK_LENGTH;
            case ERR_VERS:
                if (length < ERR_VERS_LENGTH) {
                    int missing = length < ERROR_VERS_HIGH_OFFSET ? ERROR_VERS_LOW_OFFSET : ERROR_VERS_HIGH_OFFSET;
                    throw truncated(Response.DROP, xid, missing, length,
                            missing == ERROR_VERS_LOW_OFFSET ? "rdma_vers_low" : "rdma_vers_high");
                }
                w.need(ERR_VERS_LENGTH);
                header.setError(RpcRdmaErrorCode.ERR_VERS, w.getInt(ERROR_VERS_LOW_OFFSET),
                        w.getInt(ERROR_VERS_HIGH_OFFSET));
                return ERR_VERS_LENGTH;
            default:
                throw new RpcRdmaDecodeException(Reason.UNKNOWN_ERROR_CODE, Response.DROP, true, xid,
                        ERROR_CODE_OFFSET, "rdma_err " + Integer.toUnsignedString(code) + " is not ERR_VERS or ERR_CHUNK");
        }
    }

    private static int decodeChunkLists(RpcRdmaWire w, RpcRdmaHeader header, int xid) throws RpcRdmaDecodeException {
        RpcRdmaLimits limits = header.limits();
        int p = decodeReadList(w, FIXED_HEADER_LENGTH, header, limits, xid);

        // Write list: {1, count, count x segment}* 0
        while (true) {
            int discriminator = discriminator(w, p, xid, "Write list");
            if (discriminator == ABSENT) {
                p += WORD;
                break;
            }
            if (header.writeChunkCount() >= limits.maxWriteChunks()) {
                throw new RpcRdmaDecodeException(Reason.TOO_MANY_WRITE_CHUNKS, Response.ERR_CHUNK, true, xid, p,
                        "more than " + limits.maxWriteChunks() + " Write chunks");
            }
            int count = segmentCount(w, p + WORD, header, limits, xid, header.writeChunkCount());
            p = segmentsEnd(w, p + 2 * WORD, count);
            header.lists().decodedWriteChunk(count);
        }

        // Reply chunk: 0 | 1, count, count x segment
        int discriminator = discriminator(w, p, xid, "Reply chunk");
        p += WORD;
        if (discriminator == PRESENT) {
            int count = segmentCount(w, p, header, limits, xid, REPLY_CHUNK);
            p = segmentsEnd(w, p + WORD, count);
            header.lists().decodedReplyChunk(count);
        }
        return p;
    }

    /**
     * Read list: {1, position, segment}* 0. Returns the offset after the terminating 0. Two passes: the first walks
     * the discriminators to find how many entries there are (checking truncation and the limits), the second checks
     * the positions and groups the entries into Read chunks. The segments themselves stay in the image.
     */
    private static int decodeReadList(RpcRdmaWire w, int start, RpcRdmaHeader header, RpcRdmaLimits limits, int xid)
            throws RpcRdmaDecodeException {
        int length = w.length();
        int maxRead = Math.min(limits.maxReadSegments(), limits.maxSegments());
        int n = 0;
        int p = start;
        while (discriminator(w, p, xid, "Read list") == PRESENT) {
            if (length - p < READ_LIST_ENTRY_LENGTH) {
                throw truncated(Response.ERR_CHUNK, xid, p + WORD, length, "read segment " + n + " (24-byte entry)");
            }
            if (n >= maxRead) {
                throw n >= limits.maxReadSegments()
                        ? new RpcRdmaDecodeException(Reason.TOO_MANY_READ_SEGMENTS, Response.ERR_CHUNK, true, xid, p,
                                "more than " + limits.maxReadSegments() + " read segments")
                        : new RpcRdmaDecodeException(Reason.TOO_MANY_SEGMENTS, Response.ERR_CHUNK, true, xid, p,
                                "more than " + limits.maxSegments() + " segments in the header");
            }
            n++;
            p += READ_LIST_ENTRY_LENGTH;
        }
        // the discriminator check made every entry up to the terminator readable
        if (n > 0) {
            int bad = header.lists().decodeReadEntries(n, limits.maxSegmentsPerChunk());
            if (bad >= 0) {
                throw refuseReadEntry(w, limits, xid, start + bad * READ_LIST_ENTRY_LENGTH, bad);
            }
        }
        return p + WORD;
    }

    /** Read entry {@code i} at offset {@code p} was refused: a misplaced position or one segment too many. */
    private static RpcRdmaDecodeException refuseReadEntry(RpcRdmaWire w, RpcRdmaLimits limits, int xid, int p,
                                                          int i) {
        int position = w.getInt(p + WORD);
        String pos = Integer.toUnsignedString(position);
        if ((position & 3) != 0) {
            return new RpcRdmaDecodeException(Reason.MISALIGNED_POSITION, Response.ERR_CHUNK, true, xid, p + WORD,
                    "read segment " + i + " position " + pos + " is not a multiple of 4");
        }
        int previous = i > 0 ? w.getInt(p + WORD - READ_LIST_ENTRY_LENGTH) : 0;
        if (i > 0 && Integer.compareUnsigned(position, previous) < 0) {
            return new RpcRdmaDecodeException(Reason.DECREASING_POSITION, Response.ERR_CHUNK, true, xid, p + WORD,
                    "read segment " + i + " position " + pos + " is below the previous position "
                    + Integer.toUnsignedString(previous));
        }
        return new RpcRdmaDecodeException(Reason.TOO_MANY_SEGMENTS_IN_CHUNK, Response.ERR_CHUNK, true, xid, p,
                "more than " + limits.maxSegmentsPerChunk() + " segments in the Read chunk at position " + pos);
    }

    /** Reads and checks the discriminator word at {@code p}: 0 or 1. */
    private static int discriminator(RpcRdmaWire w, int p, int xid, String list) throws RpcRdmaDecodeException {
        if (w.length() - p < WORD) {
            throw truncated(Response.ERR_CHUNK, xid, p, w.length(), list + " discriminator");
        }
        w.need(p + WORD);
        int value = w.getInt(p);
        if (value != ABSENT && value != PRESENT) {
            throw badDiscriminator(xid, p, list, value);
        }
        return value;
    }

    private static RpcRdmaDecodeException badDiscriminator(int xid, int p, String list, int value) {
        return new RpcRdmaDecodeException(Reason.BAD_DISCRIMINATOR, Response.ERR_CHUNK, true, xid, p,
                list + " discriminator " + Integer.toUnsignedString(value) + " is neither 0 nor 1");
    }

    /**
     * Reads the segment count of a Write or Reply chunk at {@code p} and checks it against the bytes that follow
     * and the limits, before any array grows. {@code chunk} is the Write chunk's index or {@link #REPLY_CHUNK}.
     */
    private static int segmentCount(RpcRdmaWire w, int p, RpcRdmaHeader header, RpcRdmaLimits limits, int xid,
                                    int chunk) throws RpcRdmaDecodeException {
        int length = w.length();
        if (length - p < WORD) {
            throw truncated(Response.ERR_CHUNK, xid, p, length, chunkName(chunk) + " segment count");
        }
        w.need(p + WORD);
        long count = Integer.toUnsignedLong(w.getInt(p));
        if (count * SEGMENT_LENGTH > length - p - WORD || count > limits.maxSegmentsPerChunk()
                || header.totalSegmentCount() + count > limits.maxSegments()) {
            throw refuseCount(header, limits, xid, p, length, count, chunk);
        }
        return (int) count;
    }

    /** The cold half of the segment count checks, in the order they apply. */
    private static RpcRdmaDecodeException refuseCount(RpcRdmaHeader header, RpcRdmaLimits limits, int xid, int p,
                                                      int length, long count, int chunk) {
        long remaining = length - p - WORD;
        if (count * SEGMENT_LENGTH > remaining) {
            return new RpcRdmaDecodeException(Reason.COUNT_EXCEEDS_BUFFER, Response.ERR_CHUNK, true, xid, p,
                    chunkName(chunk) + " claims " + count + " segments (" + count * SEGMENT_LENGTH + " bytes) but only "
                    + remaining + " bytes remain");
        }
        if (count > limits.maxSegmentsPerChunk()) {
            return new RpcRdmaDecodeException(Reason.TOO_MANY_SEGMENTS_IN_CHUNK, Response.ERR_CHUNK, true, xid, p,
                    chunkName(chunk) + " has " + count + " segments, more than " + limits.maxSegmentsPerChunk());
        }
        return new RpcRdmaDecodeException(Reason.TOO_MANY_SEGMENTS, Response.ERR_CHUNK, true, xid, p,
                chunkName(chunk) + " brings the header past " + limits.maxSegments() + " segments");
    }

    /**
     * Makes {@code count} checked segments at offset {@code at} part of the image (they are read from there when
     * asked for); returns the offset after them.
     */
    private static int segmentsEnd(RpcRdmaWire w, int at, int count) {
        int end = at + count * SEGMENT_LENGTH;
        w.need(end);
        return end;
    }

    private static String chunkName(int chunk) {
        return chunk == REPLY_CHUNK ? "Reply chunk" : "Write chunk " + chunk;
    }

    private static RpcRdmaDecodeException truncated(Response response, int xid, int offset, int length, String what) {
        return new RpcRdmaDecodeException(Reason.TRUNCATED, response, true, xid, offset,
                "the header ends after " + length + " bytes, inside " + what);
    }
}
