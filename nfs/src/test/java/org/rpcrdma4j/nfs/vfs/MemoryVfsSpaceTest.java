package org.rpcrdma4j.nfs.vfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.rpcrdma4j.nfs.testing.Bytes.random;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rpcrdma4j.nfs.CreateMode;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.Nfs3Status;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.nfs.SetAttributes;
import org.rpcrdma4j.nfs.StableHow;

/**
 * The VFS side of NFSv4.2's ALLOCATE, DEALLOCATE, SEEK and COPY in {@link MemoryVfs}: holes and data at block
 * granularity, space counted as blocks come and go, blocks a copy shares changed only in copies of their own, every
 * block given back once; and what a local directory does ({@link LocalVfs}: no holes it can see, copies in the
 * kernel).
 */
class MemoryVfsSpaceTest {
    private static final int BLOCK = 64 * 1024;

    private CountingMemory memory;
    private MemoryVfs vfs;

    @TempDir
    Path dir;

    private void open(long capacity) {
        memory = new CountingMemory(BLOCK);
        vfs = new MemoryVfs(capacity, memory);
    }

    @AfterEach
    void close() {
        if (vfs != null) {
            vfs.close();
            assertThat(memory.out.get()).as("blocks still out after close").isZero();
        }
    }

    private FileHandle file(Vfs v, String name) throws NfsException {
        return v.create(v.root(), name, CreateMode.UNCHECKED, SetAttributes.NONE, 0).handle();
    }

    private static void write(Vfs v, FileHandle fh, long offset, byte[] data) throws NfsException {
        v.write(fh, offset, ByteBuffer.wrap(data), StableHow.FILE_SYNC);
    }

    private static byte[] read(Vfs v, FileHandle fh, long offset, int count) throws NfsException {
        ByteBuffer b = ByteBuffer.allocate(count);
        v.read(fh, offset, b);
        return Arrays.copyOf(b.array(), b.position());
    }

    private long used() throws NfsException {
        return vfs.fsstat(vfs.root()).totalBytes() - vfs.fsstat(vfs.root()).freeBytes();
    }

    private static int status(ThrowingRunnable r) {
        try {
            r.run();
        } catch (NfsException e) {
            return e.wireValue();
        }
        throw new AssertionError("no NfsException");
    }

    @FunctionalInterface
    interface ThrowingRunnable {
        void run() throws NfsException;
    }

    /**
     * An ALLOCATE that runs out of block memory part-way leaves blocks past the file's size; a SETATTR that grows the
     * file drops them, and the space they took comes back (it stayed counted as used, for good).
     */
    @Test
    void growingAFileAfterAnAllocateThatFailedGivesItsBlocksSpaceBack() throws Exception {
        int[] blocks = {0};
        BlockMemory scarce = new BlockMemory() {
            @Override
            public io.netty.buffer.ByteBuf allocate(int size) {
                if (++blocks[0] == 3) {
                    throw new IllegalStateException("out of block memory");
                }
                return io.netty.buffer.Unpooled.directBuffer(size, size);
            }

            @Override
            public boolean lends() {
                return true;
            }
        };
        MemoryVfs v = new MemoryVfs(1L << 30, scarce);
        try {
            long free = v.fsstat(v.root()).freeBytes();
            FileHandle fh = file(v, "f");
            assertThatThrownBy(() -> v.allocate(fh, 0, 3L * BLOCK)).isInstanceOf(IllegalStateException.class);
            assertThat(v.getattr(fh).size()).isZero();
            v.setattr(fh, SetAttributes.NONE.withSize(10L), null);
            v.remove(v.root(), "f");
            assertThat(v.fsstat(v.root()).freeBytes()).as("free space once the file is gone").isEqualTo(free);
        } finally {
            v.close();
        }
    }

