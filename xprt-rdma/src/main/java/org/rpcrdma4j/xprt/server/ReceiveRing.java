package org.rpcrdma4j.xprt.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import org.rpcrdma4j.registration.RegisteredBuffer;
import org.rpcrdma4j.registration.WrIds;
import org.rpcrdma4j.verbs.PostException;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.RecvWorkRequest;

/**
 * A connection's receive buffers: {@code credits + margin} equal buffers carved from one registered region, each
 * with its receive work request made once. A buffer whose message has been consumed (copied out, or answered) is
 * {@linkplain #recycle recycled} and goes back to the queue pair with the others recycled in the same agent round,
 * as one chain. A call that finds no free call slot keeps its buffer, in arrival order, until one frees
 * ({@link #hold}). Owned by the connection's agent thread; allocation-free.
 */
final class ReceiveRing {
    private final QueuePair qp;
    private final RegisteredBuffer region;
    private final ByteBuf view;
    private final int bufferSize;
    private final RecvWorkRequest[] receives;
    private final int[] recycled;
    private int recycledCount;
    private int posted;
    private final int[] heldIndex;
    private final int[] heldLength;
    private int heldHead;
    private int heldCount;

    ReceiveRing(QueuePair qp, RegisteredBuffer region, int count, int bufferSize) {
        this.qp = qp;
        this.region = region;
        // a buffer object of the agent's own over the same memory: bulk reads from it allocate nothing
        this.view = Unpooled.wrappedBuffer(region.nioBuffer(0, region.capacity()));
        this.bufferSize = bufferSize;
        receives = new RecvWorkRequest[count];
        for (int i = 0; i < count; i++) {
            RecvWorkRequest wr = new RecvWorkRequest(1);
            wr.wrId = WrIds.of(WrIds.Kind.RECEIVE, 0, i);
            wr.addSge().set(region.address(i * bufferSize), bufferSize, region.lkey());
            receives[i] = wr;
        }
        recycled = new int[count];
        heldIndex = new int[count];
        heldLength = new int[count];
    }

    /** Queues every buffer for posting (before the connection is accepted); then {@link #repost()}. */
    void recycleAll() {
        for (int i = 0; i < receives.length; i++) {
            recycle(i);
        }
    }

    /** The messages, readable at {@link #offset(int)} of buffer {@code index}. */
    ByteBuf bytes() {
        return view;
    }

    int offset(int index) {
        return index * bufferSize;
    }

    /** A receive completed (successfully or flushed): the queue pair holds one buffer less. */
    void completed() {
        posted--;
    }

    /** Receives the queue pair holds now. */
    int posted() {
        return posted;
    }

    /** Buffer {@code index} may be reused: it is posted again with the next {@link #repost()}. */
    void recycle(int index) {
        recycled[recycledCount++] = index;
    }

    /** Posts every recycled buffer as one chain. */
    void repost() throws PostException {
        if (recycledCount == 0) {
            return;
        }
        RecvWorkRequest head = null;
        for (int i = recycledCount - 1; i >= 0; i--) {
            RecvWorkRequest wr = receives[recycled[i]];
            wr.next = head;
            head = wr;
        }
        try {
            qp.postRecv(head);
            posted += recycledCount;
            recycledCount = 0;
        } finally {
            while (head != null) {
                RecvWorkRequest next = head.next;
                head.next = null;
                head = next;
            }
        }
    }

    /** Keeps buffer {@code index} ({@code length} bytes received) until a call slot frees. */
    void hold(int index, int length) {
        int at = (heldHead + heldCount) % heldIndex.length;
        heldIndex[at] = index;
        heldLength[at] = length;
        heldCount++;
    }

    int heldCount() {
        return heldCount;
    }

    /** Index of the oldest held buffer; with {@link #heldLengthAtHead()}, then {@link #dropHead()}. */
    int heldIndexAtHead() {
        return heldIndex[heldHead];
    }

    int heldLengthAtHead() {
        return heldLength[heldHead];
    }

    void dropHead() {
        heldHead = (heldHead + 1) % heldIndex.length;
        heldCount--;
    }

    RegisteredBuffer region() {
        return region;
    }
}
