package org.rpcrdma4j.xprt.internal;

import io.netty.buffer.ByteBuf;
import org.rpcrdma4j.xprt.XdrCursor;
import org.rpcrdma4j.xprt.XdrFormatException;

/**
 * The parts of an ONC RPC message header (RFC 5531) the transports look at, read in place. Reusable, one per
 * receive or request context; never allocates.
 * <pre>
 * call:  xid | CALL(0) | rpcvers(2) | prog | vers | proc | cred{flavor, opaque&lt;400&gt;} | verf{flavor, opaque&lt;400&gt;} | args...
 * reply: xid | REPLY(1) | MSG_ACCEPTED(0) | verf{flavor, opaque&lt;400&gt;} | accept_stat | results...
 *               | MSG_DENIED(1) | reject_stat | ...
 * </pre>
 */
public final class RpcHeader {
    public static final int CALL = 0;
    public static final int REPLY = 1;
    public static final int MSG_ACCEPTED = 0;
    public static final int MSG_DENIED = 1;
    public static final int SUCCESS = 0;
    public static final int RPC_VERSION = 2;
    /** RFC 5531: the body of an opaque_auth is at most 400 bytes. */
    public static final int MAX_AUTH_BYTES = 400;

    private final XdrCursor cursor = new XdrCursor();

    private int xid;
    private int msgType;
    private int program;
    private int version;
    private int procedure;
    private int credentialFlavor;
    private int credentialOffset;
    private int credentialLength;
    private int replyStat;
    private int acceptStat;
    private int bodyOffset;

    /**
     * Reads the header of the message in {@code buf[from, to)}. For a call, {@link #bodyOffset()} is where the
     * arguments begin; for an accepted reply, where the results (or the mismatch info) begin; for a denied reply, just
     * after the reply status.
     *
     * @throws XdrFormatException when the header is truncated or malformed
     */
    public RpcHeader parse(ByteBuf buf, int from, int to) throws XdrFormatException {
        XdrCursor c = cursor.wrap(buf, from, to);
        xid = c.readInt();
        msgType = c.readInt();
        program = version = procedure = credentialFlavor = 0;
        credentialOffset = credentialLength = 0;
        replyStat = acceptStat = -1;
        if (msgType == CALL) {
            int rpcvers = c.readInt();
            if (rpcvers != RPC_VERSION) {
                throw new XdrFormatException("RPC version " + rpcvers + ", expected 2", c.offset() - 4);
            }
            program = c.readInt();
            version = c.readInt();
            procedure = c.readInt();
            credentialFlavor = c.readInt();
            credentialOffset = c.offset();
            credentialLength = 4 + ((c.skipVariableOpaque(MAX_AUTH_BYTES) + 3) & ~3);
            c.readInt();
            c.skipVariableOpaque(MAX_AUTH_BYTES);
        } else if (msgType == REPLY) {
            replyStat = c.readInt();
            if (replyStat == MSG_ACCEPTED) {
                c.readInt();
                c.skipVariableOpaque(MAX_AUTH_BYTES);
                acceptStat = c.readInt();
            } else if (replyStat != MSG_DENIED) {
                throw new XdrFormatException("reply status " + replyStat, c.offset() - 4);
            }
        } else {
            throw new XdrFormatException("message type " + msgType, 4);
        }
        bodyOffset = c.offset();
        return this;
    }

    /** The xid of a message at {@code offset}, without parsing (the caller checked 4 bytes are there). */
    public static int peekXid(ByteBuf buf, int offset) {
        return buf.getInt(offset);
    }

    public int xid() {
        return xid;
    }

    public boolean isCall() {
        return msgType == CALL;
    }

    public boolean isReply() {
        return msgType == REPLY;
    }

    public int program() {
        return program;
    }

    public int version() {
        return version;
    }

    public int procedure() {
        return procedure;
    }

    public int credentialFlavor() {
        return credentialFlavor;
    }

    /** Offset (from the start of the message) of the credential body's length word. */
    public int credentialOffset() {
        return credentialOffset;
    }

    /** Bytes of the credential body including its length word and padding. */
    public int credentialLength() {
        return credentialLength;
    }

    /** For replies: MSG_ACCEPTED or MSG_DENIED. */
    public int replyStat() {
        return replyStat;
    }

    /** For accepted replies: the accept status (SUCCESS = 0); -1 otherwise. */
    public int acceptStat() {
        return acceptStat;
    }

    /** Whether this is a reply accepted with SUCCESS, i.e. followed by the procedure's results. */
    public boolean isSuccessfulReply() {
        return msgType == REPLY && replyStat == MSG_ACCEPTED && acceptStat == SUCCESS;
    }

    /** Offset from the start of the message of the arguments (call) or results (reply). */
    public int bodyOffset() {
        return bodyOffset;
    }
}
