package org.rpcrdma4j.xprt.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.registration.BufferPoolConfig;
import org.rpcrdma4j.registration.DirectAddresses;
import org.rpcrdma4j.registration.RegisteredArena;
import org.rpcrdma4j.registration.RegisteredBuffer;
import org.rpcrdma4j.registration.RegisteredBufferPool;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.xprt.TestDevices;

/**
 * The index of the server's registered arenas, by native address: many arenas recorded in any order, each once, and
 * every lookup answered as a scan of all of them would answer it (the arena that holds the whole range, its lkey and
 * the IOVA of the first byte), at the arenas' edges and between them.
 */
class RegisteredMemoryIndexTest {
    private static final int ARENA = 64 * 1024;
    private static final int ARENAS = 300;

    @Test
    void lookupsAnswerAsAScanOfEveryArenaWould() throws Exception {
        assumeTrue(RegisteredMemoryIndex.enabled(), "the runtime does not tell native addresses; nothing is indexed");
        try (RdmaDevice device = TestDevices.open(Map.of())) {
            ProtectionDomain pd = device.allocProtectionDomain();
            RegisteredBufferPool pool = RegisteredBufferPool.create(pd,
                    new BufferPoolConfig(ARENA, 1, ARENAS, Duration.ofSeconds(5)));
            List<RegisteredBuffer> buffers = new ArrayList<>();
            try {
                for (int i = 0; i < ARENAS; i++) {
                    buffers.add(pool.allocate(ARENA)); // a whole arena each
                }
                List<RegisteredArena> arenas = new ArrayList<>();
                buffers.forEach(b -> arenas.add(b.arena()));
                assertThat(arenas.stream().distinct().count()).isEqualTo(ARENAS);

                RegisteredMemoryIndex index = new RegisteredMemoryIndex();
                List<RegisteredBuffer> shuffled = new ArrayList<>(buffers);
                Collections.shuffle(shuffled, new Random(7));
                for (RegisteredBuffer b : shuffled) {
                    index.record(b);
                    index.record(b); // once per arena
                }
                assertThat(index.arenaCount()).isEqualTo(ARENAS);

                Random rnd = new Random(11);
                RegisteredMemoryIndex.Location got = new RegisteredMemoryIndex.Location();
                int found = 0;
                for (int t = 0; t < 20_000; t++) {
                    RegisteredArena a = arenas.get(rnd.nextInt(ARENAS));
                    long base = a.nativeAddress();
                    long address = switch (rnd.nextInt(4)) {
                        case 0 -> base;                                  // the first byte
                        case 1 -> base + ARENA - 1 - rnd.nextInt(16);    // near the last
                        case 2 -> base - 1 - rnd.nextInt(16);            // just before
                        default -> base + rnd.nextInt(ARENA);
                    };
                    int length = 1 + rnd.nextInt(rnd.nextBoolean() ? 64 : 2 * ARENA);
                    RegisteredArena expected = scan(arenas, address, length);
                    got.lkey = -1;
                    got.iova = -1;
                    boolean hit = index.find(address, length, got);
                    assertThat(hit).as("address %x, %d bytes", address, length).isEqualTo(expected != null);
                    if (hit) {
                        found++;
                        assertThat(got.lkey).isEqualTo(expected.lkey());
                        assertThat(got.iova).isEqualTo(expected.address((int) (address - expected.nativeAddress())));
                    }
                }
                assertThat(found).as("lookups that hit").isGreaterThan(5_000);
                long below = arenas.stream().mapToLong(RegisteredArena::nativeAddress).min().orElseThrow();
                assertThat(index.find(below - 8, 4, got)).isFalse();
                assertThat(new RegisteredMemoryIndex().find(below, 1, got)).as("nothing recorded").isFalse();
                long at = DirectAddresses.atPosition(buffers.get(3).nioBuffer(100, 10));
                assertThat(index.find(at, 10, got)).as("a buffer's own view").isTrue();
                assertThat(got.lkey).isEqualTo(buffers.get(3).arena().lkey());
            } finally {
                buffers.forEach(RegisteredBuffer::release);
                pool.close();
                pd.close();
            }
        }
    }

    /** The arena holding all of {@code [address, address + length)}, by looking at each one. */
    private static RegisteredArena scan(List<RegisteredArena> arenas, long address, int length) {
        for (RegisteredArena a : arenas) {
            if (address >= a.nativeAddress() && address + length <= a.nativeAddress() + a.size()) {
                return a;
            }
        }
        return null;
    }
}