    @Test
    void allocateFillsHolesWithZerosGrowsTheFileAndCountsTheSpace() throws Exception {
        open(1L << 20);
        FileHandle f = file(vfs, "f");
        byte[] head = random(1000, 1);
        write(vfs, f, 0, head);
        long before = used();

        vfs.allocate(f, 100, 3 * BLOCK);

        assertThat(vfs.getattr(f).size()).isEqualTo(100 + 3 * BLOCK);
        assertThat(before).as("a file of 1,000 bytes: a small block").isEqualTo(MemoryFileData.SMALL);
        // block 0 was small and is now whole; 1..3 are new
        assertThat(used() - before).isEqualTo(3L * BLOCK + BLOCK - MemoryFileData.SMALL);
        assertThat(vfs.getattr(f).used()).isEqualTo(4L * BLOCK);
        byte[] all = read(vfs, f, 0, 100 + 3 * BLOCK);
        assertThat(Arrays.copyOf(all, 1000)).isEqualTo(head);
        assertThat(Arrays.copyOfRange(all, 1000, all.length)).containsOnly(0);
        // allocated blocks are data, not holes
        assertThat(vfs.seek(f, 2 * BLOCK, false)).isEqualTo(100 + 3 * BLOCK);

        // within the size: nothing grows, holes are not allocated twice
        vfs.allocate(f, 0, BLOCK);
        assertThat(vfs.getattr(f).size()).isEqualTo(100 + 3 * BLOCK);
        assertThat(used() - before).isEqualTo(3L * BLOCK + BLOCK - MemoryFileData.SMALL);

        assertThat(status(() -> vfs.allocate(f, 0, 2L << 20))).isEqualTo(Nfs3Status.NFS3ERR_FBIG.wireValue());
        write(vfs, file(vfs, "other"), 0, random(2 * BLOCK, 11)); // 6 of 16 blocks used; 12 more do not fit
        assertThat(status(() -> vfs.allocate(f, 4 * BLOCK, 12 * BLOCK)))
                .isEqualTo(Nfs3Status.NFS3ERR_NOSPC.wireValue());
        assertThat(vfs.getattr(f).size()).as("a refused allocation changes nothing").isEqualTo(100 + 3 * BLOCK);
    }

    @Test
    void deallocateFreesWholeBlocksZerosPartsKeepsTheSizeAndLeavesLentBytesAlone() throws Exception {
        open(64L << 20);
        FileHandle f = file(vfs, "f");
        byte[] data = random(5 * BLOCK + 300, 2);
        write(vfs, f, 0, data);
        LentRange lent = vfs.lend(f, BLOCK, BLOCK);
        long before = used();

        // from the middle of block 0 to the middle of block 4: blocks 1..3 go, 0 and 4 are zeroed in part
        vfs.deallocate(f, BLOCK / 2, 4 * BLOCK);

        assertThat(vfs.getattr(f).size()).isEqualTo(data.length);
        assertThat(before - used()).isEqualTo(3L * BLOCK);
        byte[] expected = data.clone();
        Arrays.fill(expected, BLOCK / 2, BLOCK / 2 + 4 * BLOCK, (byte) 0);
        assertThat(read(vfs, f, 0, data.length)).isEqualTo(expected);
        assertThat(MemoryVfsLendTest.bytesOf(lent)).as("a lent block keeps its bytes")
                .isEqualTo(Arrays.copyOfRange(data, BLOCK, 2 * BLOCK));
        lent.data().release();

        // the holes are holes, and the tail's range beyond the end is ignored
        assertThat(vfs.seek(f, 0, false)).isEqualTo(BLOCK);
        assertThat(vfs.seek(f, BLOCK, true)).isEqualTo(4 * BLOCK);
        vfs.deallocate(f, 5 * BLOCK, Long.MAX_VALUE - 5 * BLOCK);
        assertThat(vfs.getattr(f).size()).isEqualTo(data.length);
        assertThat(read(vfs, f, 5 * BLOCK, 300)).containsOnly(0);
        vfs.deallocate(f, 10 * BLOCK, BLOCK); // beyond the end: nothing
        assertThat(vfs.getattr(f).size()).isEqualTo(data.length);
    }

