package org.rpcrdma4j.xprt.internal;

import org.rpcrdma4j.registration.RegisteredBuffer;
import org.rpcrdma4j.registration.RegisteredBufferPool;
import org.rpcrdma4j.verbs.PostException;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * The send buffers of reverse-direction messages (RFC 8167): a small fixed number of registered buffers, each holding
 * one inline message, RDMA_MSG with the three chunk lists empty (the only form Linux sends or accepts in the reverse
 * direction, PROTOCOLS.md A.9):
 * <pre>
 * xid | vers 1 | credits | RDMA_MSG 0 | read list 0 | write list 0 | reply chunk 0 | RPC message
 * </pre>
 * Used by the server for its calls to a client and by the client for its replies to them. Owned by one agent thread
 * (loading and posting); the buffers are the owner's until {@link #release()}, which gives them back when they were
 * {@linkplain #allocate allocated} and leaves them to the caller when they were {@linkplain #over carved} from its
 * region.
 */
public final class InlineSends {
    /** The transport header of an inline RDMA_MSG with no chunks. */
    public static final int HEADER_LENGTH = 28;
    /** RPC-over-RDMA version 1. */
    private static final int VERSION = 1;
    private static final int RDMA_MSG = 0;

    private final RegisteredBuffer region;
    /** Where the first buffer begins in {@link #region}. */
    private final int base;
    private final boolean owned;
    private final int bufferSize;
    private final SendWorkRequest[] sends;

    private InlineSends(RegisteredBuffer region, int base, boolean owned, int count, int bufferSize) {
        this.region = region;
        this.base = base;
        this.owned = owned;
        this.bufferSize = bufferSize;
        this.sends = new SendWorkRequest[count];
        for (int i = 0; i < count; i++) {
            sends[i] = new SendWorkRequest(1);
        }
    }

    /**
     * Takes {@code count} buffers of {@code bufferSize} bytes (transport header included) from {@code pool}.
     *
     * @throws VerbsException       when the pool has no room
     * @throws InterruptedException while waiting for room
     */
    public static InlineSends allocate(RegisteredBufferPool pool, int count, int bufferSize)
            throws VerbsException, InterruptedException {
        check(count, bufferSize);
        return new InlineSends(pool.allocate(count * bufferSize), 0, true, count, bufferSize);
    }

    /**
     * {@code count} buffers of {@code bufferSize} bytes carved from {@code region} at {@code offset}. The region stays
     * the caller's: it must outlive these buffers, and {@link #release()} leaves it alone.
     */
    public static InlineSends over(RegisteredBuffer region, int offset, int count, int bufferSize) {
        check(count, bufferSize);
        if (offset < 0 || offset + (long) count * bufferSize > region.capacity()) {
            throw new IllegalArgumentException(count + " x " + bufferSize + " bytes at " + offset
                    + " exceed a region of " + region.capacity());
        }
        return new InlineSends(region, offset, false, count, bufferSize);
    }

    private static void check(int count, int bufferSize) {
        if (count < 1 || bufferSize <= HEADER_LENGTH) {
            throw new IllegalArgumentException("inline sends need buffers: " + count + " x " + bufferSize);
        }
    }

    public int count() {
        return sends.length;
    }

    /** The longest RPC message one buffer holds (the inline threshold minus the transport header). */
    public int maxMessage() {
        return bufferSize - HEADER_LENGTH;
    }

    /**
     * Writes message {@code message[0, length)} with its transport header into buffer {@code index}.
     *
     * @param message borrowed; its first word is the RPC xid, which the transport header repeats
     * @throws IllegalArgumentException when the message does not fit (callers check {@link #maxMessage()} first)
     */
    public void load(int index, byte[] message, int length, int credits) {
        if (length > maxMessage() || length < 4) {
            throw new IllegalArgumentException("a " + length + "-byte message does not fit a " + bufferSize
                    + "-byte inline buffer");
        }
        int at = base + index * bufferSize;
        region.setInt(at, ((message[0] & 0xFF) << 24) | ((message[1] & 0xFF) << 16) | ((message[2] & 0xFF) << 8)
                | (message[3] & 0xFF));
        region.setInt(at + 4, VERSION);
        region.setInt(at + 8, credits);
        region.setInt(at + 12, RDMA_MSG);
        region.setInt(at + 16, 0);
        region.setInt(at + 20, 0);
        region.setInt(at + 24, 0);
        region.setBytes(at + HEADER_LENGTH, message, 0, length);
        SendWorkRequest wr = sends[index].reset();
        wr.addSge().set(region.address(at), HEADER_LENGTH + length, region.lkey());
    }

    /** Posts buffer {@code index} (loaded) as a signaled Send with work request id {@code wrId}. */
    public void post(QueuePair qp, int index, long wrId) throws PostException {
        SendWorkRequest wr = sends[index];
        wr.wrId = wrId;
        wr.flags = SendWorkRequest.SIGNALED;
        wr.next = null;
        qp.postSend(wr);
    }

    /** Returns the buffers to their pool when they were allocated here. Idempotent. */
    public void release() {
        if (owned && region.refCnt() > 0) {
            region.release();
        }
    }
}
