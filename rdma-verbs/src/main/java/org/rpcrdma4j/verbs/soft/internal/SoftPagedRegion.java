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

    SoftPagedRegion(SoftDevice device, SoftPd pd, int index, int maxPages) {
        super(device, pd, index, MrState.INVALID);
        this.pages = new ByteBuffer[maxPages];
    }

    public final int maxPages() {
        return pages.length;
    }

    /**
     * Installs a mapping and makes the region valid with a new STag (caller holds the monitor, has checked that the
     * page list fits and that the region may be mapped). With {@code table} not null the pages are
     * {@code table[tableFirst, tableFirst + count)} and {@code src} is not read.
     */
    final void map(ByteBuffer[] src, PageTable table, int tableFirst, int count, int pageSize, int fbo, long iova,
                   long length, int access, int newStag) {
        if (table != null) {
            dropOwnPages();
            this.table = table;
            this.tableFirst = tableFirst;
        } else {
            System.arraycopy(src, 0, pages, 0, count);
            if (this.table == null) {
                for (int i = count; i < pageCount; i++) {
                    pages[i] = null;
                }
            }
            this.table = null;
            this.tableFirst = 0;
        }
        pageCount = count;
        pageShift = Integer.numberOfTrailingZeros(pageSize);
        pageMask = pageSize - 1;
        firstByteOffset = fbo;
        validate(newStag, iova, length, access);
    }

    /** As {@link #map}, from a page list (caller holds the monitor and has checked the list). */
    final void mapFrom(PageList list, int newStag, int access) {
        int count = list.count();
        PageTable run = list.table();
        if (run != null) {
            dropOwnPages();
            table = run;
            tableFirst = list.tableFirst();
        } else {
            for (int i = 0; i < count; i++) {
                pages[i] = list.page(i);
            }
            if (table == null) {
                for (int i = count; i < pageCount; i++) {
                    pages[i] = null;
                }
            }
            table = null;
            tableFirst = 0;
        }
        pageCount = count;
        pageShift = Integer.numberOfTrailingZeros(list.pageSize());
        pageMask = list.pageSize() - 1;
        firstByteOffset = list.firstByteOffset();
        validate(newStag, list.iova(), list.length(), access);
    }

    /** Forgets the region's own page references (before taking over a table's run). */
    private void dropOwnPages() {
        if (table == null) {
            for (int i = 0; i < pageCount; i++) {
                pages[i] = null;
            }
        }
    }

    @Override
    void onFree() {
        java.util.Arrays.fill(pages, null);
        table = null;
        tableFirst = 0;
        pageCount = 0;
    }

    @Override
    final ByteBuffer piece(long offset, int engineId) {
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
        return (int) ((firstByteOffset + offset) & pageMask);
    }

    @Override
    final int pieceRemaining(long offset) {
        return pageMask + 1 - pieceIndex(offset);
    }

    @Override
    final void copyOut(long offset, ByteBuffer dst, int dstIndex, int len) {
        while (len > 0) {
            ByteBuffer page = piece(offset, 0);
            int index = pieceIndex(offset);
            int n = Math.min(len, pieceRemaining(offset));
            dst.put(dstIndex, page, index, n);
            offset += n;
            dstIndex += n;
            len -= n;
        }
    }
}
