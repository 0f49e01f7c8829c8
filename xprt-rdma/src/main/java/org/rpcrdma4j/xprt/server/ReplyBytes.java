package org.rpcrdma4j.xprt.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.util.Arrays;

import org.dcache.oncrpc4j.xdr.Xdr;
import org.rpcrdma4j.registration.RegisteredBuffer;
import org.rpcrdma4j.registration.RegisteredBufferPool;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.xprt.internal.Copies;
import org.rpcrdma4j.xprt.internal.Xdrs;

/**
 * The bytes of one encoded reply, and where they can be sent from. Reusable, one per call slot; used by the thread
 * that marshals the reply (the program's, inside {@code send}) and released by the connection's agent once the
 * reply's Send completed.
 * <p>
 * Two ways to hold a reply:
 * <ul>
 *   <li><b>slot</b>: a reply that is one heap range no longer than the slot's message area (every small reply, and
 *       the replies the server writes itself) is copied there, into registered memory. It is parsed in place and
 *       sent, written or both from there. No allocation.</li>
 *   <li><b>pieces</b>: anything else (a long reply, or one with shallow buffers) is kept as the views oncrpc4j's
 *       stream is made of, wrapped for parsing in a Netty composite buffer. Ranges that lie in registered memory
 *       (the {@link RegisteredMemoryIndex} knows) are sent straight from there; the rest is copied into one staging
 *       buffer from the server's pool, allocated on first need and kept until the reply completed.</li>
 * </ul>
 */
final class ReplyBytes implements Xdrs.PieceSink {
    private final ByteBuf slot;
    private final int slotLkey;
    private final long slotIova;
    private final int messageBase;
    private final int messageCapacity;
    private final RegisteredMemoryIndex index;
    private final RegisteredBufferPool pool;
    private final RegisteredMemoryIndex.Location location = new RegisteredMemoryIndex.Location();

    private boolean inSlot;
    private int length;
    private byte[] heapArray;
    private int heapOffset;
    private ByteBuffer[] pieces = new ByteBuffer[4];
    private int[] pieceStarts = new int[4];
    private long[] pieceAddresses = new long[4];
    private int pieceCount;
    private ByteBuf view;
    private RegisteredBuffer staging;
    private int stagingUsed;
    private long zeroCopyBytes;
    private long copiedBytes;

    /**
     * @param slot            the slot's registered memory (borrowed): header area then message area
     * @param slotLkey        its lkey
     * @param slotIova        the IOVA of {@code slot}'s index 0
     * @param messageBase     index of the message area in {@code slot}
     * @param messageCapacity size of the message area
     */
    ReplyBytes(ByteBuf slot, int slotLkey, long slotIova, int messageBase, int messageCapacity,
               RegisteredMemoryIndex index, RegisteredBufferPool pool) {
        this.slot = slot;
        this.slotLkey = slotLkey;
        this.slotIova = slotIova;
        this.messageBase = messageBase;
        this.messageCapacity = messageCapacity;
        this.index = index;
        this.pool = pool;
    }

    /** Takes the reply encoded in {@code xdr}: copies it into the slot when it fits, else keeps its pieces. */
    void load(Xdr xdr) {
        release();
        length = Xdrs.pieces(xdr, this);
        if (heapArray != null && length <= messageCapacity) {
            slot.setBytes(messageBase, heapArray, heapOffset, length);
            heapArray = null;
            inSlot = true;
            return;
        }
        inSlot = false;
        if (heapArray != null) {
            view = Unpooled.wrappedBuffer(heapArray, heapOffset, length);
        } else {
            view = Unpooled.wrappedBuffer(pieceCount, Arrays.copyOf(pieces, pieceCount));
        }
    }

    /** Takes a reply of {@code length} bytes the caller already wrote at the slot's message area. */
    void loadInSlot(int length) {
        release();
        if (length > messageCapacity) {
            throw new IllegalArgumentException("reply of " + length + " bytes exceeds the message area");
        }
        this.length = length;
        inSlot = true;
    }

    @Override
    public void heap(byte[] array, int offset, int length) {
        heapArray = array;
        heapOffset = offset;
    }

