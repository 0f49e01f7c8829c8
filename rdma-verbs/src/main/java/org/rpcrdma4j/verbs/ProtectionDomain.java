package org.rpcrdma4j.verbs;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * A protection domain: memory regions and queue pairs of one domain can only be used together. A tagged access by a
 * QP of another domain fails with a protection error.
 */
public interface ProtectionDomain extends AutoCloseable {

    RdmaDevice device();

    /**
     * Registers a direct buffer synchronously (from its position to its limit). Slow; for buffers registered once.
     *
     * @param access {@link Access} flags
     */
    RegisteredMemory registerMemory(ByteBuffer buffer, int access) throws VerbsException;

    /** Allocates an invalid fast-register MR able to map {@code maxPages} pages ({@link DeviceCapability#FAST_REG}). */
    FastRegMemoryRegion allocFastRegMr(int maxPages) throws VerbsException;

    /** Allocates an unmapped FMR ({@link DeviceCapability#FMR}). */
    Fmr allocFmr(int maxPages, int access) throws VerbsException;

    /**
     * Unmaps a batch of FMRs synchronously: on return none of their keys is usable. Unmapped regions in the batch are
     * ignored.
     */
    void unmapFmrs(List<? extends Fmr> fmrs) throws VerbsException;

    /** Creates a reliable-connected queue pair, unconnected; receives may be posted before it connects. */
    QueuePair createQueuePair(QueuePairConfig config) throws VerbsException;

    /** Deallocates the domain. Fails while it still has open regions or queue pairs. */
    @Override
    void close() throws VerbsException;
}
