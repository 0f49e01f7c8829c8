package org.rpcrdma4j.registration;

import java.nio.ByteBuffer;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.buffer.UnpooledDirectByteBuf;
import io.netty.util.ReferenceCounted;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import io.netty.util.ResourceLeakTracker;

/**
 * A Netty {@link ByteBuf} over part of another buffer's memory, with a reference count of its own: it holds one
 * reference of its owner, which its last {@code release()} gives back. Unlike a retained slice, whose count is its
 * owner's, each such buffer can be held and counted apart (a file's block cut from the memory a WRITE arrived in, say,
 * while other blocks of the same memory live on). Watched by Netty's leak detector. Its capacity is fixed.
 */
public final class BorrowedBuffer extends UnpooledDirectByteBuf {
    private static final ResourceLeakDetector<BorrowedBuffer> LEAKS =
            ResourceLeakDetectorFactory.instance().newResourceLeakDetector(BorrowedBuffer.class);

    private final ReferenceCounted owner;
    private ResourceLeakTracker<BorrowedBuffer> leak;

    private BorrowedBuffer(ByteBuffer view, ReferenceCounted owner) {
        super(UnpooledByteBufAllocator.DEFAULT, view, view.capacity());
        this.owner = owner;
        writerIndex(view.capacity());
    }

    /**
     * A buffer over {@code view}'s position..limit (direct memory that {@code owner} keeps alive), readable from 0 to
     * its capacity. Takes a reference of {@code owner} for it.
     */
    public static BorrowedBuffer of(ByteBuffer view, ReferenceCounted owner) {
        if (!view.isDirect()) {
            throw new IllegalArgumentException("a borrowed buffer views direct memory: " + view);
        }
        owner.retain();
        BorrowedBuffer b = new BorrowedBuffer(view.slice(), owner);
        b.leak = LEAKS.track(b);
        return b;
    }

    /** What this buffer holds a reference of. */
    public ReferenceCounted owner() {
        return owner;
    }

    @Override
    public ByteBuf capacity(int newCapacity) {
        if (newCapacity != capacity()) {
            throw new UnsupportedOperationException("a borrowed buffer cannot change its capacity");
        }
        return this;
    }

    @Override
    public ByteBuf touch(Object hint) {
        if (leak != null) {
            leak.record(hint);
        }
        return this;
    }

    @Override
    public ByteBuf touch() {
        if (leak != null) {
            leak.record();
        }
        return this;
    }

    @Override
    protected void deallocate() {
        // the memory is the owner's: never free it, give the owner's reference back
        ResourceLeakTracker<BorrowedBuffer> tracker = leak;
        leak = null;
        if (tracker != null) {
            tracker.close(this);
        }
        owner.release();
    }
}
