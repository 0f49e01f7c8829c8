package org.rpcrdma4j.verbs;

/** The link and transport family of an RDMA device. It decides, for example, which access rights an RDMA READ sink needs. */
public enum TransportType {
    /** InfiniBand. */
    IB,
    /** RDMA over Converged Ethernet (v1 or v2). */
    ROCE,
    /** iWARP: RDMAP over DDP over MPA over TCP (RFC 5040/5041/5044). */
    IWARP
}
