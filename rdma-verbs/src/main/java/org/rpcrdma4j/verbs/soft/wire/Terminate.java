package org.rpcrdma4j.verbs.soft.wire;

import java.nio.ByteBuffer;

/**
 * The RDMAP Terminate message (RFC 5040 section 4.8): an untagged message on queue 2 whose body starts with a
 * control word, optionally followed by the DDP segment length and the header of the segment that caused it.
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * | Layer | EType |   Error Code  |M|D|R|        Reserved         |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |  DDP Segment Length (if M)    |  terminated DDP header (if D) ...
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 * This device sends the control word in RFC bit order. Linux siw lays the bit-fields out mirrored (layer in the low
 * nibble of the first byte, M/D/R as 0x01/0x02/0x04 of the third byte), so a received control word is decoded both
 * ways ({@link #rfcReading}, {@link #mirroredReading}) and only trusted as far as both allow.
 * <p>
 * A work completion caused by a Terminate carries its code in {@code vendorError} as built by {@link #vendorError}.
 */
public final class Terminate {
    public static final int LAYER_RDMAP = 0;
    public static final int LAYER_DDP = 1;
    public static final int LAYER_LLP = 2;

    public static final int RDMAP_LOCAL_CATASTROPHIC = 0;
    public static final int RDMAP_REMOTE_PROTECTION = 1;
    public static final int RDMAP_REMOTE_OPERATION = 2;

    public static final int RDMAP_INVALID_STAG = 0x00;
    public static final int RDMAP_BASE_BOUNDS = 0x01;
    public static final int RDMAP_ACCESS_RIGHTS = 0x02;
    public static final int RDMAP_STAG_NOT_ASSOCIATED = 0x03;
    public static final int RDMAP_TO_WRAP = 0x04;
    public static final int RDMAP_INVALID_VERSION = 0x05;
    public static final int RDMAP_UNEXPECTED_OPCODE = 0x06;
    public static final int RDMAP_CATASTROPHIC_STREAM = 0x07;
    public static final int RDMAP_CATASTROPHIC_GLOBAL = 0x08;
    public static final int RDMAP_CANNOT_INVALIDATE = 0x09;
    public static final int RDMAP_UNSPECIFIED = 0xFF;

    public static final int DDP_CATASTROPHIC = 0;
    public static final int DDP_TAGGED_BUFFER = 1;
    public static final int DDP_UNTAGGED_BUFFER = 2;

    public static final int DDP_TAGGED_INVALID_STAG = 0;
    public static final int DDP_TAGGED_BASE_BOUNDS = 1;
    public static final int DDP_TAGGED_STAG_NOT_ASSOCIATED = 2;
    public static final int DDP_TAGGED_TO_WRAP = 3;
    public static final int DDP_TAGGED_INVALID_VERSION = 4;

    public static final int DDP_UNTAGGED_INVALID_QN = 1;
    public static final int DDP_UNTAGGED_NO_BUFFER = 2;
    public static final int DDP_UNTAGGED_INVALID_MSN_RANGE = 3;
    public static final int DDP_UNTAGGED_INVALID_MO = 4;
    public static final int DDP_UNTAGGED_TOO_LONG = 5;
    public static final int DDP_UNTAGGED_INVALID_VERSION = 6;

    public static final int LLP_CONNECTION_LOST = 1;
    public static final int LLP_CRC_ERROR = 2;
    public static final int LLP_LENGTH_MISMATCH = 3;
    public static final int LLP_INVALID_REQUEST_REPLY = 4;

    public static final int FLAG_M = 0x8000;
    public static final int FLAG_D = 0x4000;
    public static final int FLAG_R = 0x2000;

    /** Offset of the control word inside the Terminate ULPDU. */
    public static final int OFFSET_CONTROL = Ddp.UNTAGGED_HEADER_LENGTH;
    /** Offset of the DDP segment length inside the Terminate ULPDU (when present). */
    public static final int OFFSET_SEGMENT_LENGTH = OFFSET_CONTROL + 4;
    /** Offset of the terminated DDP header inside the Terminate ULPDU (when present). */
    public static final int OFFSET_TERMINATED_HEADER = OFFSET_SEGMENT_LENGTH + 2;
    /** The longest Terminate ULPDU this device sends: header, control, length, Read Request header. */
    public static final int MAX_ULPDU_LENGTH = OFFSET_TERMINATED_HEADER + Rdmap.READ_REQUEST_ULPDU_LENGTH;

    /** Set in a {@link #vendorError} value. */
    public static final int VENDOR_TERMINATE = 0x1_0000;
    /** Set in a {@link #vendorError} value when the code came from the peer's Terminate. */
    public static final int VENDOR_RECEIVED = 0x2_0000;

    private Terminate() {
    }

    /** One way of reading a Terminate control word. */
    public record Reading(int layer, int etype, int code, boolean m, boolean d, boolean r) {
        /** Whether layer and EType name a combination RFC 5040/5041/5044 define. */
        public boolean plausible() {
            return switch (layer) {
                case LAYER_RDMAP -> etype <= RDMAP_REMOTE_OPERATION;
                case LAYER_DDP -> etype <= DDP_UNTAGGED_BUFFER;
                case LAYER_LLP -> etype == 0;
                default -> false;
            };
        }

