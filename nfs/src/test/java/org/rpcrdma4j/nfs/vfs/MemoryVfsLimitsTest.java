package org.rpcrdma4j.nfs.vfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.nfs.CreateMode;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.Nfs3Status;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.nfs.SetAttributes;
import org.rpcrdma4j.nfs.StableHow;

/**
 * Sizes and offsets at and beyond {@link MemoryVfs#maxFileSize()}: a WRITE or SETATTR beyond the limit is refused
 * with NFS3ERR_FBIG and changes nothing (no wrapped block index, no huge index allocation), a READ far beyond the end
 * of file reports EOF.
 */
class MemoryVfsLimitsTest {
    private static final long CAPACITY = 64L << 20;
    private final MemoryVfs vfs = new MemoryVfs(CAPACITY);

    @AfterEach
    void close() throws Exception {
        vfs.close();
    }

    private FileHandle fileWith(byte[] content) throws NfsException {
        FileHandle fh = vfs.create(vfs.root(), "f", CreateMode.UNCHECKED, SetAttributes.NONE, 0).handle();
        vfs.write(fh, 0, ByteBuffer.wrap(content), StableHow.FILE_SYNC);
        return fh;
    }

    private static void assertFbig(ThrowingRunnable r) {
        assertThatThrownBy(r::run).isInstanceOfSatisfying(NfsException.class,
                e -> assertThat(e.status()).isEqualTo(Nfs3Status.NFS3ERR_FBIG));
    }

    interface ThrowingRunnable {
        void run() throws Exception;
    }

    private byte[] readAt(FileHandle fh, long offset, int count) throws NfsException {
        ByteBuffer dst = ByteBuffer.allocate(count);
        vfs.read(fh, offset, dst);
        dst.flip();
        byte[] b = new byte[dst.remaining()];
        dst.get(b);
        return b;
    }

    @Test
    void maxFileSizeIsTheCapacity() {
        assertThat(vfs.maxFileSize()).isEqualTo(CAPACITY);
    }

    @Test
    void aWriteOfNothingPastTheEndLeavesTheSizeAlone() throws Exception {
        FileHandle fh = fileWith(new byte[] {1, 2, 3});
        assertThat(vfs.write(fh, 1_000_000, ByteBuffer.allocate(0), StableHow.FILE_SYNC).count()).isZero();
        assertThat(vfs.getattr(fh).size()).as("RFC 1813: a WRITE of count 0 changes nothing").isEqualTo(3);
        assertThat(readAt(fh, 0, 10)).containsExactly(1, 2, 3);
    }

    @Test
    void aWriteWhoseIndexWouldWrapToBlockZeroIsRefusedAndTheFileIsUnchanged() throws Exception {
        FileHandle fh = fileWith(new byte[] {1, 2, 3, 4});
        // 2^47 / 64 KiB = 2^31: cast to int this was block 0
        assertFbig(() -> vfs.write(fh, 1L << 47, ByteBuffer.wrap(new byte[] {9}), StableHow.FILE_SYNC));
        assertThat(readAt(fh, 0, 10)).containsExactly(1, 2, 3, 4);
        assertThat(vfs.getattr(fh).size()).isEqualTo(4);
    }

    @Test
    void aWriteAtAHugeOffsetIsRefusedBeforeAnythingIsAllocated() throws Exception {
        FileHandle fh = fileWith(new byte[] {1});
        // formerly grew the block index to 2^29 + 1 references
        assertFbig(() -> vfs.write(fh, 1L << 45, ByteBuffer.wrap(new byte[] {9}), StableHow.FILE_SYNC));
        assertFbig(() -> vfs.write(fh, Long.MAX_VALUE - 1, ByteBuffer.wrap(new byte[] {9, 9}), StableHow.FILE_SYNC));
        assertThat(vfs.getattr(fh).size()).isEqualTo(1);
    }

    @Test
    void aWriteEndingExactlyAtTheLimitIsAcceptedAndOneByteFurtherIsNot() throws Exception {
        FileHandle fh = fileWith(new byte[0]);
        long max = vfs.maxFileSize();
        vfs.write(fh, max - 2, ByteBuffer.wrap(new byte[] {7, 8}), StableHow.FILE_SYNC);
        assertThat(vfs.getattr(fh).size()).isEqualTo(max);
        assertThat(readAt(fh, max - 2, 10)).containsExactly(7, 8);
        assertFbig(() -> vfs.write(fh, max - 1, ByteBuffer.wrap(new byte[] {5, 6}), StableHow.FILE_SYNC));
        assertThat(readAt(fh, max - 2, 10)).containsExactly(7, 8);
    }

    @Test
    void setattrSizeBeyondTheLimitIsRefusedAndTheSizeIsUnchanged() throws Exception {
        FileHandle fh = fileWith(new byte[] {1, 2, 3});
        assertFbig(() -> vfs.setattr(fh, SetAttributes.NONE.withSize(1L << 47), null));
        assertFbig(() -> vfs.setattr(fh, SetAttributes.NONE.withSize(vfs.maxFileSize() + 1), null));
        assertThat(vfs.getattr(fh).size()).isEqualTo(3);
        vfs.setattr(fh, SetAttributes.NONE.withSize(vfs.maxFileSize()), null);
        assertThat(vfs.getattr(fh).size()).isEqualTo(vfs.maxFileSize());
    }

    @Test
    void createWithASizeBeyondTheLimitIsRefusedAndCreatesNothing() throws Exception {
        assertFbig(() -> vfs.create(vfs.root(), "big", CreateMode.UNCHECKED,
                SetAttributes.NONE.withSize(1L << 50), 0));
        assertThatThrownBy(() -> vfs.lookup(vfs.root(), "big")).isInstanceOfSatisfying(NfsException.class,
                e -> assertThat(e.status()).isEqualTo(Nfs3Status.NFS3ERR_NOENT));
    }

    @Test
    void aReadFarBeyondTheEndOfFileIsAnEmptyEof() throws Exception {
        FileHandle fh = fileWith(new byte[] {1, 2});
        for (long offset : new long[] {1L << 45, 1L << 47, 1L << 62, Long.MAX_VALUE}) {
            ReadResult r = vfs.read(fh, offset, ByteBuffer.allocate(16));
            assertThat(r.count()).as("offset %d", offset).isZero();
            assertThat(r.eof()).as("offset %d", offset).isTrue();
        }
    }

    @Test
    void aHugeCapacityIsCappedAtWhatTheBlockIndexCanAddress() throws Exception {
        try (MemoryVfs huge = new MemoryVfs(Long.MAX_VALUE)) {
            assertThat(huge.maxFileSize()).isEqualTo(MemoryFileData.MAX_SIZE);
            FileHandle fh = huge.create(huge.root(), "f", CreateMode.UNCHECKED, SetAttributes.NONE, 0).handle();
            huge.write(fh, 0, ByteBuffer.wrap(new byte[] {1}), StableHow.FILE_SYNC);
            assertFbig(() -> huge.write(fh, 1L << 47, ByteBuffer.wrap(new byte[] {9}), StableHow.FILE_SYNC));
            ByteBuffer dst = ByteBuffer.allocate(1);
            huge.read(fh, 0, dst);
            assertThat(dst.get(0)).isEqualTo((byte) 1);
        }
    }
}
