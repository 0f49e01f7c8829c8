package org.rpcrdma4j.xprt.internal;

import io.netty.buffer.ByteBuf;

/**
 * Writes the ONC RPC replies (RFC 5531) a transport sends on its own, without oncrpc4j: the answers to calls that
 * {@link CallScreen} refused, and SYSTEM_ERR when a call could not be dispatched or its reply could not be sent. Accepted replies carry an
 * AUTH_NONE verifier. Stateless, allocation-free; every method writes at an absolute index and returns the length.
 * <pre>
 * accepted: xid | REPLY 1 | MSG_ACCEPTED 0 | verf AUTH_NONE {0, 0} | accept_stat [| low | high for PROG_MISMATCH]
 * denied:   xid | REPLY 1 | MSG_DENIED 1 | RPC_MISMATCH 0 | low | high
 *           xid | REPLY 1 | MSG_DENIED 1 | AUTH_ERROR 1 | auth_stat
 * </pre>
 */
public final class RpcReplies {
    public static final int RPC_MISMATCH = 0;
    public static final int AUTH_ERROR = 1;
    public static final int PROG_UNAVAIL = 1;
    public static final int PROG_MISMATCH = 2;
    public static final int GARBAGE_ARGS = 4;
    public static final int SYSTEM_ERR = 5;

    /** The longest reply written here. */
    public static final int MAX_LENGTH = 32;

    private RpcReplies() {
    }

    /** An accepted reply with {@code acceptStat} and no results (PROG_UNAVAIL, SYSTEM_ERR, ...). @return 24 */
    public static int accepted(ByteBuf out, int index, int xid, int acceptStat) {
        out.setInt(index, xid);
        out.setInt(index + 4, RpcHeader.REPLY);
        out.setInt(index + 8, RpcHeader.MSG_ACCEPTED);
        out.setInt(index + 12, 0);
        out.setInt(index + 16, 0);
        out.setInt(index + 20, acceptStat);
        return 24;
    }

    /** MSG_ACCEPTED / PROG_MISMATCH with the supported versions. @return 32 */
    public static int progMismatch(ByteBuf out, int index, int xid, int low, int high) {
        accepted(out, index, xid, PROG_MISMATCH);
        out.setInt(index + 24, low);
        out.setInt(index + 28, high);
        return 32;
    }

    /** MSG_DENIED / RPC_MISMATCH (2, 2). @return 24 */
    public static int rpcMismatch(ByteBuf out, int index, int xid) {
        out.setInt(index, xid);
        out.setInt(index + 4, RpcHeader.REPLY);
        out.setInt(index + 8, RpcHeader.MSG_DENIED);
        out.setInt(index + 12, RPC_MISMATCH);
        out.setInt(index + 16, RpcHeader.RPC_VERSION);
        out.setInt(index + 20, RpcHeader.RPC_VERSION);
        return 24;
    }

    /** MSG_DENIED / AUTH_ERROR with {@code authStat}. @return 20 */
    public static int authError(ByteBuf out, int index, int xid, int authStat) {
        out.setInt(index, xid);
        out.setInt(index + 4, RpcHeader.REPLY);
        out.setInt(index + 8, RpcHeader.MSG_DENIED);
        out.setInt(index + 12, AUTH_ERROR);
        out.setInt(index + 16, authStat);
        return 20;
    }
}
