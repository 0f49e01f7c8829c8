package org.rpcrdma4j.xprt.internal;

import io.netty.buffer.ByteBuf;

/**
 * Checks an ONC RPC call (RFC 5531) before oncrpc4j decodes it, and finds its program. Reusable, one per call slot;
 * allocates nothing.
 * <p>
 * oncrpc4j's credential decoders allocate lengths read from the wire before checking them (AUTH_SYS machine name and
 * gid list through {@code Xdr.xdrDecodeString} / {@code xdrDecodeIntVector}, opaque bodies through
 * {@code xdrDecodeDynamicOpaque}), so one hostile credential could make it attempt a 2 GiB allocation. A call reaches
 * {@code RpcCall.accept()} only after this screen has proven that everything accept() reads is within bounds:
 * <ul>
 *   <li>message type CALL (a REPLY is dropped: reverse-direction replies are told apart before the screen);</li>
 *   <li>ONC RPC version 2, else MSG_DENIED / RPC_MISMATCH (2, 2);</li>
 *   <li>credential body at most 400 bytes and present, else AUTH_ERROR / AUTH_BADCRED; verifier likewise, else
 *       AUTH_BADVERF;</li>
 *   <li>flavor AUTH_NONE, or AUTH_SYS whose body is exactly {@code stamp, machinename<255>, uid, gid, gids<16>}
 *       (else AUTH_BADCRED). Every other flavor, RPCSEC_GSS (6) and AUTH_TLS (7) included, is answered
 *       AUTH_BADCRED: this server has no authenticator for them, which is what Linux answers for a flavor it does
 *       not know;</li>
 *   <li>then the program: unknown program PROG_UNAVAIL, known program but unknown version PROG_MISMATCH with the
 *       lowest and highest registered versions.</li>
 * </ul>
 * A message too short to hold a call header up to the credential is dropped (there is nothing sensible to answer).
 */
public final class CallScreen {

    /** What to do with the call. */
    public enum Verdict {
        /** Dispatch it. */
        DISPATCH,
        /** Drop it without an answer (not a call, or too short to be one). */
        DROP,
        /** A REPLY where a call was expected (a reverse-direction reply reaches its own path before any screen). */
        DROP_BACKCHANNEL_REPLY,
        /** MSG_DENIED / RPC_MISMATCH. */
        RPC_MISMATCH,
        /** MSG_DENIED / AUTH_ERROR with {@link CallScreen#authStat()}. */
        AUTH_ERROR,
        /** MSG_ACCEPTED / PROG_UNAVAIL. */
        PROG_UNAVAIL,
        /** MSG_ACCEPTED / PROG_MISMATCH with {@link CallScreen#lowVersion()}..{@link CallScreen#highVersion()}. */
        PROG_MISMATCH
    }

    public static final int AUTH_NONE = 0;
    public static final int AUTH_SYS = 1;
    /** RFC 5531 authsys_parms: machinename is string&lt;255&gt;. */
    static final int MAX_MACHINE_NAME = 255;
    /** RFC 5531 authsys_parms: gids is unsigned int&lt;16&gt;. */
    static final int MAX_GIDS = 16;

    public static final int AUTH_BADCRED = 1;
    public static final int AUTH_BADVERF = 3;

    private Verdict verdict;
    private int xid;
    private int program;
    private int version;
    private int procedure;
    private int credentialFlavor;
    private int authStat;
    private int lowVersion;
    private int highVersion;
    private int argumentsOffset;
    private ProgramTable.Entry entry;

