package org.rpcrdma4j.nfs.vfs;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/**
 * Where a {@link MemoryVfs} keeps its data blocks. {@link #HEAP} (the default) keeps them in heap arrays, and READs
 * are copied out of them. A server over RDMA can give the VFS direct memory from its registered buffer pool instead:
 * the VFS then lends its blocks ({@link Vfs#lend}) and a READ's data is RDMA-written to the client straight from the
 * file's memory, as Linux's server sends from the page cache. Thread-safe.
 */
public interface BlockMemory {

    /** Heap arrays: nothing is lent. */
    BlockMemory HEAP = new BlockMemory() {
        @Override
        public ByteBuf allocate(int size) {
            // an array of Java's own, zeroed: Netty's heap buffers skip the zeroing where it can reach the JDK's
            // internals (with the flags its tuning guides suggest), and the VFS counts on zeros here
            return Unpooled.wrappedBuffer(new byte[size]).clear();
        }

        @Override
        public boolean lends() {
            return false;
        }
    };

    /**
     * Memory for one block of exactly {@code size} bytes' capacity (its contents are undefined: the VFS zeroes what it
     * needs), a reference the VFS owns and releases once no file and no reader uses the block. Never null; an
     * implementation that runs out of its preferred memory hands out plain memory instead.
     */
    ByteBuf allocate(int size);

    /** Whether blocks in this memory are lent to readers ({@link Vfs#lend}) rather than copied out. */
    boolean lends();

    /**
     * Bytes per block: a power of two from 64 KiB to 16 MiB. Larger blocks mean fewer pieces per lent READ (each is
     * a gather entry for the transport) but a whole block for even the smallest file.
     */
    default int blockSize() {
        return 64 * 1024;
    }
}
