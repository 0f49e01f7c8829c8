package org.rpcrdma4j.xprt.internal;

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
 * The receive buffers of one connection endpoint (client transport or server connection): {@code count} equal buffers
 * carved from as few registered regions as the buffer pool allows, each with its receive work request made once.
 * <p>
 * A buffer whose message has been consumed (copied out, answered, or dropped) is {@linkplain #recycle recycled}; the
 * recycled buffers go back to the queue pair together, as one chain, at the next {@link #repost} (the owner calls it
 * once per round, so replenishing is batched). A message that cannot be served yet (no free call slot) may keep its
 * buffer, in arrival order, until it can ({@link #hold}). Work request ids are
 * {@code WrIds.of(RECEIVE, epoch, index)}, the epoch given at posting time, so that a completion from an earlier
 * incarnation of the connection is recognisable.
 * <p>
 * Owned by one agent thread; allocation-free once made. The ring owns the regions it {@linkplain #allocate allocated}
 * ({@link #release()}); one {@linkplain #over carved} from a caller's region leaves that region to the caller.
 */
public final class ReceiveRing {
    private final RegisteredBuffer[] regions;
    /** Per region, a buffer object of the owner's own over the same memory: bulk reads from it allocate nothing. */
    private final ByteBuf[] views;
    private final int perRegion;
    /** Where the first buffer begins in each region. */
    private final int base;
    /** Whether {@link #release()} gives the regions back (false: they are the caller's). */
    private final boolean owned;
    private final int bufferSize;
    private final RecvWorkRequest[] receives;
    private final int[] recycled;
    private int recycledCount;
    private int posted;
    private final int[] heldIndex;
    private final int[] heldLength;
    private int heldHead;
    private int heldCount;

    private ReceiveRing(RegisteredBuffer[] regions, int perRegion, int base, boolean owned, int count,
                        int bufferSize) {
        this.regions = regions;
        this.perRegion = perRegion;
        this.base = base;
        this.owned = owned;
        this.bufferSize = bufferSize;
        this.views = new ByteBuf[regions.length];
        for (int r = 0; r < regions.length; r++) {
            views[r] = Unpooled.wrappedBuffer(regions[r].nioBuffer(0, regions[r].capacity()));
        }
        receives = new RecvWorkRequest[count];
        for (int i = 0; i < count; i++) {
            RecvWorkRequest wr = new RecvWorkRequest(1);
            RegisteredBuffer region = regions[i / perRegion];
            wr.addSge().set(region.address(offset(i)), bufferSize, region.lkey());
            receives[i] = wr;
        }
        recycled = new int[count];
        heldIndex = new int[count];
        heldLength = new int[count];
    }

    /**
     * Takes {@code count} buffers of {@code bufferSize} bytes from {@code pool}, in regions of at most one arena each.
     *
     * @throws VerbsException       when the pool has no room (nothing is kept then)
     * @throws InterruptedException while waiting for room
     */
    public static ReceiveRing allocate(RegisteredBufferPool pool, int count, int bufferSize)
            throws VerbsException, InterruptedException {
        if (count < 1 || bufferSize < 1) {
            throw new IllegalArgumentException("a receive ring needs buffers: " + count + " x " + bufferSize);
        }
        int perRegion = Math.max(1, Math.min(count, pool.config().arenaSize() / bufferSize));
        RegisteredBuffer[] regions = new RegisteredBuffer[(count + perRegion - 1) / perRegion];
        try {
            for (int r = 0; r < regions.length; r++) {
                int buffers = Math.min(perRegion, count - r * perRegion);
                regions[r] = pool.allocate(buffers * bufferSize);
            }
        } catch (VerbsException | InterruptedException | RuntimeException e) {
            release(regions);
            throw e;
        }
        return new ReceiveRing(regions, perRegion, 0, true, count, bufferSize);
    }

    /**
     * {@code count} buffers of {@code bufferSize} bytes carved from {@code region} at {@code offset}, one after the
     * other. The region stays the caller's: it must outlive the ring, and {@link #release()} leaves it alone.
     */
    public static ReceiveRing over(RegisteredBuffer region, int offset, int count, int bufferSize) {
        if (count < 1 || bufferSize < 1) {
            throw new IllegalArgumentException("a receive ring needs buffers: " + count + " x " + bufferSize);
        }
        if (offset < 0 || offset + (long) count * bufferSize > region.capacity()) {
            throw new IllegalArgumentException(count + " x " + bufferSize + " bytes at " + offset
                    + " exceed a region of " + region.capacity());
        }
        return new ReceiveRing(new RegisteredBuffer[] {region}, count, offset, false, count, bufferSize);
    }

    public int count() {
        return receives.length;
    }

    public int bufferSize() {
        return bufferSize;
    }

    /** The bytes of buffer {@code index}, readable at {@link #offset(int)} (a view the ring owns; indexes unused). */
    public ByteBuf buffer(int index) {
        return views[index / perRegion];
    }

    /** Where buffer {@code index} begins in {@link #buffer(int)}. */
    public int offset(int index) {
        return base + (index % perRegion) * bufferSize;
    }

    /** Posts every buffer to a queue pair (a new connection): nothing may be posted or held. */
    public void postAll(QueuePair qp, int epoch) throws PostException {
        recycledCount = 0;
        for (int i = 0; i < receives.length; i++) {
            recycle(i);
        }
        repost(qp, epoch);
    }

    /** A receive completed (successfully or flushed): the queue pair holds one buffer less. */
    public void completed() {
        posted--;
    }

    /** Receives the queue pair holds now. */
    public int posted() {
        return posted;
    }

    /** Buffer {@code index} may be reused: it is posted again with the next {@link #repost}. */
    public void recycle(int index) {
        recycled[recycledCount++] = index;
    }

    /** Buffers waiting for the next {@link #repost}. */
    public int recycledCount() {
        return recycledCount;
    }

    /** Posts every recycled buffer as one chain; nothing to do when none is waiting. */
    public void repost(QueuePair qp, int epoch) throws PostException {
        if (recycledCount == 0) {
            return;
        }
        RecvWorkRequest head = null;
        for (int i = recycledCount - 1; i >= 0; i--) {
            int index = recycled[i];
            RecvWorkRequest wr = receives[index];
            wr.wrId = WrIds.of(WrIds.Kind.RECEIVE, epoch, index);
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

    /** The connection is gone: nothing is posted, recycled or held any more. */
    public void reset() {
        posted = 0;
        recycledCount = 0;
        heldHead = 0;
        heldCount = 0;
    }

    /** Keeps buffer {@code index} ({@code length} bytes received) until its message can be served. */
    public void hold(int index, int length) {
        int at = (heldHead + heldCount) % heldIndex.length;
        heldIndex[at] = index;
        heldLength[at] = length;
        heldCount++;
    }

    public int heldCount() {
        return heldCount;
    }

    /** Index of the oldest held buffer; with {@link #heldLengthAtHead()}, then {@link #dropHead()}. */
    public int heldIndexAtHead() {
        return heldIndex[heldHead];
    }

    public int heldLengthAtHead() {
        return heldLength[heldHead];
    }

    public void dropHead() {
        heldHead = (heldHead + 1) % heldIndex.length;
        heldCount--;
    }

    /** Returns every region the ring allocated to its pool (none when it was carved from a caller's). Idempotent. */
    public void release() {
        if (owned) {
            release(regions);
        }
    }

    private static void release(RegisteredBuffer[] regions) {
        for (int r = 0; r < regions.length; r++) {
            if (regions[r] != null) {
                if (regions[r].refCnt() > 0) {
                    regions[r].release();
                }
                regions[r] = null;
            }
        }
    }
}
