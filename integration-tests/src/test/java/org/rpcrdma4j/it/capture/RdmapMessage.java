package org.rpcrdma4j.it.capture;

/**
 * A whole RDMAP message (RFC 5040) reassembled from its DDP segments. {@link #frame()} is the capture frame after
 * which its receiver had all of it; {@link #index()} its position among the messages its sender sent (the order on
 * the wire, by completing segment).
 */
public sealed interface RdmapMessage {
    int WRITE = 0;
    int READ_REQUEST = 1;
    int READ_RESPONSE = 2;
    int SEND = 3;
    int SEND_INVALIDATE = 4;
    int SEND_SOLICITED = 5;
    int SEND_SOLICITED_INVALIDATE = 6;
    int TERMINATE = 7;

    /** Untagged queue numbers (RFC 5040 section 5.1). */
    int QN_SEND = 0;
    int QN_READ_REQUEST = 1;
    int QN_TERMINATE = 2;

    int frame();

    int index();

    int opcode();

    /** @return a short name of an RDMAP opcode, for reports */
    static String opcodeName(int opcode) {
        return switch (opcode) {
            case WRITE -> "RDMA_WRITE";
            case READ_REQUEST -> "RDMA_READ_REQUEST";
            case READ_RESPONSE -> "RDMA_READ_RESPONSE";
            case SEND -> "SEND";
            case SEND_INVALIDATE -> "SEND_INV";
            case SEND_SOLICITED -> "SEND_SE";
            case SEND_SOLICITED_INVALIDATE -> "SEND_SE_INV";
            case TERMINATE -> "TERMINATE";
            default -> "OPCODE_" + opcode;
        };
    }

    /**
     * A Send, Send with Invalidate, Send with Solicited Event, or Send with SE and Invalidate: an untagged message on
     * queue 0.
     *
     * @param invalidateStag the STag to invalidate (opcodes 4 and 6), else the RsvdULP word
     * @param msn            its message sequence number
     * @param payload        the message, owned by the record
     * @param segments       how many DDP segments carried it
     */
    record Send(int frame, int index, int opcode, int invalidateStag, long msn, byte[] payload, int segments)
            implements RdmapMessage {
        public boolean invalidates() {
            return opcode == SEND_INVALIDATE || opcode == SEND_SOLICITED_INVALIDATE;
        }
    }

    /**
     * An RDMA Write or RDMA Read Response: data placed at {@code [taggedOffset, taggedOffset + payload.length)} of the
     * receiver's buffer named by {@code stag}.
     *
     * @param payload  the data, owned by the record
     * @param segments how many DDP segments carried it
     */
    record Tagged(int frame, int index, int opcode, int stag, long taggedOffset, byte[] payload, int segments)
            implements RdmapMessage {
    }

    /**
     * An RDMA Read Request: "send me {@code size} bytes of your {@code [sourceStag, sourceOffset]} into my
     * {@code [sinkStag, sinkOffset]}", answered by a Read Response to the sink.
     */
    record ReadRequest(int frame, int index, long msn, int sinkStag, long sinkOffset, long size, int sourceStag,
                       long sourceOffset) implements RdmapMessage {
        /** The body's length after the untagged header (RFC 5040 section 4.4). */
        static final int LENGTH = 28;

        @Override
        public int opcode() {
            return READ_REQUEST;
        }
    }

    /** A Terminate message; {@code body} is everything after the untagged header, owned by the record. */
    record Terminate(int frame, int index, byte[] body) implements RdmapMessage {
        @Override
        public int opcode() {
            return TERMINATE;
        }
    }
}
