package org.rpcrdma4j.registration;

/**
 * Why memory is exposed: the role a registered range plays in one RPC (RFC 8166 chunk types, plus the server's own
 * RDMA READ sink). Together with the device's {@link org.rpcrdma4j.verbs.TransportType} it decides the access rights
 * ({@link AccessFlags#of}).
 */
public enum ChunkRole {
    /** A Requester's Read chunk segment: the Responder pulls it with RDMA READ. */
    READ_CHUNK_SOURCE,
    /** A Requester's Write chunk segment: the Responder pushes a DDP-eligible result into it with RDMA WRITE. */
    WRITE_CHUNK_SINK,
    /** A Requester's Reply chunk segment: the Responder writes its whole Reply into it with RDMA WRITE. */
    REPLY_CHUNK_SINK,
    /**
     * A Responder's own memory that receives the bytes of a Requester's Read chunk (the sink of the Responder's RDMA
     * READ). Not advertised to the peer; on iWARP the device still needs a remotely writable STag for it.
     */
    RDMA_READ_SINK
}
