package org.rpcrdma4j.verbs.soft.wire;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * MPA Request and Reply frames (RFC 5044 section 7.1, RFC 6581 enhanced connection setup): the only bytes on a TCP
 * connection before the first FPDU.
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                                                               |
 * +      Key (16 bytes): "MPA ID Req Frame" or "MPA ID Rep Frame"  +
 * |                                                               |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |M|C|R|E| Res   |     Rev       |          PD_Length            |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |  Private data (PD_Length bytes; with E and Rev 2 it begins     |
 * |  with the enhanced block: IRD u16 | ORD u16)                   |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 * All integers are big-endian. Stateless helpers; the handshake code owns the buffers.
 */
public final class MpaFrame {
    /** Length of the fixed part: key, flags, revision, PD_Length. */
    public static final int HEADER_LENGTH = 20;
    /** Length of the key. */
    public static final int KEY_LENGTH = 16;
    /** The largest private data accepted or sent, enhanced block included (the Linux limit; RFC 5044 allows 512). */
    public static final int MAX_PRIVATE_DATA = 256;
    /** Length of the RFC 6581 IRD/ORD block that starts the private data of an enhanced revision 2 frame. */
    public static final int ENHANCED_BLOCK_LENGTH = 4;

    /** M: markers wanted. Never sent; a request with it is rejected. */
    public static final int FLAG_MARKERS = 0x80;
    /** C: CRC wanted. CRC is used when either side sets it. */
    public static final int FLAG_CRC = 0x40;
    /** R: the connection is rejected (reply only). */
    public static final int FLAG_REJECT = 0x20;
    /** Enhanced connection setup (RFC 6581): revision 2 private data starts with IRD/ORD. */
    public static final int FLAG_ENHANCED = 0x10;

    /** IRD word: peer-to-peer (ready-to-receive) mode wanted. */
    public static final int IRD_PEER_TO_PEER = 0x8000;
    /** IRD word: a zero-length Send may serve as the ready-to-receive frame. */
    public static final int IRD_SEND_RTR = 0x4000;
    /** ORD word: a zero-length RDMA Write may serve as the ready-to-receive frame. */
    public static final int ORD_WRITE_RTR = 0x8000;
    /** ORD word: a zero-length RDMA Read Request may serve as the ready-to-receive frame. */
    public static final int ORD_READ_RTR = 0x4000;
    /** The IRD or ORD value within its word. */
    public static final int DEPTH_MASK = 0x3FFF;

    private static final byte[] KEY_REQUEST = "MPA ID Req Frame".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] KEY_REPLY = "MPA ID Rep Frame".getBytes(StandardCharsets.US_ASCII);

    private MpaFrame() {
    }

    /** The fixed part of a frame. */
    public record Header(boolean reply, int flags, int revision, int privateDataLength) {
        public boolean markers() {
            return (flags & FLAG_MARKERS) != 0;
        }

        public boolean crc() {
            return (flags & FLAG_CRC) != 0;
        }

        public boolean rejected() {
            return (flags & FLAG_REJECT) != 0;
        }

        /** Revision 2 with the enhanced flag: the private data starts with the IRD/ORD block. */
        public boolean enhanced() {
            return revision == 2 && (flags & FLAG_ENHANCED) != 0;
        }
    }

    /**
     * Writes a frame at the buffer's position and advances it.
     *
     * @param privateData the whole private data, enhanced block included
     * @throws IllegalArgumentException when the private data is longer than {@link #MAX_PRIVATE_DATA}
     */
    public static void put(ByteBuffer dst, boolean reply, int flags, int revision, byte[] privateData) {
        if (privateData.length > MAX_PRIVATE_DATA) {
            throw new IllegalArgumentException("MPA private data of " + privateData.length + " bytes exceeds "
                    + MAX_PRIVATE_DATA);
        }
        dst.put(reply ? KEY_REPLY : KEY_REQUEST);
        dst.put((byte) flags);
        dst.put((byte) revision);
        dst.putShort((short) privateData.length);
        dst.put(privateData);
    }

    /** A whole frame as a new array. */
    public static byte[] encode(boolean reply, int flags, int revision, byte[] privateData) {
        ByteBuffer buffer = ByteBuffer.allocate(HEADER_LENGTH + privateData.length);
        put(buffer, reply, flags, revision, privateData);
        return buffer.array();
    }

    /**
     * Reads the fixed part at {@code offset} (absolute; the buffer's position is not moved).
     *
     * @param expectReply whether a reply (true) or a request (false) is expected
     * @throws MpaProtocolException when the key is not the expected one, the revision is not 1 or 2, or PD_Length
     *                              exceeds {@link #MAX_PRIVATE_DATA}
     */
    public static Header header(ByteBuffer src, int offset, boolean expectReply) throws MpaProtocolException {
        if (src.limit() - offset < HEADER_LENGTH) {
            throw new MpaProtocolException("MPA frame shorter than " + HEADER_LENGTH + " bytes");
        }
        byte[] key = expectReply ? KEY_REPLY : KEY_REQUEST;
        for (int i = 0; i < KEY_LENGTH; i++) {
            if (src.get(offset + i) != key[i]) {
                throw new MpaProtocolException("not an MPA " + (expectReply ? "Reply" : "Request") + " frame: key "
                        + hex(src, offset, KEY_LENGTH));
            }
        }
        int flags = src.get(offset + 16) & 0xFF;
        int revision = src.get(offset + 17) & 0xFF;
        int pdLength = src.getShort(offset + 18) & 0xFFFF;
        if (revision != 1 && revision != 2) {
            throw new MpaProtocolException("unsupported MPA revision " + revision);
        }
        if (pdLength > MAX_PRIVATE_DATA) {
            throw new MpaProtocolException("MPA private data length " + pdLength + " exceeds " + MAX_PRIVATE_DATA);
        }
        return new Header(expectReply, flags, revision, pdLength);
    }

    /** The enhanced block: IRD word then ORD word, each a depth plus control bits. */
    public static byte[] enhancedBlock(int irdWord, int ordWord) {
        return new byte[] {(byte) (irdWord >>> 8), (byte) irdWord, (byte) (ordWord >>> 8), (byte) ordWord};
    }

    /** Private data of an enhanced frame: the IRD/ORD block followed by the upper layer's bytes. */
    public static byte[] enhancedPrivateData(int irdWord, int ordWord, byte[] ulpData) {
        byte[] all = new byte[ENHANCED_BLOCK_LENGTH + ulpData.length];
        System.arraycopy(enhancedBlock(irdWord, ordWord), 0, all, 0, ENHANCED_BLOCK_LENGTH);
        System.arraycopy(ulpData, 0, all, ENHANCED_BLOCK_LENGTH, ulpData.length);
        return all;
    }

    static String hex(ByteBuffer src, int offset, int length) {
        StringBuilder sb = new StringBuilder(length * 2);
        for (int i = 0; i < length && offset + i < src.limit(); i++) {
            sb.append(String.format("%02x", src.get(offset + i) & 0xFF));
        }
        return sb.toString();
    }
}
