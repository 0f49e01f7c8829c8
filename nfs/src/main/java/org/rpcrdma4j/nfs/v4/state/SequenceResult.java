package org.rpcrdma4j.nfs.v4.state;

/**
 * The result of SEQUENCE (RFC 8881 section 18.46.2) for the COMPOUND server: the session the COMPOUND runs in, the
 * slot's verdict, and the values of {@code SEQUENCE4resok}.
 *
 * @param session             the session; its {@link Session#clientId()} is the COMPOUND's client
 * @param verdict             EXECUTE the COMPOUND, or REPLAY the cached reply
 * @param highestSlotId       {@code sr_highest_slotid}
 * @param targetHighestSlotId {@code sr_target_highest_slotid}
 * @param statusFlags         {@code sr_status_flags}
 */
public record SequenceResult(Session session, SlotVerdict verdict, int highestSlotId, int targetHighestSlotId,
        int statusFlags) {
    /** No session of the client has a working back channel. */
    public static final int STATUS_CB_PATH_DOWN = 0x00000001;
    /** The server revoked a delegation of the client that it has not freed yet (FREE_STATEID). */
    public static final int STATUS_RECALLABLE_STATE_REVOKED = 0x00000040;
    /** This session has no working back channel. */
    public static final int STATUS_CB_PATH_DOWN_SESSION = 0x00000200;
}
