package org.rpcrdma4j.nfs.vfs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;

/** Direct blocks that count what is out and refuse a second release of a block. */
final class CountingMemory implements BlockMemory {
    final int size;
    final AtomicInteger out = new AtomicInteger();
    final AtomicInteger doubleReleases = new AtomicInteger();

    CountingMemory(int size) {
        this.size = size;
    }

    @Override
    public Block allocate(int n) {
        assertThat(n).isEqualTo(size);
        ByteBuffer b = ByteBuffer.allocateDirect(n);
        // dirty memory, as a reused pool buffer may be: the VFS must zero what it exposes
        for (int i = 0; i < n; i++) {
            b.put(i, (byte) 0x5a);
        }
        return counted(b);
    }

    /** {@code b} as a block counted among those out, its releases checked like the others'. */
    Block counted(ByteBuffer b) {
        out.incrementAndGet();
        AtomicInteger released = new AtomicInteger();
        return new Block() {
            @Override
            public ByteBuffer buffer() {
                return b;
            }

            @Override
            public void release() {
                if (released.getAndIncrement() == 0) {
                    out.decrementAndGet();
                } else {
                    doubleReleases.incrementAndGet();
                }
            }
        };
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