    @Test
    void seekFindsDataAndHolesAndRefusesTheEndAsLseekDoes() throws Exception {
        open(64L << 20);
        FileHandle f = file(vfs, "f");
        write(vfs, f, 2 * BLOCK + 10, random(100, 3)); // hole 0..2*BLOCK, data block 2
        vfs.setattr(f, new SetAttributes(null, null, null, 6L * BLOCK, null, null), null); // a hole to the end

        assertThat(vfs.seek(f, 0, true)).isEqualTo(2 * BLOCK);
        assertThat(vfs.seek(f, 0, false)).isEqualTo(0);
        assertThat(vfs.seek(f, 2 * BLOCK + 50, true)).isEqualTo(2 * BLOCK + 50);
        assertThat(vfs.seek(f, 2 * BLOCK + 50, false)).isEqualTo(3 * BLOCK);
        // data asked for in the hole that ends the file, and any offset at or past the end: ENXIO
        assertThat(status(() -> vfs.seek(f, 3 * BLOCK, true))).isEqualTo(Nfs3Status.NFS3ERR_NXIO.wireValue());
        assertThat(status(() -> vfs.seek(f, 6 * BLOCK, false))).isEqualTo(Nfs3Status.NFS3ERR_NXIO.wireValue());
        assertThat(status(() -> vfs.seek(f, 7 * BLOCK, true))).isEqualTo(Nfs3Status.NFS3ERR_NXIO.wireValue());

        FileHandle full = file(vfs, "full");
        write(vfs, full, 0, random(BLOCK + 5, 4));
        assertThat(vfs.seek(full, 7, false)).as("the end of the file is a hole").isEqualTo(BLOCK + 5);
    }

    @Test
    void copySharesWholeBlocksUntilEitherFileChangesThem() throws Exception {
        open(64L << 20);
        FileHandle src = file(vfs, "src");
        byte[] data = random(4 * BLOCK + 123, 5);
        write(vfs, src, 0, data);
        vfs.deallocate(src, 2 * BLOCK, BLOCK); // a hole in the middle
        byte[] source = read(vfs, src, 0, data.length);
        int blocksBefore = memory.out.get();

        FileHandle dst = file(vfs, "dst");
        assertThat(vfs.copy(src, 0, dst, 0, 1L << 30)).as("cut at the source's end").isEqualTo(data.length);

        assertThat(read(vfs, dst, 0, data.length)).isEqualTo(source);
        assertThat(memory.out.get() - blocksBefore).as("whole blocks shared; only the tail block copied")
                .isEqualTo(1);
        assertThat(vfs.seek(dst, 0, false)).as("the hole stayed a hole").isEqualTo(2 * BLOCK);

        // a change to either file is a change to its own copy of the block
        write(vfs, dst, 10, new byte[] {1, 2, 3});
        write(vfs, src, BLOCK + 10, new byte[] {4, 5, 6});
        assertThat(read(vfs, src, 0, data.length)).isEqualTo(patched(source, BLOCK + 10, new byte[] {4, 5, 6}));
        assertThat(read(vfs, dst, 0, data.length)).isEqualTo(patched(source, 10, new byte[] {1, 2, 3}));

        vfs.remove(vfs.root(), "src");
        assertThat(read(vfs, dst, 0, data.length)).isEqualTo(patched(source, 10, new byte[] {1, 2, 3}));
    }

