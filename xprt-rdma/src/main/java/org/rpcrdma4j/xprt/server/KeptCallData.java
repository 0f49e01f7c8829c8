package org.rpcrdma4j.xprt.server;

import java.nio.ByteBuffer;

/**
 * Bytes of a call's arguments that a program keeps past its reply, in the registered memory the server pulled the
 * call's read chunk into ({@link RdmaBufferAllocator#keep}): an NFS WRITE's data becomes a file's block where it
 * landed, instead of being copied out of the call. The client can no longer reach this memory: every handle the
 * server exposed over it was invalidated before the call was dispatched.
 * <p>
 * Ownership: the program owns it from {@code keep} and gives it back with {@link #release()} exactly once, whenever
 * it no longer needs the bytes (the call's other memory goes back as usual once the reply is sent).
 */
public interface KeptCallData {

    /** The kept bytes: position 0, limit = capacity = the length kept, direct. The same view on every call. */
    ByteBuffer buffer();

    /** Gives the memory back. Further calls do nothing. */
    void release();
}
