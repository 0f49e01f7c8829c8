package org.rpcrdma4j.verbs.soft.wire;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * MPA FPDU framing (RFC 5044 section 4): a 16-bit ULPDU_Length, the ULPDU (one DDP segment), 0 to 3 pad bytes and
 * a CRC32C field that is always present (0 when CRC was not negotiated).
 * <pre>
 * +--------------+------------------------------+-------+-----------+
 * | ULPDU_Length |  ULPDU (DDP/RDMAP hdr+data)  | pad   | CRC32C    |
 * |   u16 BE     |        ULPDU_Length bytes    | 0..3  | 4 bytes   |
 * +--------------+------------------------------+-------+-----------+
 * </pre>
 * The CRC covers ULPDU_Length, ULPDU and pad. On the wire it is the <em>little-endian</em> bytes of the standard
 * CRC-32C value (the value {@link CRC32C#getValue()} returns), unlike every other field.
 */
public final class Fpdu {
    /** Size of the ULPDU_Length field. */
    public static final int LENGTH_FIELD = 2;
    /** Size of the CRC field. */
    public static final int CRC_LENGTH = 4;
    /** The largest ULPDU_Length. */
    public static final int MAX_ULPDU_LENGTH = 0xFFFF;

    private Fpdu() {
    }

    /** Pad bytes after a ULPDU of this length so that the FPDU is a multiple of 4 bytes. */
    public static int padLength(int ulpduLength) {
        return (4 - ((ulpduLength + LENGTH_FIELD) & 3)) & 3;
    }

    /** Bytes of the whole FPDU (length field, ULPDU, pad, CRC). */
    public static int fpduLength(int ulpduLength) {
        return LENGTH_FIELD + ulpduLength + padLength(ulpduLength) + CRC_LENGTH;
    }

    /** Writes a CRC value into the CRC field at {@code index} (absolute), little-endian. */
    public static void putCrc(ByteBuffer dst, int index, int crcValue) {
        dst.put(index, (byte) crcValue);
        dst.put(index + 1, (byte) (crcValue >>> 8));
        dst.put(index + 2, (byte) (crcValue >>> 16));
        dst.put(index + 3, (byte) (crcValue >>> 24));
    }

    /** Reads the CRC field at {@code index} (absolute) as the CRC value it carries. */
    public static int getCrc(ByteBuffer src, int index) {
        return (src.get(index) & 0xFF)
                | (src.get(index + 1) & 0xFF) << 8
                | (src.get(index + 2) & 0xFF) << 16
                | (src.get(index + 3) & 0xFF) << 24;
    }

    /**
     * Updates {@code crc} with the bytes of {@code src} between {@code from} and {@code to} without moving the
     * buffer's position or limit.
     */
    public static void update(CRC32C crc, ByteBuffer src, int from, int to) {
        int position = src.position();
        int limit = src.limit();
        if (to > limit) {
            src.limit(to);
            src.position(from);
        } else {
            src.position(from);
            src.limit(to);
        }
        crc.update(src);
        src.limit(limit);
        src.position(position);
    }

    /** The CRC of a whole FPDU held in {@code src} from {@code offset} (excluding the CRC field itself). */
    public static int crcOf(ByteBuffer src, int offset) {
        int ulpduLength = src.getShort(offset) & 0xFFFF;
        CRC32C crc = new CRC32C();
        update(crc, src, offset, offset + LENGTH_FIELD + ulpduLength + padLength(ulpduLength));
        return (int) crc.getValue();
    }
}
