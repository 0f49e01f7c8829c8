package org.rpcrdma4j.it.capture;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * An MPA Request or Reply frame (RFC 5044 section 7.1, RFC 6581): the 16-byte key, flags, revision and private
 * data. In revision 2 "enhanced" frames (flag 0x10) the private data begins with the IRD and ORD words.
 *
 * @param request     true for "MPA ID Req Frame", false for "MPA ID Rep Frame"
 * @param flags       the flags byte: {@link #MARKERS}, {@link #CRC}, {@link #REJECT}, {@link #ENHANCED}
 * @param revision    1 (RFC 5044) or 2 (RFC 6581)
 * @param privateData all private data bytes, including an enhanced frame's IRD/ORD words; owned by the record
 */
public record MpaFrame(boolean request, int flags, int revision, byte[] privateData) {
    public static final int MARKERS = 0x80;
    public static final int CRC = 0x40;
    public static final int REJECT = 0x20;
    public static final int ENHANCED = 0x10;

    static final byte[] REQUEST_KEY = "MPA ID Req Frame".getBytes(StandardCharsets.US_ASCII);
    static final byte[] REPLY_KEY = "MPA ID Rep Frame".getBytes(StandardCharsets.US_ASCII);
    /** Key, flags, revision, private data length. */
    static final int HEADER_LENGTH = 20;
    /** RFC 5044's limit on private data. */
    static final int MAX_PRIVATE_DATA = 512;

    public boolean has(int flag) {
        return (flags & flag) != 0;
    }

    /** @return whether the frame uses the RFC 6581 enhanced layout (revision 2 with the 0x10 flag) */
    public boolean enhanced() {
        return revision == 2 && has(ENHANCED) && privateData.length >= 4;
    }

    /** @return the IRD word's value (without the P2P and RTR bits), or -1 for a frame that carries none */
    public int ird() {
        return enhanced() ? ((privateData[0] & 0x3F) << 8) | (privateData[1] & 0xFF) : -1;
    }

    /** @return the ORD word's value (without the RTR bits), or -1 for a frame that carries none */
    public int ord() {
        return enhanced() ? ((privateData[2] & 0x3F) << 8) | (privateData[3] & 0xFF) : -1;
    }

    /** @return the upper layer's private data: after the IRD/ORD words of an enhanced frame, else all of it */
    public byte[] ulpPrivateData() {
        return enhanced() ? Arrays.copyOfRange(privateData, 4, privateData.length) : privateData.clone();
    }

    /** @return the frame's length on the wire */
    public int wireLength() {
        return HEADER_LENGTH + privateData.length;
    }

    /**
     * Reads the frame at the start of {@code stream}.
     *
     * @param request whether a Request (else a Reply) is expected
     * @return the frame
     * @throws CaptureFormatException when the stream does not start with that frame
     */
    static MpaFrame parse(TcpStream stream, boolean request) throws CaptureFormatException {
        byte[] key = request ? REQUEST_KEY : REPLY_KEY;
        if (!startsWith(stream, key)) {
            throw new CaptureFormatException(stream + " does not start with \"" + new String(key,
                    StandardCharsets.US_ASCII) + "\"");
        }
        if (stream.length() < HEADER_LENGTH) {
            throw new CaptureFormatException(stream + ": MPA frame header truncated");
        }
        int pdLength = (stream.byteAt(18) << 8) | stream.byteAt(19);
        if (pdLength > MAX_PRIVATE_DATA) {
            throw new CaptureFormatException(stream + ": MPA private data of " + pdLength + " bytes exceeds "
                    + MAX_PRIVATE_DATA);
        }
        if (stream.length() < HEADER_LENGTH + pdLength) {
            throw new CaptureFormatException(stream + ": MPA private data truncated");
        }
        return new MpaFrame(request, stream.byteAt(16), stream.byteAt(17), stream.bytes(HEADER_LENGTH, pdLength));
    }

    static boolean startsWith(TcpStream stream, byte[] key) {
        if (stream.length() < key.length) {
            return false;
        }
        for (int i = 0; i < key.length; i++) {
            if (stream.byteAt(i) != (key[i] & 0xFF)) {
                return false;
            }
        }
        return true;
    }
}