    @Test
    void sharedBlocksSurvivePunchesTruncationAndRemovalOfEitherFileAndAreCountedOnce() throws Exception {
        open(64L << 20);
        FileHandle src = file(vfs, "src");
        byte[] data = random(4 * BLOCK, 12);
        write(vfs, src, 0, data);
        FileHandle dst = file(vfs, "dst");
        write(vfs, dst, 0, random(4 * BLOCK, 13)); // blocks the copy replaces
        long usedBefore = used();
        int blocksBefore = memory.out.get();

        assertThat(vfs.copy(src, 0, dst, 0, 4 * BLOCK)).isEqualTo(4 * BLOCK);
        assertThat(memory.out.get()).as("the destination's own blocks went back").isEqualTo(blocksBefore - 4);
        assertThat(used()).as("the capacity counts a shared block for each file").isEqualTo(usedBefore);

        vfs.deallocate(src, 0, BLOCK); // a shared block let go by one file
        vfs.deallocate(dst, 2 * BLOCK + 10, 20); // a shared block changed in part: a copy of its own
        vfs.setattr(src, new SetAttributes(null, null, null, 3L * BLOCK + 7, null, null), null); // cut in a shared one
        byte[] expectedDst = data.clone();
        java.util.Arrays.fill(expectedDst, 2 * BLOCK + 10, 2 * BLOCK + 30, (byte) 0);
        assertThat(read(vfs, dst, 0, 4 * BLOCK)).isEqualTo(expectedDst);
        byte[] expectedSrc = Arrays.copyOf(data, 3 * BLOCK + 7);
        Arrays.fill(expectedSrc, 0, BLOCK, (byte) 0);
        assertThat(read(vfs, src, 0, 4 * BLOCK)).isEqualTo(expectedSrc);

        vfs.remove(vfs.root(), "src");
        assertThat(read(vfs, dst, 0, 4 * BLOCK)).isEqualTo(expectedDst);
        assertThat(used()).isEqualTo(vfs.getattr(dst).used());
        vfs.remove(vfs.root(), "dst");
        assertThat(used()).isZero();
        assertThat(memory.out.get()).as("every block back once").isEqualTo(blocksBefore - 8);
    }

    @Test
    void cloneSharesWholeBlocksAndRefusesWhatLinuxRefuses() throws Exception {
        open(64L << 20);
        FileHandle src = file(vfs, "src");
        byte[] data = random(3 * BLOCK + 9, 14);
        write(vfs, src, 0, data);
        FileHandle dst = file(vfs, "dst");
        int blocksBefore = memory.out.get();

        vfs.clone(src, 0, dst, 0, 0); // 0: to the end of the source
        assertThat(read(vfs, dst, 0, data.length + 1)).isEqualTo(data);
        assertThat(memory.out.get() - blocksBefore).as("three blocks shared, the tail's block taken").isEqualTo(1);
        vfs.clone(src, BLOCK, dst, 4 * BLOCK, 0);
        assertThat(read(vfs, dst, 4 * BLOCK, 2 * BLOCK + 9)).isEqualTo(Arrays.copyOfRange(data, BLOCK, data.length));
        vfs.clone(src, 2 * BLOCK, dst, 0, BLOCK);
        assertThat(read(vfs, dst, 0, BLOCK)).isEqualTo(Arrays.copyOfRange(data, 2 * BLOCK, 3 * BLOCK));
        FileHandle empty = file(vfs, "empty");
        vfs.clone(empty, 0, dst, 0, 0); // nothing from the end to the end, as in Linux
        assertThat(vfs.getattr(dst).size()).isEqualTo(6L * BLOCK + 9);

        int inval = Nfs3Status.NFS3ERR_INVAL.wireValue();
        assertThat(status(() -> vfs.clone(src, data.length, dst, 0, 1))).as("from the end").isEqualTo(inval);
        assertThat(status(() -> vfs.clone(src, 0, dst, 0, 4 * BLOCK))).as("past the end").isEqualTo(inval);
        assertThat(status(() -> vfs.clone(src, 10, dst, 0, BLOCK))).as("not on a block").isEqualTo(inval);
        assertThat(status(() -> vfs.clone(src, 0, dst, 0, 100))).as("a part of a block").isEqualTo(inval);
        assertThat(status(() -> vfs.clone(src, 0, src, BLOCK, 2 * BLOCK))).as("overlapping").isEqualTo(inval);
        assertThat(status(() -> vfs.clone(src, 0, dst, 64L << 20, BLOCK))).as("past the largest file")
                .isEqualTo(Nfs3Status.NFS3ERR_FBIG.wireValue());
        assertThat(read(vfs, dst, 4 * BLOCK, 2 * BLOCK + 9)).as("nothing of a refused clone")
                .isEqualTo(Arrays.copyOfRange(data, BLOCK, data.length));
    }

