package org.rpcrdma4j.xprt.client;

import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.rpcrdma4j.registration.RegisteredBuffer;
import org.rpcrdma4j.registration.RegisteredBufferPool;
import org.rpcrdma4j.registration.WrIds;
import org.rpcrdma4j.verbs.PostException;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.RecvWorkRequest;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * The receive buffers of a transport: one registered buffer per receive (credits plus a few), made once and posted
 * again on every connection. Consumed buffers are collected and posted back in one chain per round of the agent, so
 * replenishing is batched. Owned by the agent thread.
 */
final class ReceiveRing {
    private final RegisteredBuffer[] buffers;
    /** Views of the buffers for reading, made once: see {@link #view(int)}. */
    private final ByteBuf[] views;
    private final RecvWorkRequest[] wrs;
    private final boolean[] posted;
    private final int[] pending;
    private int pendingCount;
    private final int size;

    ReceiveRing(RegisteredBufferPool pool, int count, int size) throws VerbsException, InterruptedException {
        this.size = size;
        buffers = new RegisteredBuffer[count];
        views = new ByteBuf[count];
        wrs = new RecvWorkRequest[count];
        posted = new boolean[count];
        pending = new int[count];
        try {
            for (int i = 0; i < count; i++) {
                buffers[i] = pool.allocate(size, 10, TimeUnit.SECONDS);
                views[i] = Unpooled.wrappedBuffer(buffers[i].nioBuffer(0, size));
                wrs[i] = new RecvWorkRequest(1);
            }
        } catch (VerbsException | InterruptedException | RuntimeException e) {
            release();
            throw e;
        }
    }

    int count() {
        return buffers.length;
    }

    int bufferSize() {
        return size;
    }

    RegisteredBuffer buffer(int index) {
        return buffers[index];
    }

    /**
     * A view of receive buffer {@code index} for reading what arrived (index 0 = its first byte). Bulk reads from a
     * plain direct buffer make a NIO view per call; this view reads through the memory address where the platform
     * allows, so decoding a header and copying a reply out allocate nothing. The view does not own the memory.
     */
    ByteBuf view(int index) {
        return views[index];
    }

    boolean isPosted(int index) {
        return index >= 0 && index < posted.length && posted[index];
    }

    /** Posts every buffer to a new queue pair, as one chain. */
    void postAll(QueuePair qp, int generation) throws PostException {
        pendingCount = 0;
        for (int i = 0; i < buffers.length; i++) {
            pending[pendingCount++] = i;
        }
        repost(qp, generation);
    }

    /** A receive completed (or was flushed): its buffer is no longer posted. */
    void consumed(int index) {
        posted[index] = false;
    }

    /** Queues a consumed buffer for the next {@link #repost}. */
    void recycle(int index) {
        pending[pendingCount++] = index;
    }

    int pendingCount() {
        return pendingCount;
    }

    /** Posts the recycled buffers as one chain; nothing to do when none is waiting. */
    void repost(QueuePair qp, int generation) throws PostException {
        if (pendingCount == 0) {
            return;
        }
        RecvWorkRequest head = null;
        RecvWorkRequest tail = null;
        for (int k = 0; k < pendingCount; k++) {
            int i = pending[k];
            RecvWorkRequest wr = wrs[i].reset();
            wr.wrId = WrIds.of(WrIds.Kind.RECEIVE, generation, i);
            RegisteredBuffer b = buffers[i];
            wr.addSge().set(b.address(0), size, b.lkey());
            if (head == null) {
                head = wr;
            } else {
                tail.next = wr;
            }
            tail = wr;
        }
        qp.postRecv(head);
        for (int k = 0; k < pendingCount; k++) {
            posted[pending[k]] = true;
        }
        pendingCount = 0;
    }

    /** The connection is gone: nothing is posted any more. */
    void reset() {
        java.util.Arrays.fill(posted, false);
        pendingCount = 0;
    }

    /** Returns every buffer to its pool. */
    void release() {
        for (int i = 0; i < buffers.length; i++) {
            if (buffers[i] != null) {
                buffers[i].release();
                buffers[i] = null;
            }
        }
    }
}
