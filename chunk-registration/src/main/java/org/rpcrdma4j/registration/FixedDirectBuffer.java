package org.rpcrdma4j.registration;

import java.nio.ByteBuffer;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.buffer.UnpooledDirectByteBuf;
import io.netty.util.ResourceLeakTracker;

/**
 * A direct Netty buffer over memory it does not own (so its capacity cannot change), watched by Netty's leak
 * detector; its last release runs {@link #freed()} instead of freeing the memory.
 */
abstract class FixedDirectBuffer extends UnpooledDirectByteBuf {
    private ResourceLeakTracker<?> leak;

    FixedDirectBuffer(ByteBuffer memory) {
        super(UnpooledByteBufAllocator.DEFAULT, memory, memory.capacity());
    }

    /** The tracker Netty's leak detector gave for this buffer (set once, right after construction). */
    final void leakTracker(ResourceLeakTracker<?> tracker) {
        this.leak = tracker;
    }

    /** Gives the memory back to its owner: the last release. */
    protected abstract void freed();

    /** The capacity is fixed: the memory is someone else's. */
    @Override
    public final ByteBuf capacity(int newCapacity) {
        if (newCapacity != capacity()) {
            throw new UnsupportedOperationException("a " + getClass().getSimpleName()
                    + " cannot change its capacity (" + capacity() + " -> " + newCapacity + ")");
        }
        return this;
    }

    @Override
    public final ByteBuf touch(Object hint) {
        if (leak != null) {
            leak.record(hint);
        }
        return this;
    }

    @Override
    public final ByteBuf touch() {
        if (leak != null) {
            leak.record();
        }
        return this;
    }

    @Override
    @SuppressWarnings("unchecked")
    protected final void deallocate() {
        // the memory is not ours: never free it
        ResourceLeakTracker<Object> tracker = (ResourceLeakTracker<Object>) leak;
        leak = null;
        if (tracker != null) {
            tracker.close(this);
        }
        freed();
    }
}
