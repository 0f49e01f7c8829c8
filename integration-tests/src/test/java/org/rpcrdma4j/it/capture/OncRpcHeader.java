package org.rpcrdma4j.it.capture;

import java.nio.ByteBuffer;

/**
 * The ONC RPC message header (RFC 5531 section 9) in front of a call's arguments or a reply's results: enough to
 * find the procedure and where its body starts.
 *
 * @param xid        transaction id
 * @param call       true for a CALL, false for a REPLY
 * @param program    call: program number; reply: -1
 * @param version    call: program version; reply: -1
 * @param procedure  call: procedure number; reply: -1
 * @param replyStat  reply: MSG_ACCEPTED 0 or MSG_DENIED 1; call: -1
 * @param acceptStat reply accepted: SUCCESS 0, ...; otherwise -1
 * @param bodyOffset call: offset of the first argument (after the verifier); accepted reply: offset of the first
 *                   result (after accept_stat); denied reply: the length of what was parsed
 */
public record OncRpcHeader(int xid, boolean call, int program, int version, int procedure, int replyStat,
                           int acceptStat, int bodyOffset) {
    public static final int CALL = 0;
    public static final int REPLY = 1;
    public static final int MSG_ACCEPTED = 0;
    public static final int SUCCESS = 0;
    /** RFC 5531: opaque_auth bodies are at most 400 bytes. */
    private static final int MAX_AUTH_BODY = 400;

    /** @return whether this is a reply whose results follow (MSG_ACCEPTED, SUCCESS) */
    public boolean successfulReply() {
        return !call && replyStat == MSG_ACCEPTED && acceptStat == SUCCESS;
    }

    /**
     * Parses the header at the start of {@code message}.
     *
     * @throws CaptureFormatException when it is truncated or not an RPC version 2 message
     */
    public static OncRpcHeader parse(byte[] message) throws CaptureFormatException {
        ByteBuffer b = ByteBuffer.wrap(message);
        int xid = word(b, 0);
        int type = word(b, 4);
        if (type == CALL) {
            if (word(b, 8) != 2) {
                throw new CaptureFormatException("RPC call with rpcvers " + word(b, 8));
            }
            int program = word(b, 12);
            int version = word(b, 16);
            int procedure = word(b, 20);
            int at = skipAuth(b, 24); // credential
            at = skipAuth(b, at); // verifier
            return new OncRpcHeader(xid, true, program, version, procedure, -1, -1, at);
        }
        if (type == REPLY) {
            int replyStat = word(b, 8);
            if (replyStat != MSG_ACCEPTED) {
                return new OncRpcHeader(xid, false, -1, -1, -1, replyStat, -1, 12);
            }
            int at = skipAuth(b, 12);
            int acceptStat = word(b, at);
            return new OncRpcHeader(xid, false, -1, -1, -1, replyStat, acceptStat, at + 4);
        }
        throw new CaptureFormatException("RPC message type " + type);
    }

    private static int word(ByteBuffer b, int at) throws CaptureFormatException {
        if (at < 0 || b.limit() - at < 4) {
            throw new CaptureFormatException("RPC header truncated at byte " + at + " of " + b.limit());
        }
        return b.getInt(at);
    }

    private static int skipAuth(ByteBuffer b, int at) throws CaptureFormatException {
        word(b, at); // flavor
        long length = Integer.toUnsignedLong(word(b, at + 4));
        if (length > MAX_AUTH_BODY) {
            throw new CaptureFormatException("RPC opaque_auth of " + length + " bytes");
        }
        int end = at + 8 + (int) ((length + 3) & ~3L);
        if (end > b.limit()) {
            throw new CaptureFormatException("RPC opaque_auth truncated");
        }
        return end;
    }
}
