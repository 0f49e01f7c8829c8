package org.rpcrdma4j.nfs.vfs;

import java.nio.ByteBuffer;

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
        public Block allocate(int size) {
            ByteBuffer b = ByteBuffer.wrap(new byte[size]);
            return new Block() {
                @Override
                public ByteBuffer buffer() {
                    return b;
                }

                @Override
                public void release() {
                    // the garbage collector takes it
                }
            };
        }

        @Override
        public boolean lends() {
            return false;
        }
    };

    /**
     * Memory for one block of exactly {@code size} bytes (its contents are undefined: the VFS zeroes what it needs).
     * Never null; an implementation that runs out of its preferred memory hands out plain memory instead.
     */
    Block allocate(int size);

    /** Whether blocks in this memory are lent to readers ({@link Vfs#lend}) rather than copied out. */
    boolean lends();

    /**
     * Bytes per block: a power of two from 64 KiB to 16 MiB. Larger blocks mean fewer pieces per lent READ (each is
     * a gather entry for the transport) but a whole block for even the smallest file.
     */
    default int blockSize() {
        return 64 * 1024;
    }

    /** One block of memory; the VFS owns it from {@link #allocate} until it calls {@link #release}. */
    interface Block {
        /** The memory: position 0, limit = capacity = the size asked for. */
        ByteBuffer buffer();

        /** Gives the memory back. Called exactly once, when no file and no reader uses the block any more. */
        void release();
    }
}