    @Test
    void aCloneThatCannotHaveItsMemoryChangesNothing() throws Exception {
        CountingMemory counting = new CountingMemory(BLOCK);
        boolean[] out = {false};
        BlockMemory failing = new BlockMemory() {
            @Override
            public io.netty.buffer.ByteBuf allocate(int size) {
                if (out[0]) {
                    throw new OutOfMemoryError("Direct buffer memory");
                }
                return counting.allocate(size);
            }

            @Override
            public boolean lends() {
                return true;
            }
        };
        try (MemoryVfs v = new MemoryVfs(64L << 20, failing)) {
            FileHandle src = file(v, "src");
            write(v, src, 0, random(2 * BLOCK + 5, 15));
            FileHandle dst = file(v, "dst");
            long freeBefore = v.fsstat(v.root()).freeBytes();
            out[0] = true;
            assertThatThrownBy(() -> v.clone(src, 0, dst, 0, 0)).isInstanceOf(OutOfMemoryError.class);
            assertThat(v.getattr(dst).size()).isZero();
            assertThat(v.getattr(dst).used()).isZero();
            assertThat(v.fsstat(v.root()).freeBytes()).isEqualTo(freeBefore);
            out[0] = false;
            v.clone(src, 0, dst, 0, 0);
            assertThat(read(v, dst, 0, 3 * BLOCK)).isEqualTo(read(v, src, 0, 3 * BLOCK));
        }
        assertThat(counting.out.get()).as("every block back").isZero();
    }

    @Test
    void aWriteWhoseMemoryRunsOutHalfwayKeepsTheSpaceCountRight() throws Exception {
        CountingMemory counting = new CountingMemory(BLOCK);
        int[] left = {Integer.MAX_VALUE};
        BlockMemory failing = new BlockMemory() {
            @Override
            public io.netty.buffer.ByteBuf allocate(int size) {
                if (left[0]-- <= 0) {
                    throw new OutOfMemoryError("Direct buffer memory");
                }
                return counting.allocate(size);
            }

            @Override
            public boolean lends() {
                return true;
            }
        };
        try (MemoryVfs v = new MemoryVfs(64L << 20, failing)) {
            long freeEmpty = v.fsstat(v.root()).freeBytes();
            FileHandle f = file(v, "f");
            left[0] = 1; // the second of three blocks cannot be had
            assertThatThrownBy(() -> write(v, f, 0, random(3 * BLOCK, 3))).isInstanceOf(OutOfMemoryError.class);
            left[0] = Integer.MAX_VALUE;
            assertThat(v.fsstat(v.root()).freeBytes()).as("the block taken is counted")
                    .isEqualTo(freeEmpty - v.getattr(f).used());
            v.remove(v.root(), "f");
            assertThat(v.fsstat(v.root()).freeBytes()).as("and given back, not twice").isEqualTo(freeEmpty);
        }
        assertThat(counting.out.get()).as("every block back").isZero();
    }

    private static byte[] patched(byte[] base, int at, byte[] bytes) {
        byte[] out = base.clone();
        System.arraycopy(bytes, 0, out, at, bytes.length);
        return out;
    }

