package org.rpcrdma4j.registration;

import java.nio.ByteBuffer;

import io.netty.util.ReferenceCounted;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;

/**
 * A Netty {@link ByteBuf} over part of another buffer's memory, with a reference count of its own: it holds one
 * reference of its owner, which its last {@code release()} gives back. Unlike a retained slice, whose count is its
 * owner's, each such buffer can be held and counted apart (a file's block cut from the memory a WRITE arrived in, say,
 * while other blocks of the same memory live on). Watched by Netty's leak detector. Its capacity is fixed.
 */
public final class BorrowedBuffer extends FixedDirectBuffer {
    private static final ResourceLeakDetector<BorrowedBuffer> LEAKS =
            ResourceLeakDetectorFactory.instance().newResourceLeakDetector(BorrowedBuffer.class);

    private final ReferenceCounted owner;

    private BorrowedBuffer(ByteBuffer view, ReferenceCounted owner) {
        super(view);
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
        b.leakTracker(LEAKS.track(b));
        return b;
    }

    /** What this buffer holds a reference of. */
    public ReferenceCounted owner() {
        return owner;
    }

    /** Gives the owner's reference back. */
    @Override
    protected void freed() {
        owner.release();
    }
}
