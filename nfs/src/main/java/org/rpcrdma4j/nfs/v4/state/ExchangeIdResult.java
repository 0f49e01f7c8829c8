package org.rpcrdma4j.nfs.v4.state;

/**
 * The result of EXCHANGE_ID (RFC 8881 section 18.35.2).
 *
 * @param clientId   {@code eir_clientid}
 * @param sequenceId {@code eir_sequenceid}: the {@code csa_sequence} the client's next CREATE_SESSION must carry
 * @param flags      {@code eir_flags}: {@link #FLAG_USE_NON_PNFS}, and {@link #FLAG_CONFIRMED_R} when the client ID is
 *                   confirmed
 */
public record ExchangeIdResult(long clientId, int sequenceId, int flags) {
    public static final int FLAG_SUPP_MOVED_REFER = 0x00000001;
    public static final int FLAG_SUPP_MOVED_MIGR = 0x00000002;
    public static final int FLAG_SUPP_FENCE_OPS = 0x00000004;
    public static final int FLAG_BIND_PRINC_STATEID = 0x00000100;
    public static final int FLAG_USE_NON_PNFS = 0x00010000;
    public static final int FLAG_USE_PNFS_MDS = 0x00020000;
    public static final int FLAG_USE_PNFS_DS = 0x00040000;
    /** In the arguments: update the confirmed record (cases 6 to 9 of section 18.35.5). */
    public static final int FLAG_UPD_CONFIRMED_REC_A = 0x40000000;
    /** In the result: the client ID is confirmed. */
    public static final int FLAG_CONFIRMED_R = 0x80000000;

    /** The flags a client may send ({@code EXCHGID4_FLAG_MASK_A}). */
    static final int ARGUMENT_FLAGS = FLAG_SUPP_MOVED_REFER | FLAG_SUPP_MOVED_MIGR | FLAG_SUPP_FENCE_OPS
            | FLAG_BIND_PRINC_STATEID | FLAG_USE_NON_PNFS | FLAG_USE_PNFS_MDS | FLAG_USE_PNFS_DS
            | FLAG_UPD_CONFIRMED_REC_A;

    public boolean confirmed() {
        return (flags & FLAG_CONFIRMED_R) != 0;
    }
}
