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
 * Thread-safe: arenas are recorded under a lock into a copy-on-write snapshot sorted by base address; {@link #record}
 * and {@link #find} search it by bisection without locking and allocate nothing. A server exporting a large in-memory
 * file system has thousands of arenas, and every allocation records and every reply piece finds.
 */
final class RegisteredMemoryIndex {
    private static final boolean ADDRESSES = DirectAddresses.available();

    private volatile Snapshot snapshot = new Snapshot(new long[0], new long[0], new RegisteredArena[0]);

    /** The recorded arenas in order of base address; never changed once published. */
    private record Snapshot(long[] bases, long[] ends, RegisteredArena[] arenas) {
        /** The index of the last arena whose base is at most {@code address}, or -1. */
        int floor(long address) {
            int lo = 0;
            int hi = bases.length - 1;
            int found = -1;
            while (lo <= hi) {
                int mid = (lo + hi) >>> 1;
                if (bases[mid] <= address) {
                    found = mid;
                    lo = mid + 1;
                } else {
                    hi = mid - 1;
                }
            }
            return found;
        }

        boolean holds(RegisteredArena arena, long base) {
            int i = floor(base);
            return i >= 0 && arenas[i] == arena;
        }

        Snapshot with(RegisteredArena arena, long base) {
            int at = floor(base) + 1;
            int n = bases.length;
            long[] b = new long[n + 1];
            long[] e = new long[n + 1];
            RegisteredArena[] a = new RegisteredArena[n + 1];
            System.arraycopy(bases, 0, b, 0, at);
            System.arraycopy(ends, 0, e, 0, at);
            System.arraycopy(arenas, 0, a, 0, at);
            b[at] = base;
            e[at] = base + arena.size();
            a[at] = arena;
            System.arraycopy(bases, at, b, at + 1, n - at);
            System.arraycopy(ends, at, e, at + 1, n - at);
            System.arraycopy(arenas, at, a, at + 1, n - at);
            return new Snapshot(b, e, a);
        }
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
        long base = arena.nativeAddress();
        if (snapshot.holds(arena, base)) {
            return;
        }
        synchronized (this) {
            Snapshot old = snapshot;
            if (!old.holds(arena, base)) {
                snapshot = old.with(arena, base);
            }
        }
    }

    /** Arenas recorded so far. */
    int arenaCount() {
        return snapshot.arenas().length;
    }

    /**
     * Looks up {@code length} bytes at native address {@code address}.
     *
     * @param out receives the arena's lkey and the IOVA of the first byte when found
     * @return whether the whole range lies in one recorded arena
     */
    boolean find(long address, int length, Location out) {
        Snapshot s = snapshot;
        int i = s.floor(address);
        if (i < 0 || address + length > s.ends[i]) {
            return false;
        }
        RegisteredArena arena = s.arenas[i];
        out.lkey = arena.lkey();
        out.iova = arena.address((int) (address - s.bases[i]));
        return true;
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
