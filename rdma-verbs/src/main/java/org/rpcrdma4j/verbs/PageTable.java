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
 * <p>
 * A table made {@linkplain #of(RegisteredMemory, int) from registered memory} carves the pages itself, page
 * {@code i} at offset {@code i * pageSize} of the region's buffer, and names the region as its {@link #backing()}: a
 * run of its pages is then one contiguous range of that region, which a device may reach through its own views of
 * the region (one scattering read or gathering write entry for the run instead of one per page).
 */
public final class PageTable {
    private final int pageSize;
    private final ByteBuffer[] pages;
    private final RegisteredMemory backing;

    /**
     * Builds a table from {@code pages} (copied; each checked).
     *
     * @throws IllegalArgumentException when the page size is not a power of two or a page is not a direct buffer of
     *                                  {@code pageSize} bytes of capacity
     */
    public PageTable(ByteBuffer[] pages, int pageSize) {
        this(pages.clone(), pageSize, null);
    }

    private PageTable(ByteBuffer[] pages, int pageSize, RegisteredMemory backing) {
        checkPageSize(pageSize);
        this.pageSize = pageSize;
        this.pages = pages;
        this.backing = backing;
        for (ByteBuffer page : pages) {
            PageList.checkPage(page, pageSize);
        }
    }

    /**
     * Carves the whole pages of {@code memory}'s buffer into a table backed by it: page {@code i} is bytes
     * {@code [i * pageSize, (i + 1) * pageSize)} of the region. Bytes beyond the last whole page are not in the table.
     *
     * @throws IllegalArgumentException when the page size is not a power of two or the buffer is not direct
     */
    public static PageTable of(RegisteredMemory memory, int pageSize) {
        checkPageSize(pageSize);
        ByteBuffer all = memory.buffer();
        ByteBuffer[] pages = new ByteBuffer[all.capacity() / pageSize];
        for (int i = 0; i < pages.length; i++) {
            pages[i] = all.duplicate().position(i * pageSize).limit((i + 1) * pageSize).slice();
        }
        return new PageTable(pages, pageSize, memory);
    }

    private static void checkPageSize(int pageSize) {
        if (pageSize <= 0 || Integer.bitCount(pageSize) != 1) {
            throw new IllegalArgumentException("page size must be a power of two: " + pageSize);
        }
    }

    /**
     * The registered region whose buffer holds page {@code i} at offset {@code i * pageSize()}, or null when the
     * table was built from page views alone.
     */
    public RegisteredMemory backing() {
        return backing;
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
