package org.rpcrdma4j.registration;

import java.util.Arrays;

/**
 * The bulk data of one chunk as the marshaler hands it in: a reusable list of ranges of registered memory
 * ({@link RegisteredBuffer} or {@link RegisteredArena}, offset, length), in the order the bytes belong in the chunk.
 * <p>
 * Internally each range is cut into <em>pieces</em> that lie within one page, the unit that mapping works on (like
 * Linux's {@code rpcrdma_mr_seg}): a page list takes one page per piece. A range that continues the previous one
 * byte for byte in the same page is merged into it, so pieces in a row never share a page contiguously.
 * <p>
 * Borrows: the list does not retain the buffers; the caller keeps them alive until the registration that maps this
 * list has been invalidated. It may keep references to the arenas (long-lived pool memory) of cleared pieces until
 * they are overwritten: a list refilled from the same arena then stores no references at all, which keeps the
 * per-page work of a large range to primitive stores. Not thread-safe; reuse with {@link #clear()}. Allocation-free
 * after construction.
 */
public final class ScatterList {
    // package-private arrays: the strategies' per-page loops read them directly
    final RegisteredArena[] arenas;
    final int[] pages;
    final int[] offsets;
    final int[] lengths;
    /** Piece i may follow piece i - 1 in one page list (both sides on page boundaries). */
    final boolean[] joinsPageList;
    /** Piece i continues piece i - 1 in memory, across a page boundary (one contiguous registration). */
    final boolean[] joinsContiguous;
    /**
     * First piece of the page-list run holding piece i (pieces joined by {@link #joinsPageList}); non-decreasing, so
     * a handle's extent is found by binary search instead of a walk over its pages.
     */
    final int[] pageListRunStart;
    /** First piece of the byte-contiguous run holding piece i (pieces joined by {@link #joinsContiguous}). */
    final int[] contiguousRunStart;
    private int count;
    private long length;

    /** A list holding up to {@code maxPieces} page pieces (a 1 MiB range takes 256 or 257). */
    public ScatterList(int maxPieces) {
        if (maxPieces <= 0) {
            throw new IllegalArgumentException("maxPieces must be positive: " + maxPieces);
        }
        arenas = new RegisteredArena[maxPieces];
        pages = new int[maxPieces];
        offsets = new int[maxPieces];
        lengths = new int[maxPieces];
        joinsPageList = new boolean[maxPieces];
        joinsContiguous = new boolean[maxPieces];
        pageListRunStart = new int[maxPieces];
        contiguousRunStart = new int[maxPieces];
    }

    /** Forgets every range. */
    public ScatterList clear() {
        count = 0;
        length = 0;
        return this;
    }

    /** Appends {@code length} bytes of {@code buffer} starting at absolute index {@code index}. */
    public ScatterList add(RegisteredBuffer buffer, int index, int length) {
        if (index < 0 || length < 0 || (long) index + length > buffer.capacity()) {
            throw new IndexOutOfBoundsException("range " + index + "+" + length + " outside buffer of "
                    + buffer.capacity());
        }
        return add(buffer.arena(), buffer.arenaOffset() + index, length);
    }

    /** Appends the readable bytes of {@code buffer}. */
    public ScatterList addReadable(RegisteredBuffer buffer) {
        return add(buffer, buffer.readerIndex(), buffer.readableBytes());
    }

