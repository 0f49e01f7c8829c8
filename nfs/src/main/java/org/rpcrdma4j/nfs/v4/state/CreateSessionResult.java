package org.rpcrdma4j.nfs.v4.state;

/**
 * The result of CREATE_SESSION (RFC 8881 section 18.36.2). A replayed CREATE_SESSION returns the very same result.
 *
 * @param sessionId {@code csr_sessionid}
 * @param sequence  {@code csr_sequence}: the request's {@code csa_sequence}
 * @param flags     {@code csr_flags}: {@link #FLAG_CONN_BACK_CHAN} if the client asked for it; never
 *                  {@link #FLAG_PERSIST} or {@link #FLAG_CONN_RDMA}
 * @param fore      {@code csr_fore_chan_attrs}, as negotiated
 * @param back      {@code csr_back_chan_attrs}, as negotiated
 */
public record CreateSessionResult(SessionId sessionId, int sequence, int flags, ChannelAttributes fore,
        ChannelAttributes back) {
    /** The reply cache survives a server restart: not offered. */
    public static final int FLAG_PERSIST = 0x1;
    /** The back channel runs on the connection of the CREATE_SESSION. */
    public static final int FLAG_CONN_BACK_CHAN = 0x2;
    /** Switch the connection to RDMA mode: not offered (RPC-over-RDMA connections are RDMA from the start). */
    public static final int FLAG_CONN_RDMA = 0x4;

    static final int ARGUMENT_FLAGS = FLAG_PERSIST | FLAG_CONN_BACK_CHAN | FLAG_CONN_RDMA;
}
