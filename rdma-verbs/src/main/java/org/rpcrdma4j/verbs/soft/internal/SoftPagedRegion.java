package org.rpcrdma4j.verbs.soft.internal;

import java.nio.ByteBuffer;

import org.rpcrdma4j.verbs.MrState;
import org.rpcrdma4j.verbs.PageList;
import org.rpcrdma4j.verbs.PageTable;

/**
 * A region mapped from a page list (fast-register MR or FMR). The page buffers are the consumer's, lent to the
 * device while the mapping is valid: engine threads move their position and limit (see
 * {@link org.rpcrdma4j.verbs.PageList}).
 * <p>
 * The mapping is either the region's own copy of the page references, or (when the page list named a run of a
 * {@link PageTable}) the table and the run's first entry, taken over in constant time. Either way a byte at a mapping
 * offset is reached through the registered pages only: {@link SoftRegion#check} bounds every access by the mapping's
 * length, which registration checked to fit in the pages.
 * <p>
 * A run of a table {@linkplain PageTable#backing() backed} by memory registered on this device is contiguous in that
 * memory, so its pieces are the backing region's per-engine views, one piece for the whole run: a segment of 64 KiB
 * is one entry of a scattering read or a gathering write instead of sixteen, and the views' variants let one
 * gathering write name the run once per FPDU.
 */
abstract class SoftPagedRegion extends SoftRegion {
    private final ByteBuffer[] pages;
    private int pageCount;
    /** Not null: the pages are {@code table[tableFirst, tableFirst + pageCount)} and {@link #pages} is empty. */
    private PageTable table;
    private int tableFirst;
    private int pageShift;
    private int pageMask;
    private int firstByteOffset;
    /** Not null: the run's bytes are {@code [runStart, runEnd)} of this region's memory (see the class comment). */
    private SoftRegisteredMemory runBacking;
    private long runStart;
    private long runEnd;

    SoftPagedRegion(SoftDevice device, SoftPd pd, int index, int maxPages) {
        super(device, pd, index, MrState.INVALID);
        this.pages = new ByteBuffer[maxPages];
    }

    public final int maxPages() {
        return pages.length;
    }

    /**
     * Installs a mapping and makes the region valid with a new STag (caller holds the monitor, has checked that the
     * page list fits and that the region may be mapped). With {@code run} not null the pages are
     * {@code run[runFirst, runFirst + count)} and {@code src} is not read.
     */
    final void map(ByteBuffer[] src, PageTable run, int runFirst, int count, int pageSize, int fbo, long iova,
                   long length, int access, int newStag) {
        if (run != null) {
            takeRun(run, runFirst);
        } else {
            System.arraycopy(src, 0, pages, 0, count);
            ownPagesFilled(count);
        }
        install(count, pageSize, fbo, iova, length, access, newStag);
    }

    /** As {@link #map}, from a page list (caller holds the monitor and has checked the list). */
    final void mapFrom(PageList list, int newStag, int access) {
        int count = list.count();
        if (list.table() != null) {
            takeRun(list.table(), list.tableFirst());
        } else {
            for (int i = 0; i < count; i++) {
                pages[i] = list.page(i);
            }
            ownPagesFilled(count);
        }
        install(count, list.pageSize(), list.firstByteOffset(), list.iova(), list.length(), access, newStag);
    }

    /** Takes over a table's run as the mapping's pages, forgetting the region's own page references. */
    private void takeRun(PageTable run, int first) {
        if (table == null) {
            for (int i = 0; i < pageCount; i++) {
                pages[i] = null;
            }
        }
        table = run;
        tableFirst = first;
    }

    /**
     * The first {@code count} own page references were just written: forgets those the previous mapping held beyond
     * them (a previous table run left none) and ends any run.
     */
    private void ownPagesFilled(int count) {
        if (table == null) {
            for (int i = count; i < pageCount; i++) {
                pages[i] = null;
            }
        }
        table = null;
        tableFirst = 0;
    }

    private void install(int count, int pageSize, int fbo, long iova, long length, int access, int newStag) {
        pageCount = count;
        pageShift = Integer.numberOfTrailingZeros(pageSize);
        pageMask = pageSize - 1;
        firstByteOffset = fbo;
        runBacking = table != null && table.pageSize() == pageSize
                && table.backing() instanceof SoftRegisteredMemory m && m.device == device ? m : null;
        runStart = ((long) tableFirst << pageShift) + fbo;
        runEnd = (long) (tableFirst + count) << pageShift;
        validate(newStag, iova, length, access);
    }

    @Override
    void onFree() {
        java.util.Arrays.fill(pages, null);
        table = null;
        tableFirst = 0;
        pageCount = 0;
        runBacking = null;
    }

    @Override
    final ByteBuffer piece(long offset, int engineId) {
        SoftRegisteredMemory backing = runBacking;
        if (backing != null) {
            page(offset); // the same bounds check
            return backing.piece(0, engineId);
        }
        return page(offset);
    }

    @Override
    final ByteBuffer pieceVariant(long offset, int engineId, int variant) {
        SoftRegisteredMemory backing = runBacking;
        return backing != null ? backing.pieceVariant(0, engineId, variant) : null;
    }

    /** The page buffer holding mapping offset {@code offset}. */
    private ByteBuffer page(long offset) {
        int page = (int) ((firstByteOffset + offset) >>> pageShift);
        if (page >= pageCount) {
            throw new IndexOutOfBoundsException("mapping offset " + offset + " beyond the " + pageCount
                    + " registered pages");
        }
        PageTable t = table;
        return t != null ? t.page(tableFirst + page) : pages[page];
    }

    @Override
    final int pieceIndex(long offset) {
        return runBacking != null ? (int) (runStart + offset) : pageIndex(offset);
    }

    private int pageIndex(long offset) {
        return (int) ((firstByteOffset + offset) & pageMask);
    }

    @Override
    final int pieceCut(long offset) {
        return runBacking != null ? 0 : pageIndex(offset);
    }

    @Override
    final int pieceRemaining(long offset) {
        return runBacking != null ? (int) (runEnd - runStart - offset) : pageMask + 1 - pageIndex(offset);
    }

    @Override
    final void copyOut(long offset, ByteBuffer dst, int dstIndex, int len) {
        while (len > 0) {
            ByteBuffer page = page(offset);
            int index = pageIndex(offset);
            int n = Math.min(len, pageMask + 1 - index);
            dst.put(dstIndex, page, index, n);
            offset += n;
            dstIndex += n;
            len -= n;
        }
    }
}
