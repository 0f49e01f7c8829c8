package org.rpcrdma4j.nfs.vfs;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The bytes of an in-memory regular file: fixed-size blocks ({@link BlockMemory#blockSize()}, 64 KiB by default)
 * allocated on first write, so holes cost no data blocks and a large file never needs one huge array. The block index
 * is a dense array of references, so a file never grows beyond {@link #MAX_SIZE} (whose block numbers all fit an
 * {@code int}), and the caller bounds every size it passes (MemoryVfs refuses sizes beyond its capacity before
 * calling): the index then costs at most one reference per block of that bound.
 * <p>
 * A file of at most {@link #SMALL} bytes keeps them in a small first block of heap memory instead, which becomes a
 * whole block when the file grows past it: a directory of small files takes a sixteenth of the memory whole blocks
 * would. Bytes of a block beyond its memory read as zeros.
 * <p>
 * Blocks come from a {@link BlockMemory}, or from the memory a write's data arrived in when the writer offers it
 * ({@link WriteMemory}) and the write covers the whole block. When the block memory
 * {@linkplain BlockMemory#lends() lends}, {@link #lend} hands out views of the blocks themselves. A block is a
 * reference-counted Netty buffer: the file holds one reference, and every lent piece another (a retained slice of
 * the block); a write or truncation that would change a block someone borrowed first
 * copies it (the borrower keeps the old bytes), and a block's memory goes back when its last holder lets go
 * ({@link #drop()} for the file itself).
 * <p>
 * Not thread-safe; {@link MemoryVfs} guards it with its lock: changes under the write lock, reads and lending under
 * the read lock. Only the release of a lent range runs outside it (lock-free: reference counts).
 */
final class MemoryFileData {
    /** The smallest block, and the unit of the VFS's space figures. */
    static final int BLOCK = 64 * 1024;
    /** The memory of a small file's only block (heap, whatever the block memory). */
    static final int SMALL = 4096;
    /** The largest block a {@link BlockMemory} may ask for. */
    static final int MAX_BLOCK = 16 << 20;
    /** Largest size a file may have: with blocks of at least {@link #BLOCK}, block numbers fit an int. */
    static final long MAX_SIZE = (1L << 30) * BLOCK;
    /** Zeros, the source of a hole's bytes (never written). */
    private static final byte[] ZEROS = new byte[BLOCK];
    /** The zeros of a lent hole (never written; direct, so a stream transport can send it as it is). */
    private static final ByteBuffer DIRECT_ZEROS = ByteBuffer.allocateDirect(BLOCK);

    private final BlockMemory memory;
    /** Bytes per block: {@link BlockMemory#blockSize()}. */
    private final int block;
    private DataBlock[] blocks = new DataBlock[0];
    private long size;
    private long allocatedBytes;

    MemoryFileData(BlockMemory memory) {
        this.memory = memory;
        this.block = checkBlockSize(memory.blockSize());
    }

    /** Refuses a block size that is not a power of two within {@link #BLOCK}..{@link #MAX_BLOCK}. */
    static int checkBlockSize(int size) {
        if (size < BLOCK || size > MAX_BLOCK || Integer.bitCount(size) != 1) {
            throw new IllegalArgumentException("block size must be a power of two within " + BLOCK + ".."
                    + MAX_BLOCK + ": " + size);
        }
        return size;
    }

    /** One block: the file's reference of its memory, and a view of all of it (a whole block, or {@link #SMALL}). */
    private static final class DataBlock {
        final ByteBuf memory;
        final ByteBuffer bytes;
        final int capacity;

        DataBlock(ByteBuf memory) {
            this.memory = memory;
            this.capacity = memory.capacity();
            this.bytes = memory.nioBuffer(0, capacity);
        }

        /** How many of the {@code length} bytes from {@code in} lie in its memory (the rest read as zeros). */
        int inMemory(int in, int length) {
            return Math.max(0, Math.min(length, capacity - in));
        }

        /** Whether a lent range holds the block too. */
        boolean lent() {
            return memory.refCnt() > 1;
        }

        void release() {
            memory.release();
        }
    }

    long size() {
        return size;
    }

    long allocatedBytes() {
        return allocatedBytes;
    }

    /** Bytes of storage a write of {@code length} at {@code offset} would newly allocate. */
    long allocationFor(long offset, long length) {
        checkRange(offset, length);
        if (length == 0) {
            return 0;
        }
        long first = offset / block;
        long last = (offset + length - 1) / block;
        long needed = 0;
        for (long b = first; b <= last; b++) {
            DataBlock d = b < blocks.length ? blocks[(int) b] : null;
            if (d == null) {
                needed += block;
            } else if (d.capacity < block) {
                needed += block - d.capacity; // at most: a small block grown whole
            }
        }
        return needed;
    }

    int read(long offset, ByteBuffer dst) {
        if (offset < 0) {
            throw new IllegalArgumentException("negative offset " + offset);
        }
        if (offset >= size) {
            return 0;
        }
        int n = (int) Math.min(dst.remaining(), size - offset);
        int done = 0;
        while (done < n) {
            long pos = offset + done;
            int b = (int) (pos / block);
            int in = (int) (pos % block);
            int chunk = Math.min(n - done, block - in);
            DataBlock data = b < blocks.length ? blocks[b] : null;
            // one bulk copy per block (a hole copies from the shared zeros)
            if (data == null) {
                for (int z = 0; z < chunk; z += BLOCK) {
                    dst.put(ZEROS, 0, Math.min(BLOCK, chunk - z));
                }
            } else {
                int have = data.inMemory(in, chunk);
                if (have > 0) {
                    dst.put(dst.position(), data.bytes, in, have);
                    dst.position(dst.position() + have);
                }
                for (int z = have; z < chunk; z += BLOCK) { // past a small block's memory
                    dst.put(ZEROS, 0, Math.min(BLOCK, chunk - z));
                }
            }
            done += chunk;
        }
        return n;
    }

    /**
     * Lends up to {@code count} bytes from {@code offset}: a composite buffer with one piece per block, each holding a
     * reference of its block until the range is released (holes: views of a shared block of zeros).
     */
    LentRange lend(long offset, int count) {
        if (offset < 0 || count < 0) {
            throw new IllegalArgumentException("negative offset or count: " + offset + ", " + count);
        }
        if (offset >= size || count == 0) {
            return new LentRange(Unpooled.EMPTY_BUFFER, offset >= size);
        }
        int n = (int) Math.min(count, size - offset);
        CompositeByteBuf data = UnpooledByteBufAllocator.DEFAULT.compositeDirectBuffer(Integer.MAX_VALUE);
        try {
            for (int done = 0; done < n; ) {
                long pos = offset + done;
                int b = (int) (pos / block);
                int in = (int) (pos % block);
                int chunk = Math.min(n - done, block - in);
                DataBlock held = b < blocks.length ? blocks[b] : null;
                int have = held == null ? 0 : held.inMemory(in, chunk);
                if (have > 0) {
                    data.addComponent(true, held.memory.retainedSlice(in, have)); // a reference of the block
                }
                for (int z = have; z < chunk; z += BLOCK) { // a hole, or past a small block's memory
                    data.addComponent(true, Unpooled.wrappedBuffer(DIRECT_ZEROS.slice(0,
                            Math.min(BLOCK, chunk - z))));
                }
                done += chunk;
            }
        } catch (RuntimeException e) {
            data.release();
            throw e;
        }
        return new LentRange(data, offset + n >= size);
    }

    /**
     * Writes {@code src} at {@code offset}. A whole block the write covers is first asked of {@code offered}: a block
     * it keeps becomes the file's block as it is, and is not copied.
     */
    void write(long offset, ByteBuffer src, WriteMemory offered) {
        int n = src.remaining();
        checkRange(offset, n);
        int done = 0;
        while (done < n) {
            long pos = offset + done;
            int b = (int) (pos / block);
            int in = (int) (pos % block);
            int chunk = Math.min(n - done, block - in);
            if (chunk != block || !adopt(b, offered.keep(src.slice(src.position(), block)))) {
                writable(b, in + chunk).bytes.put(in, src, src.position(), chunk);
            }
            src.position(src.position() + chunk);
            done += chunk;
            // block by block: memory that runs out halfway leaves the size over what was written, so the bytes
            // past the size stay zeros; a WRITE of nothing changes nothing (RFC 1813 section 3.3.7)
            size = Math.max(size, pos + chunk);
        }
    }

    /**
     * Makes {@code kept} block {@code b} in place of the one it had (let go: a reader holding it keeps it).
     *
     * @return false, and nothing changed, when nothing was kept or the memory is not a block (it is released)
     */
    private boolean adopt(int b, ByteBuf kept) {
        if (kept == null) {
            return false;
        }
        if (kept.capacity() != block) {
            kept.release();
            return false;
        }
        index(b);
        DataBlock old = blocks[b];
        blocks[b] = new DataBlock(kept);
        allocatedBytes += block - (old == null ? 0 : old.capacity);
        if (old != null) {
            old.release();
        }
        return true;
    }

    /** Grows the block index to hold block {@code b}. */
    private void index(int b) {
        if (b >= blocks.length) {
            long maxBlocks = MAX_SIZE / block;
            blocks = Arrays.copyOf(blocks, (int) Math.min(maxBlocks, Math.max(b + 1L, blocks.length * 2L)));
        }
    }

    /**
     * Block {@code b} with memory for its first {@code end} bytes: allocated (zeroed) when missing, small for the first
     * block of a small file; made whole when small and {@code end} lies past its memory; copied first when lent.
     */
    private DataBlock writable(int b, int end) {
        index(b);
        DataBlock data = blocks[b];
        if (data == null) {
            data = b == 0 && end <= SMALL && size <= SMALL ? smallBlock() : newBlock();
            blocks[b] = data;
            allocatedBytes += data.capacity;
        } else if (data.capacity < end || data.lent()) {
            // outgrown, or a reader holds these bytes (it keeps them): the file goes on with a copy
            DataBlock copy = data.capacity < end || data.capacity == block ? newBlock() : smallBlock();
            copy.bytes.put(0, data.bytes, 0, data.capacity);
            blocks[b] = copy;
            allocatedBytes += copy.capacity - data.capacity;
            data.release();
            data = copy;
        }
        return data;
    }

    private static void zero(ByteBuffer b, int from, int to) {
        for (int at = from; at < to; at += BLOCK) {
            b.put(at, ZEROS, 0, Math.min(BLOCK, to - at));
        }
    }

    /** A small file's block: {@link #SMALL} bytes of heap memory, zeroed. */
    private static DataBlock smallBlock() {
        return new DataBlock(BlockMemory.HEAP.allocate(SMALL));
    }

    /** A whole block of the block memory, zeroed. */
    private DataBlock newBlock() {
        ByteBuf m = memory.allocate(block);
        if (m.capacity() != block) {
            m.release();
            throw new IllegalStateException("block memory of " + m.capacity() + " bytes, expected " + block);
        }
        DataBlock data = new DataBlock(m);
        if (memory != BlockMemory.HEAP) {
            zero(data.bytes, 0, block); // heap arrays come zeroed; other memory may be reused
        }
        return data;
    }

    /**
     * The first offset at or after {@code offset} that holds data ({@code data} true) or lies in a hole, at block
     * granularity (a block holds data if any write reached it); the end of the file is a hole. -1 when {@code offset}
     * is at or beyond the end, or when looking for data in the hole that ends the file.
     */
    long seek(long offset, boolean data) {
        if (offset < 0 || offset >= size) {
            return -1;
        }
        long b = offset / block;
        while (b < blocks.length && (blocks[(int) b] != null) != data) {
            b++;
        }
        long at = Math.max(offset, b * block);
        if (data) {
            return b < blocks.length && at < size ? at : -1;
        }
        return Math.min(at, size);
    }

    /**
     * Gives every hole in the range a block of zeros, and a small first block the memory the range needs, and grows
     * the file to the range's end.
     */
    void allocate(long offset, long length) {
        checkRange(offset, length);
        if (length == 0) {
            return;
        }
        for (long b = offset / block, last = (offset + length - 1) / block; b <= last; b++) {
            DataBlock d = b < blocks.length ? blocks[(int) b] : null;
            int end = (int) Math.min(block, offset + length - b * block);
            if (d == null || d.capacity < end) {
                writable((int) b, end);
            }
        }
        size = Math.max(size, offset + length);
    }

    /**
     * Makes the range, cut at the end of the file, read as zeros: the blocks it covers whole are let go (a reader
     * holding one keeps it), the others zeroed in part. The size does not change.
     */
    void deallocate(long offset, long length) {
        if (offset < 0 || length < 0) {
            throw new IllegalArgumentException("negative offset or length: " + offset + ", " + length);
        }
        if (offset >= size || length == 0) {
            return;
        }
        long end = length > size - offset ? size : offset + length;
        for (long b = offset / block; b * block < end && b < blocks.length; b++) {
            if (blocks[(int) b] == null) {
                continue;
            }
            long start = b * block;
            long stop = Math.min(start + block, size); // bytes past the end are zeros already
            DataBlock d = blocks[(int) b];
            if (start >= offset && stop <= end) {
                d.release();
                blocks[(int) b] = null;
                allocatedBytes -= d.capacity;
            } else {
                int from = (int) (Math.max(start, offset) - start);
                int to = (int) Math.min(Math.min(stop, end) - start, d.capacity); // past the memory: zeros already
                if (from < to) {
                    zero(writable((int) b, to).bytes, from, to);
                }
            }
        }
    }

    /**
     * Copies {@code count} bytes of {@code src} (this file or another of the same block memory) from
     * {@code srcOffset} to {@code dstOffset}; the caller cut {@code count} to the source's size and refused
     * overlapping ranges of one file. A whole block whose source is a whole block is shared, not copied: both files
     * hold it, and the first to change it changes a copy of its own (as with a lent block). A hole stays a hole.
     */
    void copyFrom(MemoryFileData src, long srcOffset, long dstOffset, long count) {
        checkRange(dstOffset, count);
        if (src.block != block) {
            throw new IllegalArgumentException("block sizes differ: " + src.block + ", " + block);
        }
        long done = 0;
        while (done < count) {
            long to = dstOffset + done;
            long from = srcOffset + done;
            int b = (int) (to / block);
            int in = (int) (to % block);
            int chunk = (int) Math.min(count - done, block - in);
            long sb = from / block;
            boolean whole = chunk == block && from % block == 0;
            DataBlock source = whole && sb < src.blocks.length ? src.blocks[(int) sb] : null;
            if (whole && (source == null || source.capacity == block)) {
                index(b);
                DataBlock old = blocks[b];
                blocks[b] = source == null ? null : new DataBlock(source.memory.retain());
                allocatedBytes += (source == null ? 0 : block) - (old == null ? 0 : old.capacity);
                if (old != null) {
                    old.release();
                }
            } else {
                ByteBuffer target = writable(b, in + chunk).bytes.duplicate();
                target.limit(in + chunk).position(in);
                src.read(from, target);
            }
            done += chunk;
            size = Math.max(size, dstOffset + done); // bytes past the size stay zeros, also if a block runs out
        }
    }

    /** Sets the size; bytes beyond a shrunk size are dropped (they read as zeros if the file grows again). */
    void truncate(long newSize) {
        checkRange(newSize, 0);
        // blocks past the new size go, also past the old one: an ALLOCATE whose memory ran out part-way leaves the
        // blocks it took beyond a size it never set
        long keepBlocks = (newSize + block - 1) / block;
        for (long b = keepBlocks; b < blocks.length; b++) {
            if (blocks[(int) b] != null) {
                allocatedBytes -= blocks[(int) b].capacity;
                blocks[(int) b].release();
                blocks[(int) b] = null;
            }
        }
        if (newSize < size) {
            int keep = (int) keepBlocks;
            int tail = (int) (newSize % block);
            DataBlock last = tail != 0 && keep - 1 < blocks.length ? blocks[keep - 1] : null;
            if (last != null && tail < last.capacity) {
                DataBlock w = writable(keep - 1, last.capacity);
                zero(w.bytes, tail, w.capacity);
            }
        }
        size = newSize;
    }

    /** The file is gone: lets go of every block (a lent one lives on until its readers release it). */
    void drop() {
        truncate(0);
        blocks = new DataBlock[0];
    }

    /** Refuses a range that does not lie within 0..{@link #MAX_SIZE}: callers check their own limit first. */
    private static void checkRange(long offset, long length) {
        if (offset < 0 || length < 0 || offset > MAX_SIZE - length) {
            throw new IllegalArgumentException("range " + offset + "+" + length + " beyond " + MAX_SIZE);
        }
    }
}