    @Test
    void copyAtOffsetsThatDoNotMatchTheBlocksCopiesTheBytes() throws Exception {
        open(64L << 20);
        FileHandle src = file(vfs, "src");
        byte[] data = random(3 * BLOCK, 6);
        write(vfs, src, 0, data);
        FileHandle dst = file(vfs, "dst");
        write(vfs, dst, 0, random(10, 7));

        assertThat(vfs.copy(src, 1000, dst, 5, 2 * BLOCK)).isEqualTo(2 * BLOCK);

        byte[] got = read(vfs, dst, 0, 5 + 2 * BLOCK);
        assertThat(Arrays.copyOf(got, 5)).isEqualTo(Arrays.copyOf(random(10, 7), 5));
        assertThat(Arrays.copyOfRange(got, 5, got.length)).isEqualTo(Arrays.copyOfRange(data, 1000, 1000 + 2 * BLOCK));
        // within one file, ranges apart
        assertThat(vfs.copy(src, 0, src, 2 * BLOCK, BLOCK)).isEqualTo(BLOCK);
        assertThat(read(vfs, src, 2 * BLOCK, BLOCK)).isEqualTo(Arrays.copyOf(data, BLOCK));
    }

    @Test
    void copyRefusesOverlapsAndLimitsAndCopiesNothingPastTheSourcesEnd() throws Exception {
        open(4L * BLOCK);
        FileHandle src = file(vfs, "src");
        write(vfs, src, 0, random(2 * BLOCK, 8));
        FileHandle dst = file(vfs, "dst");

        assertThat(status(() -> vfs.copy(src, 0, src, BLOCK, BLOCK + 1))).isEqualTo(Nfs3Status.NFS3ERR_INVAL.wireValue());
        assertThat(status(() -> vfs.copy(src, 0, dst, 4L * BLOCK, 1))).isEqualTo(Nfs3Status.NFS3ERR_FBIG.wireValue());
        assertThat(vfs.copy(src, 2 * BLOCK, dst, 0, 10)).isZero();
        assertThat(vfs.copy(src, 5 * BLOCK, dst, 0, 10)).isZero();
        assertThat(vfs.getattr(dst).size()).isZero();
        // two blocks of four are used: a copy that could need three more is refused, whole
        FileHandle third = file(vfs, "third");
        write(vfs, third, 0, new byte[1]);
        assertThat(status(() -> vfs.copy(src, 0, dst, 1, 2 * BLOCK))).isEqualTo(Nfs3Status.NFS3ERR_NOSPC.wireValue());
        assertThat(vfs.getattr(dst).size()).isZero();
    }

    @Test
    void aLocalDirectorySeesAllDataAndCopiesInTheKernel() throws Exception {
        try (LocalVfs local = LocalVfs.open(dir)) {
            FileHandle src = file(local, "src");
            byte[] data = random((3 << 20) + 17, 9);
            write(local, src, 0, data);
            FileHandle dst = file(local, "dst");

            assertThat(local.copy(src, 17, dst, 0, 4L << 20)).isEqualTo(3 << 20);
            assertThat(read(local, dst, 0, 3 << 20)).isEqualTo(Arrays.copyOfRange(data, 17, data.length));
            assertThat(local.copy(src, 0, dst, 5L << 20, 100)).as("past the destination's end").isEqualTo(100);
            assertThat(read(local, dst, 5L << 20, 100)).isEqualTo(Arrays.copyOf(data, 100));
            assertThat(local.copy(src, data.length, dst, 0, 100)).as("from the source's end").isZero();
            assertThat(status(() -> local.copy(src, 0, src, 10, 100))).as("overlapping")
                    .isEqualTo(Nfs3Status.NFS3ERR_INVAL.wireValue());
            assertThat(local.seek(src, 5, true)).isEqualTo(5);
            assertThat(local.seek(src, 5, false)).isEqualTo(data.length);
            assertThat(status(() -> local.seek(src, data.length, true))).isEqualTo(Nfs3Status.NFS3ERR_NXIO.wireValue());
            assertThat(status(() -> local.allocate(src, 0, 10))).isEqualTo(Nfs3Status.NFS3ERR_NOTSUPP.wireValue());
            assertThat(status(() -> local.deallocate(src, 0, 10))).isEqualTo(Nfs3Status.NFS3ERR_NOTSUPP.wireValue());
            assertThat(status(() -> local.clone(src, 0, dst, 0, 0))).isEqualTo(Nfs3Status.NFS3ERR_NOTSUPP.wireValue());
        }
    }
}
