package org.rpcrdma4j.nfs.vfs;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;

import org.rpcrdma4j.nfs.WatchedBuffer;

/**
 * Direct blocks that count what is out: a block counts as given back when its last reference is released (Netty's
 * reference count refuses a release beyond that).
 */
final class CountingMemory implements BlockMemory {
    final int size;
    final AtomicInteger out = new AtomicInteger();

    CountingMemory(int size) {
        this.size = size;
    }

    @Override
    public ByteBuf allocate(int n) {
        assertThat(n).isEqualTo(size);
        ByteBuffer b = ByteBuffer.allocateDirect(n);
        // dirty memory, as a reused pool buffer may be: the VFS must zero what it exposes
        for (int i = 0; i < n; i++) {
            b.put(i, (byte) 0x5a);
        }
        return counted(b);
    }

    /** {@code b} (direct) as a block counted among those out until its last reference is released. */
    ByteBuf counted(ByteBuffer b) {
        out.incrementAndGet();
        return WatchedBuffer.over(b, out::decrementAndGet);
    }

    @Override
    public boolean lends() {
        return true;
    }

    @Override
    public int blockSize() {
        return size;
    }
}
