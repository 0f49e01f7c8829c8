package org.rpcrdma4j.registration;

import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.TransportType;

/**
 * The one place that decides which {@link Access} rights a registration gets.
 * <table>
 * <caption>access rights per role and transport</caption>
 * <tr><th>role</th><th>IB, RoCE</th><th>iWARP</th></tr>
 * <tr><td>READ_CHUNK_SOURCE</td><td>REMOTE_READ</td><td>REMOTE_READ</td></tr>
 * <tr><td>WRITE_CHUNK_SINK</td><td>REMOTE_WRITE | LOCAL_WRITE</td><td>REMOTE_WRITE | LOCAL_WRITE</td></tr>
 * <tr><td>REPLY_CHUNK_SINK</td><td>REMOTE_WRITE | LOCAL_WRITE</td><td>REMOTE_WRITE | LOCAL_WRITE</td></tr>
 * <tr><td>RDMA_READ_SINK</td><td>LOCAL_WRITE</td><td>LOCAL_WRITE | REMOTE_WRITE</td></tr>
 * </table>
 * On iWARP the data of an RDMA READ response arrives as tagged DDP segments addressed to the sink's STag, so the
 * sink must be remotely writable (RFC 5040 §4.4; Linux {@code rdma_rw} registers iWARP read sinks for this reason).
 * Such a right must never sit on a long-lived STag: a sink with a remote right is always a per-I/O handle,
 * invalidated after the read ({@link #needsHandle}).
 */
public final class AccessFlags {
    private AccessFlags() {
    }

    /** The access rights for memory in {@code role} on a device of {@code transport}. */
    public static int of(TransportType transport, ChunkRole role) {
        switch (role) {
            case READ_CHUNK_SOURCE:
                return Access.REMOTE_READ;
            case WRITE_CHUNK_SINK:
            case REPLY_CHUNK_SINK:
                return Access.REMOTE_WRITE | Access.LOCAL_WRITE;
            case RDMA_READ_SINK:
                return transport == TransportType.IWARP
                        ? Access.LOCAL_WRITE | Access.REMOTE_WRITE
                        : Access.LOCAL_WRITE;
            default:
                throw new IllegalArgumentException("unknown role " + role);
        }
    }

    /**
     * Whether {@code role} on {@code transport} needs a per-I/O registration handle. Only rights a peer can exercise
     * (REMOTE_READ, REMOTE_WRITE) need one; a purely local right is already granted by the lkey of the registered
     * buffer arenas (which are registered with LOCAL_WRITE).
     */
    public static boolean needsHandle(TransportType transport, ChunkRole role) {
        return (of(transport, role) & (Access.REMOTE_READ | Access.REMOTE_WRITE)) != 0;
    }
}
