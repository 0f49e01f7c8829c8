package org.rpcrdma4j.xprt.server;

import java.nio.ByteBuffer;

import org.rpcrdma4j.registration.DirectAddresses;
import org.rpcrdma4j.registration.RegisteredArena;
import org.rpcrdma4j.registration.RegisteredBuffer;

/**
 * Finds whether a direct {@link ByteBuffer} lies in the registered arenas of the server's buffer pool, and where: the
 * test that lets a reply's DDP result go out by RDMA WRITE straight from the program's buffer.
 * <p>
 * A reply reaches the transport as oncrpc4j {@code Xdr} pieces, plain {@code ByteBuffer}s that no longer know which
 * {@link RegisteredBuffer} they came from, so the match is by native address: an arena is recorded (base address,
 * size) the first time a buffer from it is handed out, and a piece is registered when its whole range falls inside
 * one recorded arena. The address comes from {@link DirectAddresses}; where the runtime does not tell it
 * ({@link #enabled()} false) nothing is ever found and replies are copied instead.
 * <p>
 * Thread-safe: arenas are recorded under a lock into a copy-on-write array; lookups read the array without locking
 * and allocate nothing.
 */
final class RegisteredMemoryIndex {
    private static final boolean ADDRESSES = DirectAddresses.available();

    private volatile Known[] arenas = new Known[0];

    private record Known(RegisteredArena arena, long base, long end) {
    }

    /** Whether native addresses are available (else {@link #find} never matches). */
    static boolean enabled() {
        return ADDRESSES;
    }

    /** Records the arena of {@code buffer} (once per arena). */
    void record(RegisteredBuffer buffer) {
        if (!enabled()) {
            return;
        }
        RegisteredArena arena = buffer.arena();
        for (Known k : arenas) {
            if (k.arena == arena) {
                return;
            }
        }
        synchronized (this) {
            Known[] old = arenas;
            for (Known k : old) {
                if (k.arena == arena) {
                    return;
                }
            }
            long base = arena.nativeAddress();
            Known[] grown = java.util.Arrays.copyOf(old, old.length + 1);
            grown[old.length] = new Known(arena, base, base + arena.size());
            arenas = grown;
        }
    }

    /**
     * Looks up {@code length} bytes at native address {@code address}.
     *
     * @param out receives the arena's lkey and the IOVA of the first byte when found
     * @return whether the whole range lies in one recorded arena
     */
    boolean find(long address, int length, Location out) {
        for (Known k : arenas) {
            if (address >= k.base && address + length <= k.end) {
                out.lkey = k.arena.lkey();
                out.iova = k.arena.address((int) (address - k.base));
                return true;
            }
        }
        return false;
    }

    /** The native address of {@code buffer}'s byte at its position, or 0 when unknown (heap, or no access). */
    static long addressOf(ByteBuffer buffer) {
        return DirectAddresses.atPosition(buffer);
    }

    /** Where a range of registered memory is, for an SGE. Mutable, reusable. */
    static final class Location {
        int lkey;
        long iova;
    }
}