    /** Appends {@code length} bytes of {@code arena} at {@code offset}. A zero length adds nothing. */
    public ScatterList add(RegisteredArena arena, int offset, int length) {
        if (offset < 0 || length < 0 || (long) offset + length > arena.size()) {
            throw new IndexOutOfBoundsException("range " + offset + "+" + length + " outside arena of " + arena.size());
        }
        if (length == 0) {
            return this;
        }
        int pageSize = arena.pageSize();
        int shift = Integer.numberOfTrailingZeros(pageSize);
        int mask = pageSize - 1;
        int firstPage = offset >>> shift;
        int lastPage = (offset + length - 1) >>> shift;
        int needed = lastPage - firstPage + 1;
        if (continues(arena, firstPage, offset & mask)) {
            needed--;
        }
        if (count + needed > arenas.length) {
            throw new IllegalStateException("scatter list full: " + count + " pieces + " + needed + " > "
                    + arenas.length);
        }
        // the first page may continue the previous piece or start mid-page
        int page = firstPage;
        int inPage = offset & mask;
        int take = Math.min(length, pageSize - inPage);
        if (continues(arena, page, inPage)) {
            lengths[count - 1] += take;
        } else {
            boolean boundary = count > 0 && inPage == 0 && endsOnPage(count - 1);
            boolean contiguous = boundary && arenas[count - 1] == arena && pages[count - 1] + 1 == page;
            joinsPageList[count] = boundary;
            joinsContiguous[count] = contiguous;
            pageListRunStart[count] = boundary ? pageListRunStart[count - 1] : count;
            contiguousRunStart[count] = contiguous ? contiguousRunStart[count - 1] : count;
            if (arenas[count] != arena) {
                arenas[count] = arena;
            }
            pages[count] = page;
            offsets[count] = inPage;
            lengths[count] = take;
            count++;
        }
        int left = length - take;
        if (left > 0) {
            // every further page starts on a boundary right after the previous one: the run goes on, so the
            // pieces are filled in bulk (primitive stores; an arena reference only where it differs)
            int n = ((left - 1) >>> shift) + 1;
            int from = count;
            int end = from + n;
            int next = page + 1 - from;
            for (int i = from; i < end; i++) {
                pages[i] = next + i;
                offsets[i] = 0;
                lengths[i] = pageSize;
            }
            for (int i = from; i < end; i++) {
                if (arenas[i] != arena) {
                    arenas[i] = arena;
                }
            }
            lengths[end - 1] = left - (n - 1) * pageSize;
            Arrays.fill(joinsPageList, from, end, true);
            Arrays.fill(joinsContiguous, from, end, true);
            Arrays.fill(pageListRunStart, from, end, pageListRunStart[from - 1]);
            Arrays.fill(contiguousRunStart, from, end, contiguousRunStart[from - 1]);
            count = end;
        }
        this.length += length;
        return this;
    }

    private boolean continues(RegisteredArena arena, int page, int inPage) {
        int last = count - 1;
        return last >= 0 && arenas[last] == arena && pages[last] == page
                && offsets[last] + lengths[last] == inPage;
    }

    /** Number of page pieces. */
    public int pieceCount() {
        return count;
    }

    /** Total bytes. */
    public long length() {
        return length;
    }

    public boolean isEmpty() {
        return count == 0;
    }

    public int maxPieces() {
        return arenas.length;
    }

    public RegisteredArena arena(int piece) {
        check(piece);
        return arenas[piece];
    }

    /** Page index, within its arena, of a piece. */
    public int page(int piece) {
        check(piece);
        return pages[piece];
    }

    /** Offset of a piece's first byte within its page. */
    public int offsetInPage(int piece) {
        check(piece);
        return offsets[piece];
    }

    public int length(int piece) {
        check(piece);
        return lengths[piece];
    }

    /** Offset of a piece's first byte within its arena. */
    public int arenaOffset(int piece) {
        check(piece);
        return pages[piece] * arenas[piece].pageSize() + offsets[piece];
    }

    /** Whether a piece runs to the end of its page. */
    boolean endsOnPage(int piece) {
        return offsets[piece] + lengths[piece] == arenas[piece].pageSize();
    }

    /**
     * Whether pieces {@code [from, from + n)} are one byte-contiguous range of one arena (consecutive pages, every
     * join on a page boundary). Constant time.
     */
    boolean contiguous(int from, int n) {
        return n > 0 && contiguousRunStart[from + n - 1] <= from;
    }

    /**
     * Bytes in pieces {@code [from, from + n)} when they are {@linkplain #contiguous contiguous}: the distance from
     * the first byte to the end of the last. Constant time.
     */
    long contiguousLength(int from, int n) {
        int last = from + n - 1;
        int pageSize = arenas[from].pageSize();
        return ((long) pages[last] - pages[from]) * pageSize + offsets[last] + lengths[last] - offsets[from];
    }

    /**
     * Whether pieces {@code piece} and {@code piece + 1} can share one handle: with page lists ({@code pageLists}),
     * when the first ends on a page boundary and the second starts on one (a "gap" otherwise); without, only when
     * they are also consecutive pages of the same arena (byte-contiguous memory).
     */
    boolean joins(int piece, boolean pageLists) {
        return pageLists ? joinsPageList[piece + 1] : joinsContiguous[piece + 1];
    }

    private void check(int piece) {
        if (piece < 0 || piece >= count) {
            throw new IndexOutOfBoundsException("piece " + piece + " of " + count);
        }
    }

    @Override
    public String toString() {
        return "ScatterList[" + count + " pieces, " + length + " bytes]";
    }
}
