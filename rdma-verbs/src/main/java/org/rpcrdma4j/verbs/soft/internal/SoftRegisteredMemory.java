package org.rpcrdma4j.verbs.soft.internal;

import java.nio.ByteBuffer;

import org.rpcrdma4j.verbs.MrState;
import org.rpcrdma4j.verbs.RegisteredMemory;
import org.rpcrdma4j.verbs.Stag;

/**
 * Memory registered synchronously: one direct buffer, valid from registration to close, never invalidated by a
 * work request or a peer. Each engine thread gets its own duplicates of the buffer, made on first use (at most
 * {@value #VARIANTS} per engine, as many as a gather list has FPDU slots, so that one gathering write can take a
 * piece of the region for every FPDU it holds: a 1 MiB message goes out in two writes, not three), whose position and
 * limit only that engine moves.
 */
final class SoftRegisteredMemory extends SoftRegion implements RegisteredMemory {
    /**
     * Duplicates per engine at most: one per FPDU of a gather list. With 8, a 1 MiB Read Response or Write from one
     * region was cut into gathering writes of 8 segments (512 KiB) each.
     */
    static final int VARIANTS = Gather.SLOTS;

    /** The registered bytes: position 0, limit = capacity = length. Never moved after construction. */
    private final ByteBuffer base;
    private final ByteBuffer[][] engineViews;

    SoftRegisteredMemory(SoftDevice device, SoftPd pd, int index, ByteBuffer buffer, long iova, int access) {
        super(device, pd, index, MrState.INVALID);
        this.base = buffer.slice();
        this.engineViews = new ByteBuffer[device.engineCount()][];
        synchronized (this) {
            validate(Stag.of(index, 0), iova, base.capacity(), access);
        }
    }

    @Override
    boolean invalidatable() {
        return false;
    }

    @Override
    public ByteBuffer buffer() {
        return base.duplicate();
    }

    @Override
    ByteBuffer piece(long offset, int engineId) {
        return view(engineId, 0);
    }

    @Override
    ByteBuffer pieceVariant(long offset, int engineId, int variant) {
        return variant < VARIANTS ? view(engineId, variant) : null;
    }

    private ByteBuffer view(int engineId, int variant) {
        ByteBuffer[] views = engineViews[engineId];
        if (views == null) {
            views = new ByteBuffer[VARIANTS];
            engineViews[engineId] = views;
        }
        ByteBuffer view = views[variant];
        if (view == null) {
            view = base.duplicate();
            views[variant] = view;
        }
        return view;
    }

    @Override
    int pieceIndex(long offset) {
        return (int) offset;
    }

    @Override
    int pieceRemaining(long offset) {
        return (int) (base.capacity() - offset);
    }

    @Override
    void copyOut(long offset, ByteBuffer dst, int dstIndex, int len) {
        dst.put(dstIndex, base, (int) offset, len);
    }
}
