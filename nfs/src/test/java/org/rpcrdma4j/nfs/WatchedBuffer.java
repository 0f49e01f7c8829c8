package org.rpcrdma4j.nfs;

import io.netty.buffer.ByteBuf;
import io.netty.util.AbstractReferenceCounted;
import io.netty.util.ReferenceCounted;
import java.nio.ByteBuffer;

import org.rpcrdma4j.registration.BorrowedBuffer;

/** For tests that count memory: a buffer over direct memory whose last release runs an action of the test's. */
public final class WatchedBuffer {
    private WatchedBuffer() {
    }

    /**
     * A buffer over {@code memory}'s position..limit, readable to its capacity; its last release runs
     * {@code released} once (Netty's reference count refuses a release beyond that).
     */
    public static ByteBuf over(ByteBuffer memory, Runnable released) {
        ReferenceCounted owner = new AbstractReferenceCounted() {
            @Override
            protected void deallocate() {
                released.run();
            }

            @Override
            public ReferenceCounted touch(Object hint) {
                return this;
            }
        };
        ByteBuf buffer = BorrowedBuffer.of(memory, owner);
        owner.release(); // the buffer holds the owner's only reference
        return buffer;
    }
}
