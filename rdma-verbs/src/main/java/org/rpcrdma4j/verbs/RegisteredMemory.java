package org.rpcrdma4j.verbs;

import java.nio.ByteBuffer;

/**
 * Memory registered synchronously with {@link ProtectionDomain#registerMemory}: a direct buffer the device may reach
 * under this region's keys for as long as the region is open.
 */
public interface RegisteredMemory extends MemoryRegion {

    /**
     * A view of the registered memory (position 0, limit = capacity = {@link #length()}); each call returns a new
     * independent view over the same bytes. Not for the hot path.
     */
    ByteBuffer buffer();

    /** The IOVA of the byte at {@code offset} within the region. */
    default long address(long offset) {
        if (offset < 0 || offset > length()) {
            throw new IndexOutOfBoundsException("offset " + offset + " outside region of " + length() + " bytes");
        }
        return iova() + offset;
    }
}
