package org.rpcrdma4j.it.capture;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Splits the full-operation phase of an MPA stream (RFC 5044 section 5) into FPDUs and reads the DDP/RDMAP header
 * of each:
 * <pre>
 *  | ULPDU_Length u16 | ULPDU: DDP/RDMAP header + payload | pad 0-3 | CRC32C 4 |
 * </pre>
 * The pad brings {@code 2 + ULPDU_Length} to a multiple of 4. The CRC field is always present; when CRC was
 * negotiated it must equal CRC-32C over length, ULPDU and pad, sent as the little-endian bytes of the value
 * (PROTOCOLS.md B.3), otherwise its content is ignored. Markers are not supported (no Linux peer uses them): a
 * connection that negotiated them is refused before this parser runs.
 */
public final class FpduParser {

    private FpduParser() {
    }

    /**
     * @param stream the sender's TCP stream
     * @param from   offset of the first FPDU (just after the MPA Request or Reply frame)
     * @param crc    whether CRC-32C was negotiated
     * @return the stream's DDP segments in order
     * @throws CaptureFormatException for a truncated FPDU, a bad CRC, or a DDP/RDMAP header that breaks the RFCs
     */
    public static List<DdpSegment> parse(TcpStream stream, int from, boolean crc) throws CaptureFormatException {
        ByteBuffer b = ByteBuffer.wrap(stream.array());
        List<DdpSegment> segments = new ArrayList<>();
        CRC32C crc32c = crc ? new CRC32C() : null;
        int pos = from;
        while (pos < stream.length()) {
            if (stream.length() - pos < 2) {
                throw new CaptureFormatException(stream + ": FPDU length truncated at stream offset " + pos);
            }
            int ulpduLength = b.getShort(pos) & 0xFFFF;
            int pad = (4 - ((ulpduLength + 2) & 3)) & 3;
            int covered = 2 + ulpduLength + pad;
            int total = covered + 4;
            if (stream.length() - pos < total) {
                throw new CaptureFormatException(stream + ": FPDU of " + total + " bytes at stream offset " + pos
                        + " is truncated (" + (stream.length() - pos) + " bytes remain)");
            }
            if (crc) {
                crc32c.reset();
                crc32c.update(stream.array(), pos, covered);
                int expected = (int) crc32c.getValue();
                int onWire = b.order(ByteOrder.LITTLE_ENDIAN).getInt(pos + covered);
                b.order(ByteOrder.BIG_ENDIAN);
                if (expected != onWire) {
                    throw new CaptureFormatException(String.format("%s: FPDU at stream offset %d has CRC %08x, "
                            + "expected %08x", stream, pos, onWire, expected));
                }
            }
            segments.add(segment(stream, b, pos, ulpduLength));
            pos += total;
        }
        return segments;
    }

    private static DdpSegment segment(TcpStream stream, ByteBuffer b, int fpdu, int ulpduLength)
            throws CaptureFormatException {
        int at = fpdu + 2;
        if (ulpduLength < 2) {
            throw new CaptureFormatException(stream + ": ULPDU of " + ulpduLength + " bytes at stream offset " + fpdu
                    + " has no DDP header");
        }
        int ddp = b.get(at) & 0xFF;
        int rdmap = b.get(at + 1) & 0xFF;
        if ((ddp & DdpSegment.DDP_VERSION_MASK) != 1) {
            throw new CaptureFormatException(stream + ": DDP version " + (ddp & DdpSegment.DDP_VERSION_MASK)
                    + " at stream offset " + fpdu);
        }
        if ((rdmap & DdpSegment.RDMAP_VERSION_MASK) != DdpSegment.RDMAP_VERSION_1) {
            throw new CaptureFormatException(stream + ": RDMAP version " + (rdmap >> 6) + " at stream offset " + fpdu);
        }
        boolean tagged = (ddp & DdpSegment.TAGGED_FLAG) != 0;
        boolean last = (ddp & DdpSegment.LAST_FLAG) != 0;
        int opcode = rdmap & DdpSegment.OPCODE_MASK;
        int headerLength = tagged ? DdpSegment.TAGGED_HEADER_LENGTH : DdpSegment.UNTAGGED_HEADER_LENGTH;
        if (ulpduLength < headerLength) {
            throw new CaptureFormatException(stream + ": " + (tagged ? "tagged" : "untagged") + " ULPDU of "
                    + ulpduLength + " bytes at stream offset " + fpdu + " is shorter than its header");
        }
        int frame = stream.deliveredBy(fpdu + 2L + ulpduLength - 1);
        byte[] payload = Arrays.copyOfRange(stream.array(), at + headerLength, at + ulpduLength);
        int word = b.getInt(at + 2);
        if (tagged) {
            return new DdpSegment(frame, fpdu, true, last, opcode, word, b.getLong(at + 6), -1, 0, 0, payload);
        }
        return new DdpSegment(frame, fpdu, false, last, opcode, word, 0, b.getInt(at + 6),
                Integer.toUnsignedLong(b.getInt(at + 10)), Integer.toUnsignedLong(b.getInt(at + 14)), payload);
    }
}
