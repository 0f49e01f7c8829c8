package org.rpcrdma4j.verbs.soft.internal;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.IntFunction;

import org.rpcrdma4j.verbs.VerbsException;

/**
 * The device's STag table: 24-bit index to memory region. Indices are handed out cyclically in [1, 0xFFFFFF] from a
 * random start (index 0 is never used, so STag 1, index 0 key 1, never names a region: it is the STag of the
 * zero-length ready-to-receive and placement-confirmation frames).
 * <p>
 * Two levels of 4096 entries each, so a lookup is two array reads with no lock and no allocation; insertion and
 * release (rare, never on the data path) take the table's lock.
 */
final class StagTable {
    static final int MAX_INDEX = 0xFF_FFFF;
    private static final int SHIFT = 12;
    private static final int MASK = (1 << SHIFT) - 1;

    private final AtomicReferenceArray<AtomicReferenceArray<SoftRegion>> top =
            new AtomicReferenceArray<>(1 << SHIFT);
    private int next = 1 + ThreadLocalRandom.current().nextInt(MAX_INDEX);
    private int size;

    /** The region under this index, or null. Any thread. */
    SoftRegion get(int index) {
        if (index <= 0 || index > MAX_INDEX) {
            return null;
        }
        AtomicReferenceArray<SoftRegion> segment = top.get(index >>> SHIFT);
        return segment == null ? null : segment.get(index & MASK);
    }

    /** The region an STag names by its index (the key is not looked at), or null. */
    SoftRegion byStag(int stag) {
        return get(stag >>> 8);
    }

    /** Builds a region on the next free index and enters it. */
    synchronized <R extends SoftRegion> R insert(IntFunction<R> factory) throws VerbsException {
        if (size >= MAX_INDEX) {
            throw new VerbsException("STag table full (" + MAX_INDEX + " regions)");
        }
        for (;;) {
            int index = next;
            next = next == MAX_INDEX ? 1 : next + 1;
            AtomicReferenceArray<SoftRegion> segment = top.get(index >>> SHIFT);
            if (segment == null) {
                segment = new AtomicReferenceArray<>(1 << SHIFT);
                top.set(index >>> SHIFT, segment);
            }
            if (segment.get(index & MASK) == null) {
                R region = factory.apply(index);
                segment.set(index & MASK, region);
                size++;
                return region;
            }
        }
    }

    synchronized void remove(SoftRegion region) {
        int index = region.index();
        AtomicReferenceArray<SoftRegion> segment = top.get(index >>> SHIFT);
        if (segment != null && segment.get(index & MASK) == region) {
            segment.set(index & MASK, null);
            size--;
        }
    }

    /** Calls {@code action} on every region entered now (outside the table's lock). */
    void forEachRegion(java.util.function.Consumer<SoftRegion> action) {
        java.util.List<SoftRegion> all = new java.util.ArrayList<>();
        synchronized (this) {
            for (int s = 0; s < top.length(); s++) {
                AtomicReferenceArray<SoftRegion> segment = top.get(s);
                if (segment == null) {
                    continue;
                }
                for (int i = 0; i < segment.length(); i++) {
                    SoftRegion region = segment.get(i);
                    if (region != null) {
                        all.add(region);
                    }
                }
            }
        }
        all.forEach(action);
    }
}