        public int vendorError(boolean received) {
            return Terminate.vendorError(layer, etype, code, received);
        }

        @Override
        public String toString() {
            return describe(layer, etype, code) + (m ? " M" : "") + (d ? " D" : "") + (r ? " R" : "");
        }
    }

    /** The control word in RFC bit order. */
    public static int controlWord(int layer, int etype, int code, int flags) {
        return (layer & 0xF) << 28 | (etype & 0xF) << 24 | (code & 0xFF) << 16 | (flags & 0xE000);
    }

    /** Reads a control word in RFC bit order. */
    public static Reading rfcReading(int word) {
        return new Reading(word >>> 28, (word >>> 24) & 0xF, (word >>> 16) & 0xFF,
                (word & FLAG_M) != 0, (word & FLAG_D) != 0, (word & FLAG_R) != 0);
    }

    /** Reads a control word as Linux siw on a little-endian machine lays it out. */
    public static Reading mirroredReading(int word) {
        int b0 = word >>> 24;
        int b2 = (word >>> 8) & 0xFF;
        return new Reading(b0 & 0xF, b0 >>> 4, (word >>> 16) & 0xFF, (b2 & 1) != 0, (b2 & 2) != 0, (b2 & 4) != 0);
    }

    /**
     * Packs a Terminate code for {@code WorkCompletion.vendorError}: bit 16 always, bit 17 when received from the
     * peer, then layer (bits 15..12), EType (11..8) and error code (7..0) — the first 16 bits of the RFC control word.
     */
    public static int vendorError(int layer, int etype, int code, boolean received) {
        return VENDOR_TERMINATE | (received ? VENDOR_RECEIVED : 0) | (layer & 0xF) << 12 | (etype & 0xF) << 8
                | (code & 0xFF);
    }

    public static int layerOf(int vendorError) {
        return (vendorError >>> 12) & 0xF;
    }

    public static int etypeOf(int vendorError) {
        return (vendorError >>> 8) & 0xF;
    }

    public static int codeOf(int vendorError) {
        return vendorError & 0xFF;
    }

    public static boolean isTerminate(int vendorError) {
        return (vendorError & VENDOR_TERMINATE) != 0;
    }

    public static boolean isReceived(int vendorError) {
        return (vendorError & VENDOR_RECEIVED) != 0;
    }

    /** A readable form of a {@link #vendorError} value. */
    public static String describeVendorError(int vendorError) {
        if (!isTerminate(vendorError)) {
            return "none";
        }
        return (isReceived(vendorError) ? "received " : "sent ")
                + describe(layerOf(vendorError), etypeOf(vendorError), codeOf(vendorError));
    }

    public static String describe(int layer, int etype, int code) {
        String layerName = switch (layer) {
            case LAYER_RDMAP -> "RDMAP";
            case LAYER_DDP -> "DDP";
            case LAYER_LLP -> "LLP";
            default -> "layer " + layer;
        };
        String etypeName = switch (layer) {
            case LAYER_RDMAP -> switch (etype) {
                case RDMAP_LOCAL_CATASTROPHIC -> "local catastrophic";
                case RDMAP_REMOTE_PROTECTION -> "remote protection";
                case RDMAP_REMOTE_OPERATION -> "remote operation";
                default -> "etype " + etype;
            };
            case LAYER_DDP -> switch (etype) {
                case DDP_CATASTROPHIC -> "catastrophic";
                case DDP_TAGGED_BUFFER -> "tagged buffer";
                case DDP_UNTAGGED_BUFFER -> "untagged buffer";
                default -> "etype " + etype;
            };
            default -> "etype " + etype;
        };
        return layerName + "/" + etypeName + "/0x" + Integer.toHexString(code);
    }

    /**
     * Writes a Terminate body (control word and, depending on {@code flags}, the terminated segment's length and
     * headers) at the buffer's position.
     *
     * @param terminated the terminated FPDU's first bytes, starting with its ULPDU_Length field, or null
     * @param headerLength bytes of DDP header (14 or 18) to attach when {@code D} is set
     * @param rdmapLength bytes of RDMAP header after the DDP header to attach when {@code R} is set
     */
    public static void putBody(ByteBuffer dst, int layer, int etype, int code, int flags, ByteBuffer terminated,
                               int headerLength, int rdmapLength) {
        if (terminated == null) {
            flags = 0;
        }
        dst.putInt(controlWord(layer, etype, code, flags));
        if ((flags & FLAG_M) != 0) {
            dst.putShort(terminated.getShort(0));
        }
        if ((flags & FLAG_D) != 0) {
            for (int i = 0; i < headerLength; i++) {
                dst.put(terminated.get(Fpdu.LENGTH_FIELD + i));
            }
            if ((flags & FLAG_R) != 0) {
                for (int i = 0; i < rdmapLength; i++) {
                    dst.put(terminated.get(Fpdu.LENGTH_FIELD + headerLength + i));
                }
            }
        }
    }
}
