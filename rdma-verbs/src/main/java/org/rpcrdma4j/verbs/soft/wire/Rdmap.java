package org.rpcrdma4j.verbs.soft.wire;

/**
 * RDMAP (RFC 5040): the control byte, opcodes and the RDMA Read Request body.
 * <p>
 * RDMA Read Request, after the 18-byte untagged header (offsets inside the ULPDU):
 * <pre>
 * 18: Data Sink STag (4)      22: Data Sink Tagged Offset (8)
 * 30: RDMA Read Message Size (4)
 * 34: Data Source STag (4)    38: Data Source Tagged Offset (8)
 * </pre>
 * ULPDU_Length of a Read Request is 46, its FPDU 52 bytes.
 */
public final class Rdmap {
    /** RDMAP control byte: the version bits for RDMAP version 1. */
    public static final int VERSION_BITS = 0x40;
    public static final int VERSION_MASK = 0xC0;
    public static final int RESERVED_MASK = 0x30;
    public static final int OPCODE_MASK = 0x0F;

    public static final int WRITE = 0;
    public static final int READ_REQUEST = 1;
    public static final int READ_RESPONSE = 2;
    public static final int SEND = 3;
    public static final int SEND_INVALIDATE = 4;
    public static final int SEND_SE = 5;
    public static final int SEND_SE_INVALIDATE = 6;
    public static final int TERMINATE = 7;

    public static final int READ_REQUEST_BODY_LENGTH = 28;
    public static final int OFFSET_SINK_STAG = 18;
    public static final int OFFSET_SINK_TO = 22;
    public static final int OFFSET_READ_SIZE = 30;
    public static final int OFFSET_SOURCE_STAG = 34;
    public static final int OFFSET_SOURCE_TO = 38;
    /** ULPDU_Length of a Read Request. */
    public static final int READ_REQUEST_ULPDU_LENGTH = Ddp.UNTAGGED_HEADER_LENGTH + READ_REQUEST_BODY_LENGTH;

    private Rdmap() {
    }

    /** Writes a Read Request body at {@code index} (absolute; the first byte of the ULPDU). */
    public static void putReadRequestBody(java.nio.ByteBuffer dst, int index, int sinkStag, long sinkTo, int size,
                                          int sourceStag, long sourceTo) {
        dst.putInt(index + OFFSET_SINK_STAG, sinkStag);
        dst.putLong(index + OFFSET_SINK_TO, sinkTo);
        dst.putInt(index + OFFSET_READ_SIZE, size);
        dst.putInt(index + OFFSET_SOURCE_STAG, sourceStag);
        dst.putLong(index + OFFSET_SOURCE_TO, sourceTo);
    }

    /** The RDMAP control byte for an opcode. */
    public static int control(int opcode) {
        return VERSION_BITS | opcode;
    }

    /** Whether the opcode travels in tagged segments (Write, Read Response). */
    public static boolean tagged(int opcode) {
        return opcode == WRITE || opcode == READ_RESPONSE;
    }

    /** Whether the opcode is one of the four Sends. */
    public static boolean isSend(int opcode) {
        return opcode >= SEND && opcode <= SEND_SE_INVALIDATE;
    }

    /** Whether the opcode is a Send with Invalidate (with or without Solicited Event). */
    public static boolean invalidates(int opcode) {
        return opcode == SEND_INVALIDATE || opcode == SEND_SE_INVALIDATE;
    }

    /** The DDP queue number of an untagged opcode, or -1 for a tagged or unknown one. */
    public static int queueNumber(int opcode) {
        if (isSend(opcode)) {
            return Ddp.QN_SEND;
        }
        if (opcode == READ_REQUEST) {
            return Ddp.QN_READ_REQUEST;
        }
        if (opcode == TERMINATE) {
            return Ddp.QN_TERMINATE;
        }
        return -1;
    }

    public static String name(int opcode) {
        return switch (opcode) {
            case WRITE -> "RDMA Write";
            case READ_REQUEST -> "RDMA Read Request";
            case READ_RESPONSE -> "RDMA Read Response";
            case SEND -> "Send";
            case SEND_INVALIDATE -> "Send with Invalidate";
            case SEND_SE -> "Send with Solicited Event";
            case SEND_SE_INVALIDATE -> "Send with Solicited Event and Invalidate";
            case TERMINATE -> "Terminate";
            default -> "opcode " + opcode;
        };
    }
}