    /**
     * Screens the call in {@code buf[from, to)}.
     *
     * @param buf      borrowed; indices untouched
     * @param programs the server's programs
     * @return the verdict (also {@link #verdict()})
     */
    public Verdict screen(ByteBuf buf, int from, int to, ProgramTable programs) {
        entry = null;
        xid = program = version = procedure = credentialFlavor = authStat = 0;
        lowVersion = highVersion = 0;
        argumentsOffset = -1;
        int length = to - from;
        if (length < 8) {
            return verdict = Verdict.DROP;
        }
        xid = buf.getInt(from);
        int msgType = buf.getInt(from + 4);
        if (msgType == RpcHeader.REPLY) {
            return verdict = Verdict.DROP_BACKCHANNEL_REPLY;
        }
        if (msgType != RpcHeader.CALL || length < 12) {
            return verdict = Verdict.DROP;
        }
        if (buf.getInt(from + 8) != RpcHeader.RPC_VERSION) {
            return verdict = Verdict.RPC_MISMATCH;
        }
        // prog, vers, proc, cred flavor, cred length
        if (length < 32) {
            return verdict = Verdict.DROP;
        }
        program = buf.getInt(from + 12);
        version = buf.getInt(from + 16);
        procedure = buf.getInt(from + 20);
        credentialFlavor = buf.getInt(from + 24);
        int p = 28;
        long credLength = buf.getUnsignedInt(from + p);
        p += 4;
        long credPadded = (credLength + 3) & ~3L;
        if (credLength > RpcHeader.MAX_AUTH_BYTES || credPadded > length - p) {
            return authError(AUTH_BADCRED);
        }
        int credBody = p;
        p += (int) credPadded;
        // verifier: flavor, length, body
        if (length - p < 8) {
            return authError(AUTH_BADVERF);
        }
        long verfLength = buf.getUnsignedInt(from + p + 4);
        p += 8;
        long verfPadded = (verfLength + 3) & ~3L;
        if (verfLength > RpcHeader.MAX_AUTH_BYTES || verfPadded > length - p) {
            return authError(AUTH_BADVERF);
        }
        p += (int) verfPadded;
        argumentsOffset = p;
        if (credentialFlavor == AUTH_SYS) {
            if (!authSysBodyValid(buf, from + credBody, (int) credLength)) {
                return authError(AUTH_BADCRED);
            }
        } else if (credentialFlavor != AUTH_NONE) {
            return authError(AUTH_BADCRED);
        }
        ProgramTable.Entry found = programs.find(program, version);
        if (found != null) {
            entry = found;
            return verdict = Verdict.DISPATCH;
        }
        if (!programs.hasProgram(program)) {
            return verdict = Verdict.PROG_UNAVAIL;
        }
        lowVersion = programs.lowestVersion(program);
        highVersion = programs.highestVersion(program);
        return verdict = Verdict.PROG_MISMATCH;
    }

    /**
     * Whether an AUTH_SYS body of {@code length} bytes at {@code at} is exactly
     * {@code stamp, machinename<255>, uid, gid, gids<16>}: every length checked against what remains of the body,
     * nothing left over (oncrpc4j ignores the body length and reads the fields from the stream, so a body that says
     * less than its fields would make it read the verifier as credential).
     */
    public static boolean authSysBodyValid(ByteBuf buf, int at, int length) {
        int p = 0;
        if (length - p < 8) {
            return false;
        }
        p += 4; // stamp
        long nameLength = buf.getUnsignedInt(at + p);
        p += 4;
        long namePadded = (nameLength + 3) & ~3L;
        if (nameLength > MAX_MACHINE_NAME || namePadded > length - p) {
            return false;
        }
        p += (int) namePadded;
        if (length - p < 12) {
            return false;
        }
        p += 8; // uid, gid
        long gids = buf.getUnsignedInt(at + p);
        p += 4;
        if (gids > MAX_GIDS || gids * 4 > length - p) {
            return false;
        }
        p += (int) gids * 4;
        return p == length;
    }

    /**
     * Writes, at {@code out[index]}, the reply to a call refused by the last {@link #screen}: MSG_DENIED for
     * RPC_MISMATCH and AUTH_ERROR, MSG_ACCEPTED for PROG_UNAVAIL and PROG_MISMATCH.
     *
     * @return the reply's length (at most {@link RpcReplies#MAX_LENGTH}), or -1 for a verdict that gets no reply
     */
    public int writeRefusal(ByteBuf out, int index) {
        return switch (verdict) {
            case RPC_MISMATCH -> RpcReplies.rpcMismatch(out, index, xid);
            case AUTH_ERROR -> RpcReplies.authError(out, index, xid, authStat);
            case PROG_UNAVAIL -> RpcReplies.accepted(out, index, xid, RpcReplies.PROG_UNAVAIL);
            case PROG_MISMATCH -> RpcReplies.progMismatch(out, index, xid, lowVersion, highVersion);
            default -> -1;
        };
    }

    private Verdict authError(int stat) {
        authStat = stat;
        return verdict = Verdict.AUTH_ERROR;
    }

    public Verdict verdict() {
        return verdict;
    }

    public int xid() {
        return xid;
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

    /** For {@link Verdict#AUTH_ERROR}: AUTH_BADCRED or AUTH_BADVERF. */
    public int authStat() {
        return authStat;
    }

    public int lowVersion() {
        return lowVersion;
    }

    public int highVersion() {
        return highVersion;
    }

    /** Offset, from the start of the message, of the procedure's arguments; -1 when the header did not parse. */
    public int argumentsOffset() {
        return argumentsOffset;
    }

    /** For {@link Verdict#DISPATCH}: the program to dispatch to. */
    public ProgramTable.Entry entry() {
        return entry;
    }
}
