package org.rpcrdma4j.verbs;

import java.nio.ByteBuffer;

/**
 * An immutable, validated table of equal-sized page views over consumer memory (typically every page of one
 * registered arena, in address order). A {@link PageList} can name a run of consecutive entries of a table
 * ({@link PageList#addRun(PageTable, int, int)}) in constant time: the pages were checked once, when the table was
 * built, so a registration of many pages need not copy or re-check them one by one.
 * <p>
 * Every entry is a direct {@link ByteBuffer} of exactly {@link #pageSize()} bytes of capacity, as {@link PageList}
 * requires. The table copies the array it is given, so the entries never change. The page buffers are lent to a
 * device under the rules of {@link PageList}. Safe to share between threads.
 */
public final class PageTable {
    private final int pageSize;
    private final ByteBuffer[] pages;

    /**
     * Builds a table from {@code pages} (copied; each checked).
     *
     * @throws IllegalArgumentException when the page size is not a power of two or a page is not a direct buffer of
     *                                  {@code pageSize} bytes of capacity
     */
    public PageTable(ByteBuffer[] pages, int pageSize) {
        if (pageSize <= 0 || Integer.bitCount(pageSize) != 1) {
            throw new IllegalArgumentException("page size must be a power of two: " + pageSize);
        }
        this.pageSize = pageSize;
        this.pages = pages.clone();
        for (int i = 0; i < this.pages.length; i++) {
            PageList.checkPage(this.pages[i], pageSize);
        }
    }

    public int pageSize() {
        return pageSize;
    }

    /** Number of pages. */
    public int size() {
        return pages.length;
    }

    /** The view of page {@code index}. */
    public ByteBuffer page(int index) {
        return pages[index];
    }
}
