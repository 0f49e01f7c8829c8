package org.rpcrdma4j.nfs.server;

import java.nio.ByteBuffer;

/**
 * Memory that READ data is read into and then sent from, without a copy in between. Owned by the READ in flight:
 * the server releases it once the reply has been sent (or could not be).
 */
public interface ReadBuffer {

    /** The memory: position 0, limit = the length asked for. The VFS reads into it; the reply then borrows it. */
    ByteBuffer buffer();

    /** Returns the memory to its owner. Called exactly once. */
    void release();
}
