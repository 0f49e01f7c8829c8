package org.rpcrdma4j.nfs.vfs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.rpcrdma4j.nfs.CreateMode;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.nfs.SetAttributes;
import org.rpcrdma4j.nfs.StableHow;

/**
 * A file of at most {@link MemoryFileData#SMALL} bytes takes a small block, not a whole one; it grows whole when a
 * write, an allocation or a copy reaches past it, and reads as zeros past its memory whatever the size says.
 */
class MemoryVfsSmallFilesTest {
    private static final int BLOCK = 64 * 1024;

    private static FileHandle file(MemoryVfs vfs, String name) throws NfsException {
        return vfs.create(vfs.root(), name, CreateMode.UNCHECKED, SetAttributes.NONE, 0).handle();
    }

    private static byte[] read(MemoryVfs vfs, FileHandle f, long offset, int count) throws NfsException {
        ByteBuffer b = ByteBuffer.allocate(count);
        vfs.read(f, offset, b);
        return Arrays.copyOf(b.array(), b.position());
    }

    @Test
    void aMebibyteHoldsTwoHundredSmallFiles() throws Exception {
        try (MemoryVfs vfs = new MemoryVfs(1L << 20)) {
            for (int i = 0; i < 200; i++) {
                FileHandle f = file(vfs, "f" + i);
                vfs.write(f, 0, ByteBuffer.wrap(("file " + i).getBytes()), StableHow.FILE_SYNC);
            }
            for (int i = 0; i < 200; i++) {
                FileHandle f = vfs.lookup(vfs.root(), "f" + i).handle();
                assertThat(new String(read(vfs, f, 0, 100))).isEqualTo("file " + i);
                assertThat(vfs.getattr(f).used()).isEqualTo(MemoryFileData.SMALL);
            }
            // whole blocks, as before, would have held 16
            assertThat(vfs.fsstat(vfs.root()).freeBytes()).isEqualTo((1L << 20) - 200L * MemoryFileData.SMALL);
        }
    }

    /**
     * Random writes (mostly near the start), truncations, punched holes, allocations, copies and lent ranges over a
     * few files, each compared with a copy kept here, on memory that lends (dirty, as a pool's may be); afterwards
     * every block went back.
     */
    @ParameterizedTest
    @ValueSource(longs = {42, 7, 2026})
    void smallAndGrownFilesKeepEveryByte(long seed) throws Exception {
        CountingMemory memory = new CountingMemory(BLOCK);
        Random r = new Random(Long.getLong("smallfiles.seed", seed));
        int max = 3 * BLOCK;
        try (MemoryVfs vfs = new MemoryVfs(64L << 20, memory)) {
            FileHandle[] files = new FileHandle[4];
            byte[][] model = new byte[files.length][];
            for (int i = 0; i < files.length; i++) {
                files[i] = file(vfs, "m" + i);
                model[i] = new byte[0];
            }
            for (int op = 0; op < 4000; op++) {
                int i = r.nextInt(files.length);
                FileHandle f = files[i];
                int size = model[i].length;
                int offset = r.nextInt(4) == 0 ? r.nextInt(max) : r.nextInt(MemoryFileData.SMALL + 200);
                switch (r.nextInt(7)) {
                    case 0, 1 -> {
                        int length = 1 + r.nextInt(r.nextBoolean() ? 300 : 9000);
                        length = Math.min(length, max - offset);
                        byte[] data = new byte[length];
                        r.nextBytes(data);
                        vfs.write(f, offset, ByteBuffer.wrap(data), StableHow.UNSTABLE);
                        model[i] = Arrays.copyOf(model[i], Math.max(size, offset + length));
                        System.arraycopy(data, 0, model[i], offset, length);
                    }
                    case 2 -> {
                        int newSize = r.nextBoolean() ? r.nextInt(MemoryFileData.SMALL + 100) : r.nextInt(max);
                        vfs.setattr(f, SetAttributes.NONE.withSize(newSize), null);
                        model[i] = Arrays.copyOf(model[i], newSize);
                    }
                    case 3 -> {
                        int length = r.nextInt(2000);
                        vfs.deallocate(f, offset, length);
                        int to = (int) Math.min(size, (long) offset + length);
                        if (offset < to) {
                            Arrays.fill(model[i], offset, to, (byte) 0);
                        }
                    }
                    case 4 -> {
                        int length = Math.min(1 + r.nextInt(6000), max - offset);
                        vfs.allocate(f, offset, length);
                        model[i] = Arrays.copyOf(model[i], Math.max(size, offset + length));
                    }
                    case 5 -> {
                        int j = (i + 1 + r.nextInt(files.length - 1)) % files.length;
                        int from = model[j].length == 0 ? 0 : r.nextInt(model[j].length);
                        int count = Math.min(model[j].length - from, r.nextBoolean() ? BLOCK : 500);
                        int at = r.nextBoolean() ? 0 : offset;
                        count = Math.min(count, max - at);
                        if (count == 0) {
                            continue; // COPY's count 0 means "to the end"
                        }
                        long copied = vfs.copy(files[j], from, f, at, count);
                        assertThat(copied).isEqualTo(count);
                        model[i] = Arrays.copyOf(model[i], Math.max(size, at + count));
                        System.arraycopy(model[j], from, model[i], at, count);
                    }
                    default -> {
                        int count = 1 + r.nextInt(8000);
                        LentRange lent = vfs.lend(f, offset, count);
                        try {
                            int expected = Math.max(0, Math.min(count, size - offset));
                            assertThat(MemoryVfsLendTest.bytesOf(lent)).as("op %d: lent", op)
                                    .isEqualTo(Arrays.copyOfRange(model[i], Math.min(offset, size),
                                            Math.min(offset, size) + expected));
                        } finally {
                            lent.data().release();
                        }
                    }
                }
                assertThat(vfs.getattr(f).size()).as("op %d: size", op).isEqualTo(model[i].length);
                assertThat(read(vfs, f, 0, max)).as("op %d: file %d", op, i).isEqualTo(model[i]);
            }
            for (int i = 0; i < files.length; i++) {
                vfs.remove(vfs.root(), "m" + i);
            }
        }
        assertThat(memory.out.get()).as("blocks not given back").isZero();
    }
}
