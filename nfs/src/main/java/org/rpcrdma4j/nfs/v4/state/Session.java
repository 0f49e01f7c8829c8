package org.rpcrdma4j.nfs.v4.state;

/**
 * One NFSv4.1 session (RFC 8881 section 2.10): its id, its client, what CREATE_SESSION agreed, and the fore channel's
 * {@link SlotTable}. Made and destroyed by the {@link ClientTable}; its back channel state is guarded by the table's
 * lock, the slots by their own.
 */
public final class Session {
    private final SessionId id;
    private final long clientId;
    private final int flags;
    private final ChannelAttributes fore;
    private final ChannelAttributes back;
    private final int callbackProgram;
    private final SlotTable slots;

    /** A back channel was asked for (CONN_BACK_CHAN) or bound later; guarded by the table's lock. */
    boolean backChannel;
    /** The COMPOUND server reported the back channel unusable; guarded by the table's lock. */
    boolean backChannelDown;
    private volatile boolean destroyed;

    /** Whether a back channel was asked for and is not known to be down; guarded by the table's lock. */
    boolean backChannelWorks() {
        return backChannel && !backChannelDown;
    }
    /** The reply cache memory the session reserved when it was made; given back when it goes. */
    final long replyCacheBytes;

    Session(SessionId id, long clientId, int flags, ChannelAttributes fore, ChannelAttributes back,
            int callbackProgram, long replyCacheBytes) {
        this.id = id;
        this.clientId = clientId;
        this.flags = flags;
        this.fore = fore;
        this.back = back;
        this.callbackProgram = callbackProgram;
        this.replyCacheBytes = replyCacheBytes;
        this.slots = new SlotTable(fore.maxRequests());
        this.backChannel = (flags & CreateSessionResult.FLAG_CONN_BACK_CHAN) != 0;
    }

    public SessionId id() {
        return id;
    }

    /** The client ID the session belongs to. */
    public long clientId() {
        return clientId;
    }

    /** {@code csr_flags}. */
    public int flags() {
        return flags;
    }

    public ChannelAttributes fore() {
        return fore;
    }

    public ChannelAttributes back() {
        return back;
    }

    /** {@code csa_cb_program}. */
    public int callbackProgram() {
        return callbackProgram;
    }

    /** The fore channel's slots and reply cache. */
    public SlotTable slots() {
        return slots;
    }

    /** Whether the session was destroyed, explicitly or with its client (requests still executing may see this). */
    public boolean destroyed() {
        return destroyed;
    }

    void markDestroyed() {
        destroyed = true;
    }

    @Override
    public String toString() {
        return id + " of client " + Long.toHexString(clientId);
    }
}
