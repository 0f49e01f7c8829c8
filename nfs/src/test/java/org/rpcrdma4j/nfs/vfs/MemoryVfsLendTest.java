package org.rpcrdma4j.nfs.vfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.rpcrdma4j.nfs.testing.Bytes.random;

import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.rpcrdma4j.nfs.CreateMode;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.nfs.SetAttributes;
import org.rpcrdma4j.nfs.StableHow;

/**
 * {@link MemoryVfs#lend}: the views carry the file's bytes (holes as zeros), a range keeps the bytes it was lent even
 * when the file is written, truncated or removed afterwards, and every block's memory goes back exactly once, when
 * neither the file nor a lent range uses it any more. Heap memory lends nothing.
 */
class MemoryVfsLendTest {
    private CountingMemory memory;
    private MemoryVfs vfs;

    private void open(int blockSize) {
        memory = new CountingMemory(blockSize);
        vfs = new MemoryVfs(64L << 20, memory);
    }

    @AfterEach
    void close() throws Exception {
        if (vfs != null) {
            vfs.close();
        }
    }

    private FileHandle file(String name) throws NfsException {
        return vfs.create(vfs.root(), name, CreateMode.UNCHECKED, SetAttributes.NONE, 0).handle();
    }

    /** The bytes of every piece of {@code r}, in order (checked to add up to its count). */
    static byte[] bytesOf(LentRange r) {
        byte[] out = new byte[r.count()];
        int at = 0;
        for (ByteBuffer piece : r.pieces()) {
            ByteBuffer p = piece.duplicate();
            int n = p.remaining();
            p.get(out, at, n);
            at += n;
        }
        assertThat(at).isEqualTo(r.count());
        return out;
    }

    @ParameterizedTest
    @ValueSource(ints = {64 * 1024, 1 << 20})
    void lentViewsCarryTheFilesBytesAndHolesAsZeros(int blockSize) throws Exception {
        open(blockSize);
        FileHandle fh = file("f");
        byte[] head = random(100_000, 1);
        byte[] tail = random(70_000, 2);
        long tailAt = 3L * blockSize + 123; // blocks 1 and 2 stay holes
        vfs.write(fh, 0, ByteBuffer.wrap(head), StableHow.UNSTABLE);
        vfs.write(fh, tailAt, ByteBuffer.wrap(tail), StableHow.UNSTABLE);
        long size = tailAt + tail.length;
        byte[] expected = new byte[(int) size];
        System.arraycopy(head, 0, expected, 0, head.length);
        System.arraycopy(tail, 0, expected, (int) tailAt, tail.length);

        for (long offset : new long[] {0, 1, 99_999, blockSize - 7L, tailAt - 5, size - 1}) {
            int count = (int) Math.min(1 << 20, size - offset + 10);
            LentRange r = vfs.lend(fh, offset, count);
            int expectedCount = (int) Math.min(count, size - offset);
            assertThat(r.count()).isEqualTo(expectedCount);
            assertThat(r.eof()).isEqualTo(offset + expectedCount >= size);
            assertThat(bytesOf(r)).isEqualTo(Arrays.copyOfRange(expected, (int) offset,
                    (int) offset + expectedCount));
            // the copying read agrees
            ByteBuffer dst = ByteBuffer.allocate(count);
            vfs.read(fh, offset, dst);
            assertThat(Arrays.copyOf(dst.array(), dst.position())).isEqualTo(bytesOf(r));
            r.data().release();
        }
        LentRange beyond = vfs.lend(fh, size + 5, 4096);
        assertThat(beyond.count()).isZero();
        assertThat(beyond.eof()).isTrue();
        beyond.data().release();
    }

