package org.rpcrdma4j.verbs;

/**
 * A memory region: a range of memory the device may access under an STag, within one protection domain.
 * <p>
 * Addresses are I/O virtual addresses (IOVA): the tagged offset a peer names in an RDMA operation, and the address an
 * SGE names locally, both lie in {@code [iova(), iova() + length())}.
 * <p>
 * Thread safety: the getters may be called from any thread; state changes happen through verbs and work requests.
 */
public interface MemoryRegion extends AutoCloseable {

    ProtectionDomain protectionDomain();

    /** The key local work requests use in their SGEs. On iWARP it equals {@link #rkey()}. */
    int lkey();

    /** The key a peer uses (the STag). For a fast-register MR this changes with every REG_MR. */
    int rkey();

    /** First IOVA of the region. */
    long iova();

    /** Length of the region in bytes (0 for an invalid fast-register MR). */
    long length();

    /** The {@link Access} flags currently granted. */
    int access();

    MrState state();

    /** Deregisters the region. Further use of its keys fails. Idempotent. */
    @Override
    void close();
}