    @Override
    public void piece(ByteBuffer view) {
        if (pieceCount == pieces.length) {
            int grown = pieceCount * 2;
            pieces = Arrays.copyOf(pieces, grown);
            pieceStarts = Arrays.copyOf(pieceStarts, grown);
            pieceAddresses = Arrays.copyOf(pieceAddresses, grown);
        }
        int start = pieceCount == 0 ? 0 : pieceStarts[pieceCount - 1] + pieces[pieceCount - 1].remaining();
        pieces[pieceCount] = view;
        pieceStarts[pieceCount] = start;
        pieceAddresses[pieceCount] = RegisteredMemoryIndex.addressOf(view);
        pieceCount++;
    }

    int length() {
        return length;
    }

    /** Whether the reply sits in the slot's message area. */
    boolean inSlot() {
        return inSlot;
    }

    /** A buffer holding the reply at {@link #viewBase()}..+{@link #length()}, for parsing. Owned by this object. */
    ByteBuf view() {
        return inSlot ? slot : view;
    }

    int viewBase() {
        return inSlot ? messageBase : 0;
    }

    /**
     * Appends SGEs covering reply bytes {@code [from, from + length)}: from the slot, from registered pieces in
     * place (when {@code zeroCopy}), else from a copy in the staging buffer.
     *
     * @throws VerbsException       when a staging buffer is needed and cannot be had
     * @throws InterruptedException while waiting for one
     */
    void sges(int from, int length, SgeList out, boolean zeroCopy) throws VerbsException, InterruptedException {
        if (length == 0) {
            return;
        }
        if (inSlot) {
            out.add(slotLkey, slotIova + messageBase + from, length);
            return;
        }
        int end = from + length;
        if (pieceCount == 0) {
            copy(from, length, out);
            return;
        }
        for (int p = 0; p < pieceCount && from < end; p++) {
            int pieceStart = pieceStarts[p];
            int pieceEnd = pieceStart + pieces[p].remaining();
            if (pieceEnd <= from) {
                continue;
            }
            int take = Math.min(pieceEnd, end) - from;
            long address = pieceAddresses[p];
            if (zeroCopy && address != 0 && index.find(address + (from - pieceStart), take, location)) {
                out.add(location.lkey, location.iova, take);
                zeroCopyBytes += take;
            } else {
                copy(from, take, out);
            }
            from += take;
        }
    }

    private void copy(int from, int length, SgeList out) throws VerbsException, InterruptedException {
        if (staging == null) {
            staging = pool.allocate(Math.max(1, copyBound()));
            stagingUsed = 0;
        }
        if (stagingUsed + length > staging.capacity()) {
            throw new VerbsException("staging buffer of " + staging.capacity() + " bytes exhausted");
        }
        Copies.into(view, from, staging, stagingUsed, length);
        out.add(staging.lkey(), staging.address(stagingUsed), length);
        stagingUsed += length;
        copiedBytes += length;
    }

    /** The most bytes that may need copying: those not in registered pieces. */
    private int copyBound() {
        if (pieceCount == 0) {
            return length;
        }
        int bound = 0;
        for (int p = 0; p < pieceCount; p++) {
            long address = pieceAddresses[p];
            if (address == 0 || !index.find(address, pieces[p].remaining(), location)) {
                bound += pieces[p].remaining();
            }
        }
        return bound;
    }

    /** Copies reply bytes {@code [from, from + length)} into the slot at {@code slotIndex} (pieces only). */
    void copyToSlot(int from, int length, int slotIndex) {
        if (inSlot) {
            throw new IllegalStateException("the reply is in the slot already");
        }
        slot.setBytes(slotIndex, view, from, length);
    }

    long zeroCopyBytes() {
        return zeroCopyBytes;
    }

    long copiedBytes() {
        return copiedBytes;
    }

    /** Drops every reference to the reply's memory and returns the staging buffer. Idempotent. */
    void release() {
        if (staging != null) {
            staging.release();
            staging = null;
        }
        if (view != null) {
            view.release();
            view = null;
        }
        Arrays.fill(pieces, 0, pieceCount, null);
        pieceCount = 0;
        heapArray = null;
        inSlot = false;
        length = 0;
        zeroCopyBytes = 0;
        copiedBytes = 0;
        stagingUsed = 0;
    }
}
