package org.rpcrdma4j.nfs.vfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rpcrdma4j.nfs.testing.Bytes.random;

import io.netty.util.internal.PlatformDependent;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
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
 * {@link MemoryVfs#write(FileHandle, long, ByteBuffer, StableHow, WriteMemory)}: whole blocks a write covers become
 * the file's blocks as they are when the writer's memory offers them, the partial blocks at either end are copied,
 * a replaced block goes back (unless a reader holds it), and a kept block goes back exactly once when the file lets
 * go of it. A refused or misshapen offer is copied instead.
 */
class MemoryVfsKeepTest {
    private CountingMemory memory;
    private MemoryVfs vfs;

    /** The memory a write's data arrived in: hands out slices of it, counted. */
    private static final class Arrival implements WriteMemory {
        final ByteBuffer bytes;
        final List<List<Integer>> asked = new ArrayList<>();
        final CountingMemory kept = new CountingMemory(MemoryFileData.BLOCK);
        boolean refuse;
        int shrinkBy;

        Arrival(byte[] data) {
            bytes = ByteBuffer.allocateDirect(data.length + 16).position(16).slice();
            bytes.put(0, data);
        }

        @Override
        public io.netty.buffer.ByteBuf keep(ByteBuffer view) {
            // where the view lies in the arrival: by address, as the RDMA server finds it
            int index = (int) (PlatformDependent.directBufferAddress(view) + view.position()
                    - PlatformDependent.directBufferAddress(bytes));
            asked.add(List.of(index, view.remaining()));
            return refuse ? null : kept.counted(bytes.slice(index, view.remaining() - shrinkBy));
        }
    }

    private void open(int blockSize) {
        memory = new CountingMemory(blockSize);
        vfs = new MemoryVfs(64L << 20, memory);
    }

    private final List<Arrival> arrivals = new ArrayList<>();

    private Arrival arrival(byte[] data) {
        Arrival a = new Arrival(data);
        arrivals.add(a);
        return a;
    }

    @AfterEach
    void close() throws Exception {
        if (vfs != null) {
            vfs.close();
            vfs.close(); // a second close does nothing
        }
        assertThat(memory.out.get()).as("the VFS's own blocks after close").isZero();
        for (Arrival a : arrivals) {
            assertThat(a.kept.out.get()).as("kept blocks after close").isZero();
        }
    }

    private FileHandle file(String name) throws NfsException {
        return vfs.create(vfs.root(), name, CreateMode.UNCHECKED, SetAttributes.NONE, 0).handle();
    }

    private byte[] contents(FileHandle fh, long offset, int n) throws NfsException {
        ByteBuffer dst = ByteBuffer.allocate(n);
        vfs.read(fh, offset, dst);
        return Arrays.copyOf(dst.array(), dst.position());
    }

    @ParameterizedTest
    @ValueSource(ints = {64 * 1024, 1 << 20})
    void wholeBlocksAreKeptAndTheEdgesCopied(int block) throws Exception {
        open(block);
        FileHandle fh = file("f");
        byte[] data = random(3 * block + 2000, 1);
        long offset = block - 1000L;
        Arrival arrival = arrival(data);
        ByteBuffer src = arrival.bytes.duplicate().limit(data.length);

        vfs.write(fh, offset, src, StableHow.UNSTABLE, arrival);

        assertThat(src.hasRemaining()).isFalse();
        assertThat(arrival.asked).as("blocks 1 to 3 lie whole in the write, 0 and 4 do not")
                .containsExactly(List.of(1000, block), List.of(1000 + block, block), List.of(1000 + 2 * block, block));
        assertThat(arrival.kept.out.get()).isEqualTo(3);
        assertThat(memory.out.get()).as("blocks 0 and 4 from the VFS's memory").isEqualTo(2);
        assertThat(contents(fh, offset, data.length)).isEqualTo(data);
        // the edges were copied: the arrival memory changing there does not change the file
        arrival.bytes.put(0, new byte[1000]);
        arrival.bytes.put(1000 + 3 * block, new byte[data.length - 1000 - 3 * block]);
        assertThat(contents(fh, offset, data.length)).isEqualTo(data);
        assertThat(vfs.getattr(fh).size()).isEqualTo(offset + data.length);

        vfs.remove(vfs.root(), "f");
        assertThat(arrival.kept.out.get()).as("kept blocks go back with the file").isZero();
        assertThat(memory.out.get()).isZero();
    }

    @Test
    void aKeptBlockReplacesTheFilesBlockWhichGoesBack() throws Exception {
        open(64 * 1024);
        FileHandle fh = file("f");
        vfs.write(fh, 0, ByteBuffer.wrap(random(128 * 1024, 2)), StableHow.UNSTABLE);
        assertThat(memory.out.get()).isEqualTo(2);

        byte[] data = random(128 * 1024, 3);
        Arrival arrival = arrival(data);
        vfs.write(fh, 0, arrival.bytes.duplicate(), StableHow.UNSTABLE, arrival);

        assertThat(memory.out.get()).as("both old blocks replaced and let go").isZero();
        assertThat(arrival.kept.out.get()).isEqualTo(2);
        assertThat(contents(fh, 0, data.length)).isEqualTo(data);

        // a later copying write into a kept block writes into it
        byte[] patch = random(100, 4);
        vfs.write(fh, 500, ByteBuffer.wrap(patch), StableHow.UNSTABLE);
        byte[] expected = data.clone();
        System.arraycopy(patch, 0, expected, 500, patch.length);
        assertThat(contents(fh, 0, data.length)).isEqualTo(expected);

        vfs.setattr(fh, SetAttributes.NONE.withSize(64 * 1024L), null);
        assertThat(arrival.kept.out.get()).as("truncation lets go of the second").isEqualTo(1);
        vfs.remove(vfs.root(), "f");
        assertThat(arrival.kept.out.get()).isZero();
    }

    @Test
    void aReaderKeepsTheBlockAKeptOneReplaced() throws Exception {
        open(64 * 1024);
        FileHandle fh = file("f");
        byte[] before = random(64 * 1024, 5);
        vfs.write(fh, 0, ByteBuffer.wrap(before), StableHow.UNSTABLE);
        LentRange r = vfs.lend(fh, 0, before.length);

        byte[] after = random(64 * 1024, 6);
        Arrival arrival = arrival(after);
        vfs.write(fh, 0, arrival.bytes.duplicate(), StableHow.UNSTABLE, arrival);

        assertThat(MemoryVfsLendTest.bytesOf(r)).isEqualTo(before);
        assertThat(contents(fh, 0, after.length)).isEqualTo(after);
        assertThat(memory.out.get()).as("the reader still holds the old block").isEqualTo(1);
        r.data().release();
        assertThat(memory.out.get()).isZero();
    }

    @Test
    void aLentKeptBlockStaysWithItsReaderThroughOverwriteTruncationAndClose() throws Exception {
        open(64 * 1024);
        FileHandle fh = file("f");
        byte[] data = random(128 * 1024, 9);
        Arrival arrival = arrival(data);
        vfs.write(fh, 0, arrival.bytes.duplicate(), StableHow.UNSTABLE, arrival);
        LentRange r = vfs.lend(fh, 0, data.length);

        vfs.write(fh, 100, ByteBuffer.wrap(random(10, 10)), StableHow.UNSTABLE);
        vfs.setattr(fh, SetAttributes.NONE.withSize(0L), null);
        vfs.close();
        assertThat(arrival.kept.out.get()).as("both kept blocks still lent").isEqualTo(2);
        assertThat(MemoryVfsLendTest.bytesOf(r)).isEqualTo(data);
        r.data().release();
        assertThat(arrival.kept.out.get()).isZero();
    }

    @Test
    void aRefusedOrMisshapenOfferIsCopied() throws Exception {
        open(64 * 1024);
        FileHandle fh = file("f");
        byte[] data = random(128 * 1024, 7);
        Arrival refusing = arrival(data);
        refusing.refuse = true;
        vfs.write(fh, 0, refusing.bytes.duplicate(), StableHow.UNSTABLE, refusing);
        assertThat(refusing.asked).hasSize(2);
        assertThat(memory.out.get()).isEqualTo(2);

        byte[] next = random(128 * 1024, 8);
        Arrival misshapen = arrival(next);
        misshapen.shrinkBy = 4096;
        vfs.write(fh, 0, misshapen.bytes.duplicate(), StableHow.UNSTABLE, misshapen);
        assertThat(misshapen.kept.out.get()).as("a block of the wrong size is given back").isZero();
        assertThat(contents(fh, 0, next.length)).isEqualTo(next);
        // copied: changing the arrival memory changes nothing
        misshapen.bytes.put(0, new byte[next.length]);
        assertThat(contents(fh, 0, next.length)).isEqualTo(next);
    }
}