    @Test
    void aRangeKeepsTheBytesItWasLentWhileTheFileIsOverwrittenAndTheFileSeesTheWrite() throws Exception {
        open(64 * 1024);
        FileHandle fh = file("f");
        byte[] before = random(200_000, 3);
        vfs.write(fh, 0, ByteBuffer.wrap(before), StableHow.UNSTABLE);
        LentRange r = vfs.lend(fh, 0, before.length);

        byte[] after = random(200_000, 4);
        vfs.write(fh, 0, ByteBuffer.wrap(after), StableHow.UNSTABLE);

        assertThat(bytesOf(r)).isEqualTo(before);
        ByteBuffer dst = ByteBuffer.allocate(after.length);
        vfs.read(fh, 0, dst);
        assertThat(dst.array()).isEqualTo(after);
        LentRange now = vfs.lend(fh, 0, after.length);
        assertThat(bytesOf(now)).isEqualTo(after);
        now.data().release();

        int whileLent = memory.out.get();
        r.data().release();
        // the four blocks the range held were replaced by copies: they go back now, the file keeps its own four
        assertThat(memory.out.get()).isEqualTo(whileLent - 4).isEqualTo(4);
    }

    @Test
    void truncatingOrRemovingALentFileKeepsTheRangeIntactAndFreesEverythingAfterRelease() throws Exception {
        open(64 * 1024);
        FileHandle fh = file("f");
        byte[] content = random(300_000, 5);
        vfs.write(fh, 0, ByteBuffer.wrap(content), StableHow.UNSTABLE);
        LentRange r = vfs.lend(fh, 1000, 250_000);

        vfs.setattr(fh, SetAttributes.NONE.withSize(70_000L), null);
        assertThat(bytesOf(r)).isEqualTo(Arrays.copyOfRange(content, 1000, 251_000));
        vfs.remove(vfs.root(), "f");
        assertThat(bytesOf(r)).isEqualTo(Arrays.copyOfRange(content, 1000, 251_000));
        assertThat(memory.out.get()).isPositive();

        r.data().release();
        assertThat(memory.out.get()).isZero();
    }

    @Test
    void aShrunkThenGrownLentBlockReadsZerosBeyondTheOldEndWhileTheRangeKeepsTheOldBytes() throws Exception {
        open(64 * 1024);
        FileHandle fh = file("f");
        byte[] content = random(50_000, 6);
        vfs.write(fh, 0, ByteBuffer.wrap(content), StableHow.UNSTABLE);
        LentRange r = vfs.lend(fh, 0, content.length);

        vfs.setattr(fh, SetAttributes.NONE.withSize(10_000L), null);
        vfs.setattr(fh, SetAttributes.NONE.withSize(50_000L), null);

        ByteBuffer dst = ByteBuffer.allocate(50_000);
        vfs.read(fh, 0, dst);
        byte[] expected = new byte[50_000];
        System.arraycopy(content, 0, expected, 0, 10_000);
        assertThat(dst.array()).isEqualTo(expected);
        assertThat(bytesOf(r)).isEqualTo(content);
        r.data().release();
        vfs.remove(vfs.root(), "f");
        assertThat(memory.out.get()).isZero();
    }

    @Test
    void aRangeReleasedTwiceIsRefused() throws Exception {
        open(64 * 1024);
        FileHandle fh = file("f");
        vfs.write(fh, 0, ByteBuffer.wrap(random(10, 7)), StableHow.UNSTABLE);
        LentRange r = vfs.lend(fh, 0, 10);
        assertThat(r.data().release()).isTrue();
        assertThatThrownBy(r.data()::release).isInstanceOf(io.netty.util.IllegalReferenceCountException.class);
    }

    @Test
    void heapMemoryLendsNothing() throws Exception {
        MemoryVfs heap = new MemoryVfs(1 << 20);
        FileHandle fh = heap.create(heap.root(), "f", CreateMode.UNCHECKED, SetAttributes.NONE, 0).handle();
        heap.write(fh, 0, ByteBuffer.wrap(random(10, 8)), StableHow.UNSTABLE);
        assertThat(heap.lend(fh, 0, 10)).isNull();
    }

    @Test
    void blockSizesThatAreNotPowersOfTwoWithinBoundsAreRefused() {
        for (int size : new int[] {32 * 1024, 96 * 1024, 32 << 20}) {
            CountingMemory m = new CountingMemory(size);
            assertThatThrownBy(() -> new MemoryVfs(1 << 20, m)).isInstanceOf(IllegalArgumentException.class);
        }
    }
}
