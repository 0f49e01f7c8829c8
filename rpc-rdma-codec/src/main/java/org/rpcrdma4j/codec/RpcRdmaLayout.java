package org.rpcrdma4j.codec;

import io.netty.buffer.ByteBuf;

/**
 * Offsets, sizes and static field readers of the RPC-over-RDMA version 1 transport header (RFC 8166), in the style
 * of a flyweight descriptor: every field of the fixed part has an offset constant and a static
 * {@code (ByteBuf, int)} reader that neither allocates nor moves the buffer's indices.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                           rdma_xid                            |  0
 *  +---------------------------------------------------------------+
 *  |                          rdma_vers (1)                        |  4
 *  +---------------------------------------------------------------+
 *  |                          rdma_credit                          |  8
 *  +---------------------------------------------------------------+
 *  |                          rdma_proc                            | 12
 *  +---------------------------------------------------------------+
 *  |  RDMA_MSG / RDMA_NOMSG: read list, write list, reply chunk    | 16
 *  |  RDMA_ERROR: rdma_err [, rdma_vers_low, rdma_vers_high]       |
 *  +---------------------------------------------------------------+
 * </pre>
 * All words are big-endian ({@link ByteBuf#getInt(int)}).
 */
public final class RpcRdmaLayout {

    /** The only protocol version this codec speaks. */
    public static final int VERSION = 1;

    /** Offset of {@code rdma_xid}. */
    public static final int XID_OFFSET = 0;
    /** Offset of {@code rdma_vers}. */
    public static final int VERS_OFFSET = 4;
    /** Offset of {@code rdma_credit}. */
    public static final int CREDITS_OFFSET = 8;
    /** Offset of {@code rdma_proc}. */
    public static final int PROC_OFFSET = 12;
    /** Length of the fixed part (xid, vers, credit, proc); also the offset of the procedure's body. */
    public static final int FIXED_HEADER_LENGTH = 16;

    /** Size of one XDR word: a discriminator, a count, a position, a handle or a length. */
    public static final int WORD = 4;
    /** Offset of {@code rdma_err} in an RDMA_ERROR message. */
    public static final int ERROR_CODE_OFFSET = FIXED_HEADER_LENGTH;
    /** Offset of {@code rdma_vers_low} in an ERR_VERS message; {@code rdma_vers_high} follows it. */
    public static final int ERROR_VERS_LOW_OFFSET = ERROR_CODE_OFFSET + WORD;
    /** Offset of {@code rdma_vers_high} in an ERR_VERS message. */
    public static final int ERROR_VERS_HIGH_OFFSET = ERROR_VERS_LOW_OFFSET + WORD;

    /** Length of an RDMA_MSG or RDMA_NOMSG header with three empty lists: 16 + 3 discriminators. */
    public static final int MIN_HEADER_LENGTH = FIXED_HEADER_LENGTH + 3 * WORD;
    /** Length of a complete RDMA_ERROR / ERR_CHUNK message. */
    public static final int ERR_CHUNK_LENGTH = FIXED_HEADER_LENGTH + WORD;
    /** Length of a complete RDMA_ERROR / ERR_VERS message (low, then high). */
    public static final int ERR_VERS_LENGTH = ERR_CHUNK_LENGTH + 2 * WORD;

    /** A plain RDMA segment: handle (STag) u32, length u32, offset u64. */
    public static final int SEGMENT_LENGTH = 16;
    /** A read segment: position u32 followed by a plain segment. */
    public static final int READ_SEGMENT_LENGTH = WORD + SEGMENT_LENGTH;
    /** One Read list entry: discriminator 1 followed by a read segment. */
    public static final int READ_LIST_ENTRY_LENGTH = WORD + READ_SEGMENT_LENGTH;
    /** Overhead of one Write list entry or of a present Reply chunk: discriminator 1 and the segment count. */
    public static final int CHUNK_PREFIX_LENGTH = 2 * WORD;
    /** The value of an XDR optional-data discriminator saying "an item follows". */
    public static final int PRESENT = 1;
    /** The value of an XDR optional-data discriminator saying "no item" (list end, absent Reply chunk). */
    public static final int ABSENT = 0;

    private RpcRdmaLayout() {
    }

    /**
     * Reads {@code rdma_xid} of a header that starts at {@code index}; the buffer's indices do not move.
     *
     * @param buffer borrowed; must hold at least 4 bytes at {@code index}
     * @param index  absolute index of the first byte of the transport header
     * @return the xid bits (print with {@link Integer#toUnsignedString(int, int)})
     * @throws IndexOutOfBoundsException when the 4 bytes are not there
     */
    public static int xid(ByteBuf buffer, int index) {
        return buffer.getInt(index + XID_OFFSET);
    }

    /** Like {@link #xid(ByteBuf, int)}, for {@code rdma_vers}. */
    public static int vers(ByteBuf buffer, int index) {
        return buffer.getInt(index + VERS_OFFSET);
    }

    /** Like {@link #xid(ByteBuf, int)}, for {@code rdma_credit}. */
    public static int credits(ByteBuf buffer, int index) {
        return buffer.getInt(index + CREDITS_OFFSET);
    }

    /** Like {@link #xid(ByteBuf, int)}, for the raw {@code rdma_proc} word (see {@link RpcRdmaProc#forValue}). */
    public static int procValue(ByteBuf buffer, int index) {
        return buffer.getInt(index + PROC_OFFSET);
    }

    /**
     * @param buffer borrowed
     * @param index  absolute index of the first byte of the transport header
     * @return whether the xid can be read, i.e. at least 4 bytes lie between {@code index} and the writer index
     */
    public static boolean hasXid(ByteBuf buffer, int index) {
        return index >= 0 && buffer.writerIndex() - index >= WORD;
    }
}
