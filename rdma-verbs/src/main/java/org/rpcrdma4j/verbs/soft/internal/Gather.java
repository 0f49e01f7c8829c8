package org.rpcrdma4j.verbs.soft.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * The bytes a queue pair has built for the socket but not yet written: a gather list of buffer ranges (FPDU headers,
 * payload pieces of registered memory, trailers) written with one gathering write.
 * <p>
 * Payload pieces are views the engine shares with other work (a registered buffer's per-engine duplicate, a page
 * of a page list), so the list keeps each entry's intended position and limit and restores them right before every
 * write; and one buffer object never appears twice in the list ({@link #contains}), since one object has one
 * position. Header and trailer slots are this queue pair's own.
 * <p>
 * FPDU boundaries are remembered so that a teardown can stop the stream at the end of the FPDU being written.
 * <p>
 * Pieces of memory a peer's Read Request named are {@linkplain #guard guarded}: the list keeps their region and its
 * generation before the check that allowed the read, so that the transmitter can see, before every write, whether
 * the list still holds unwritten bytes of a region that changed since ({@link #firstRevoked}), and drop them
 * ({@link #cutBefore}).
 * Engine thread only; made once per queue pair.
 */
final class Gather {
    static final int SLOTS = 16;
    /**
     * Room for {@value #SLOTS} FPDUs of {@value #PAGES_PER_FPDU} page pieces each, with their headers and trailers: a
     * segment of the largest payload that starts inside a 4 KiB page spans 17.
     */
    static final int PAGES_PER_FPDU = 17;
    static final int MAX_ENTRIES = SLOTS * (PAGES_PER_FPDU + 2);
    static final int HEADER_SLOT = 64;
    static final int TRAILER_SLOT = 8;

    private final ByteBuffer[] entries = new ByteBuffer[MAX_ENTRIES];
    private final int[] from = new int[MAX_ENTRIES];
    private final int[] position = new int[MAX_ENTRIES];
    private final int[] limit = new int[MAX_ENTRIES];
    private final ByteBuffer[] headers = new ByteBuffer[SLOTS];
    private final ByteBuffer[] trailers = new ByteBuffer[SLOTS];
    private final int[] fpduEnds = new int[SLOTS];
    /** Guarded regions in order of their first entry: at most one per FPDU (one per Read Response in the list). */
    private final SoftRegion[] guards = new SoftRegion[SLOTS];
    private final int[] guardGenerations = new int[SLOTS];
    private final int[] guardFirst = new int[SLOTS];
    /** One past the last entry of each guarded region. */
    private final int[] guardEnd = new int[SLOTS];
    private int guardCount;
    private int count;
    private int start;
    private int headersUsed;
    private int trailersUsed;
    private int fpdus;
    /** Whether the first entry continues an FPDU whose start went out in an earlier write. */
    private boolean continuation;
    /** Bytes still allowed before the stream is cut (truncation fault), or -1. */
    private long budget = -1;

    Gather() {
        ByteBuffer h = ByteBuffer.allocateDirect(SLOTS * HEADER_SLOT);
        ByteBuffer t = ByteBuffer.allocateDirect(SLOTS * TRAILER_SLOT);
        for (int i = 0; i < SLOTS; i++) {
            headers[i] = h.duplicate().position(i * HEADER_SLOT).limit((i + 1) * HEADER_SLOT).slice();
            trailers[i] = t.duplicate().position(i * TRAILER_SLOT).limit((i + 1) * TRAILER_SLOT).slice();
        }
    }

    int count() {
        return count;
    }

    /** Whether an FPDU with {@code pieces} payload entries can start: a header and a trailer slot and room. */
    boolean canStartFpdu(int minPieces) {
        return headersUsed < SLOTS && trailersUsed < SLOTS && count + 2 + minPieces <= MAX_ENTRIES;
    }

    /** Room for one more payload piece and the trailer after it. */
    boolean hasRoomForPiece() {
        return count + 2 <= MAX_ENTRIES;
    }

    boolean hasRoomForTrailer() {
        return trailersUsed < SLOTS && count < MAX_ENTRIES;
    }

    ByteBuffer nextHeader() {
        ByteBuffer h = headers[headersUsed++];
        h.clear();
        return h;
    }

    ByteBuffer nextTrailer() {
        ByteBuffer t = trailers[trailersUsed++];
        t.clear();
        return t;
    }

    /** Whether {@code buffer} (by identity) is already in the unwritten part of the list. */
    boolean contains(ByteBuffer buffer) {
        for (int i = start; i < count; i++) {
            if (entries[i] == buffer) {
                return true;
            }
        }
        return false;
    }

    void add(ByteBuffer buffer, int pos, int lim) {
        entries[count] = buffer;
        from[count] = pos;
        position[count] = pos;
        limit[count] = lim;
        count++;
    }

    /**
     * The next {@link #add}ed entry is a piece of {@code region}, allowed by a check made at {@code generation}: its
     * bytes may be written only while the region's generation is unchanged.
     */
    void guard(SoftRegion region, int generation) {
        int g = guardCount - 1;
        if (g < 0 || guards[g] != region || guardGenerations[g] != generation) {
            g = guardCount++;
            guards[g] = region;
            guardGenerations[g] = generation;
            guardFirst[g] = count;
        }
        guardEnd[g] = count + 1;
    }

    /**
     * The first unwritten entry that lies among the pieces of a guarded region whose generation changed since its
     * check, or -1 when there is none. Allocation-free: a field read per guarded region.
     */
    int firstRevoked() {
        for (int g = 0; g < guardCount; g++) {
            if (guardEnd[g] > start && guards[g].generation() != guardGenerations[g]) {
                return Math.max(guardFirst[g], start);
            }
        }
        return -1;
    }

    /**
     * Drops the FPDU holding entry {@code entry} (or the one being built, for {@code entry == count()}) and
     * everything after it, when none of that FPDU's bytes went out yet.
     *
     * @return false, and nothing dropped, when part of that FPDU was written already
     */
    boolean cutBefore(int entry) {
        int fpduStart = 0;
        int boundariesBefore = 0;
        for (int f = 0; f < fpdus && fpduEnds[f] <= entry; f++) {
            fpduStart = fpduEnds[f];
            boundariesBefore = f + 1;
        }
        if (fpduStart < start) {
            return false;
        }
        if (fpduStart == start && (fpduStart < count && position[start] != from[start]
                || fpduStart == 0 && continuation)) {
            return false;
        }
        truncate(fpduStart, boundariesBefore);
        return true;
    }

    /** Marks the end of a complete FPDU. */
    void fpduEnd() {
        fpduEnds[fpdus++] = count;
    }

    /** Allows only {@code bytes} more bytes to be written (truncation fault). */
    void budget(long bytes) {
        budget = bytes;
    }

    boolean budgetExhausted() {
        return budget == 0;
    }

    /** Bytes from the unwritten start of the list to the end of the last complete FPDU. */
    long bytesToLastFpduEnd() {
        int end = fpdus == 0 ? start : fpduEnds[fpdus - 1];
        long n = 0;
        for (int i = start; i < end; i++) {
            n += limit[i] - position[i];
        }
        return n;
    }

    /**
     * Writes as much as the socket takes.
     *
     * @return true when every entry is written (the list is then reset)
     */
    boolean write(SocketChannel channel) throws IOException {
        while (start < count) {
            if (budget == 0) {
                return false;
            }
            int end = count;
            int savedLimit = -1;
            if (budget > 0) {
                long room = budget;
                for (int i = start; i < count; i++) {
                    long n = limit[i] - position[i];
                    if (n >= room) {
                        end = i + 1;
                        savedLimit = limit[i];
                        limit[i] = position[i] + (int) room;
                        break;
                    }
                    room -= n;
                }
            }
            for (int i = start; i < end; i++) {
                ByteBuffer b = entries[i];
                if (limit[i] > b.capacity()) {
                    throw new IllegalStateException("piece beyond its buffer");
                }
                if (b.position() > limit[i]) {
                    b.position(position[i]);
                    b.limit(limit[i]);
                } else {
                    b.limit(limit[i]);
                    b.position(position[i]);
                }
            }
            long written = channel.write(entries, start, end - start);
            for (int i = start; i < end; i++) {
                position[i] = entries[i].position();
            }
            if (savedLimit >= 0) {
                limit[end - 1] = savedLimit;
            }
            if (budget > 0) {
                budget -= written;
            }
            while (start < count && position[start] == limit[start]) {
                start++;
            }
            if (written == 0 && start < count) {
                return false;
            }
        }
        reset();
        return true;
    }

    /**
     * Stops the stream at the end of the FPDU being written: drops every later FPDU, and the FPDU being written too
     * when none of its bytes went out yet.
     *
     * @param tailOpen whether the last entries belong to an FPDU still being built
     * @return false when the FPDU being written is that open one, which must be completed first; true otherwise
     */
    boolean cutAfterCurrentFpdu(boolean tailOpen) {
        if (start == count) {
            return !tailOpen;
        }
        int fpduStart = 0;
        int boundariesBefore = 0;
        for (int f = 0; f < fpdus && fpduEnds[f] <= start; f++) {
            fpduStart = fpduEnds[f];
            boundariesBefore = f + 1;
        }
        boolean atFpduStart = fpduStart > 0 || !continuation;
        if (start == fpduStart && atFpduStart && position[start] == from[start]) {
            truncate(start, boundariesBefore);
            return true;
        }
        for (int f = boundariesBefore; f < fpdus; f++) {
            if (fpduEnds[f] > start) {
                truncate(fpduEnds[f], f + 1);
                return true;
            }
        }
        return !tailOpen;
    }

    private void truncate(int newCount, int newFpdus) {
        for (int i = newCount; i < count; i++) {
            entries[i] = null;
        }
        count = newCount;
        fpdus = newFpdus;
        while (guardCount > 0 && guardFirst[guardCount - 1] >= newCount) {
            guards[--guardCount] = null;
        }
        if (guardCount > 0 && guardEnd[guardCount - 1] > newCount) {
            guardEnd[guardCount - 1] = newCount;
        }
    }

    /** Says whether what is added next continues an FPDU already partly written (called after a complete write). */
    void continuesFpdu(boolean midFpdu) {
        continuation = midFpdu;
    }

    /** Forgets everything (connection gone). */
    void reset() {
        for (int i = 0; i < count; i++) {
            entries[i] = null;
        }
        count = 0;
        start = 0;
        headersUsed = 0;
        trailersUsed = 0;
        fpdus = 0;
        for (int g = 0; g < guardCount; g++) {
            guards[g] = null;
        }
        guardCount = 0;
    }
}
