package org.rpcrdma4j.nfs.vfs;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The bytes of an in-memory regular file: fixed-size blocks allocated on first write, so holes cost no data blocks
 * and a large file never needs one huge array. The block index is a dense array of references, so a file never grows
 * beyond {@link #MAX_SIZE} (whose block numbers all fit an {@code int}), and the caller bounds every size it passes
 * (MemoryVfs refuses sizes beyond its capacity before calling): the index then costs at most one reference per
 * {@link #BLOCK} bytes of that bound. Not thread-safe; {@link MemoryVfs} guards it with its lock.
 */
final class MemoryFileData {
    static final int BLOCK = 64 * 1024;
    /** Most blocks a file may span. */
    static final int MAX_BLOCKS = 1 << 30;
    /** Largest size a file may have: block numbers below {@link #MAX_BLOCKS} never wrap when cast to int. */
    static final long MAX_SIZE = (long) MAX_BLOCKS * BLOCK;
    /** A block of zeros, the source of a hole's bytes (never written). */
    private static final byte[] ZEROS = new byte[BLOCK];

    private byte[][] blocks = new byte[0][];
    private long size;
    private long allocatedBytes;

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
        long first = offset / BLOCK;
        long last = (offset + length - 1) / BLOCK;
        long needed = 0;
        for (long b = first; b <= last; b++) {
            if (b >= blocks.length || blocks[(int) b] == null) {
                needed += BLOCK;
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
            int b = (int) (pos / BLOCK);
            int in = (int) (pos % BLOCK);
            int chunk = Math.min(n - done, BLOCK - in);
            byte[] block = b < blocks.length ? blocks[b] : null;
            // one bulk copy per block (a hole copies from the shared zero block)
            dst.put(block == null ? ZEROS : block, block == null ? 0 : in, chunk);
            done += chunk;
        }
        return n;
    }

    void write(long offset, ByteBuffer src) {
        int n = src.remaining();
        checkRange(offset, n);
        int done = 0;
        while (done < n) {
            long pos = offset + done;
            int b = (int) (pos / BLOCK);
            int in = (int) (pos % BLOCK);
            int chunk = Math.min(n - done, BLOCK - in);
            src.get(block(b), in, chunk);
            done += chunk;
        }
        size = Math.max(size, offset + n);
    }

    private byte[] block(int b) {
        if (b >= blocks.length) {
            blocks = Arrays.copyOf(blocks, (int) Math.min(MAX_BLOCKS, Math.max(b + 1L, blocks.length * 2L)));
        }
        if (blocks[b] == null) {
            blocks[b] = new byte[BLOCK];
            allocatedBytes += BLOCK;
        }
        return blocks[b];
    }

    /** Sets the size; bytes beyond a shrunk size are dropped (they read as zeros if the file grows again). */
    void truncate(long newSize) {
        checkRange(newSize, 0);
        if (newSize < size) {
            int keep = (int) ((newSize + BLOCK - 1) / BLOCK);
            for (int b = keep; b < blocks.length; b++) {
                if (blocks[b] != null) {
                    blocks[b] = null;
                    allocatedBytes -= BLOCK;
                }
            }
            int tail = (int) (newSize % BLOCK);
            if (tail != 0 && keep - 1 < blocks.length && blocks[keep - 1] != null) {
                Arrays.fill(blocks[keep - 1], tail, BLOCK, (byte) 0);
            }
        }
        size = newSize;
    }

    /** Refuses a range that does not lie within 0..{@link #MAX_SIZE}: callers check their own limit first. */
    private static void checkRange(long offset, long length) {
        if (offset < 0 || length < 0 || offset > MAX_SIZE - length) {
            throw new IllegalArgumentException("range " + offset + "+" + length + " beyond " + MAX_SIZE);
        }
    }
}
