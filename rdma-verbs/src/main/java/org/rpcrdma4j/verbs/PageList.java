package org.rpcrdma4j.verbs;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * A list of equal-sized pages to be mapped, contiguously, under one STag: the region begins {@link #firstByteOffset()}
 * bytes into the first page and runs for {@link #length()} bytes across the following pages. Only the first page may
 * start at an offset and only the last may end early; every page in between is covered entirely.
 * <pre>
 *  page 0            page 1            page 2
 * +-----------------+-----------------+-----------------+
 * |      ##########|##################|#######          |
 * +-----------------+-----------------+-----------------+
 *  ^ fbo ^ iova                                ^ iova + length
 * </pre>
 * A page is a {@code pageSize()}-byte direct {@link ByteBuffer} view (position 0, capacity = page size) of memory
 * the consumer owns; the views are made once (when a buffer pool is carved up) and only referenced here.
 * <p>
 * Reusable and allocation-free once built: {@link #clear()} then {@link #add(ByteBuffer)} up to {@link #capacity()}
 * pages. Owned by one thread at a time; a device copies what it needs when the work request is posted.
 * <p>
 * A list whose pages are one run of consecutive entries of a {@link PageTable} (a contiguous range of an arena) is
 * best filled with {@link #addRun(PageTable, int, int)} into an empty list: the list then only names the table and
 * the run ({@link #table()}, {@link #tableFirst()}), and a device can take the mapping over in constant time instead
 * of page by page. {@link #page(int)} answers the same either way.
 * <p>
 * The page buffers themselves are lent, not copied: while a registration made from this list (REG_MR, FMR map) is
 * valid, the device may move each page buffer's position and limit to reach its bytes, so the consumer must not rely
 * on them (use absolute accessors or its own duplicates), and one page buffer may be in at most one valid
 * registration at a time. The bytes stay the consumer's under the usual rules of RDMA memory.
 */
public final class PageList {
    public static final int DEFAULT_PAGE_SIZE = 4096;

    private final int pageSize;
    private final ByteBuffer[] pages;
    private int count;
    /** When not null, the pages are {@code table[tableFirst, tableFirst + count)} and {@link #pages} is empty. */
    private PageTable table;
    private int tableFirst;
    private int firstByteOffset;
    private long length;
    private long iova;

    public PageList(int capacity) {
        this(capacity, DEFAULT_PAGE_SIZE);
    }

    public PageList(int capacity, int pageSize) {
        if (capacity <= 0) {
            throw new IllegalArgumentException("capacity must be positive: " + capacity);
        }
        if (pageSize <= 0 || Integer.bitCount(pageSize) != 1) {
            throw new IllegalArgumentException("page size must be a power of two: " + pageSize);
        }
        this.pageSize = pageSize;
        this.pages = new ByteBuffer[capacity];
    }

    public int pageSize() {
        return pageSize;
    }

    public int capacity() {
        return pages.length;
    }

    public int count() {
        return count;
    }

    public ByteBuffer page(int index) {
        if (index < 0 || index >= count) {
            throw new IndexOutOfBoundsException("page " + index + " of " + count);
        }
        return table != null ? table.page(tableFirst + index) : pages[index];
    }

    /**
     * The table whose run of entries the pages are, when the list was filled by one
     * {@link #addRun(PageTable, int, int)} into an empty list (and nothing else since); null otherwise.
     */
    public PageTable table() {
        return table;
    }

    /** The table entry of page 0 when {@link #table()} is not null. */
    public int tableFirst() {
        return tableFirst;
    }

    /** The registered memory the pages are a run of, when {@link #table()} was carved from some; else null. */
    public RegisteredMemory backing() {
        return table == null ? null : table.backing();
    }

    /**
     * Why a device whose fast registration binds type 2 memory windows ({@link DeviceCapability#MEMORY_WINDOW}) cannot
     * map this list on {@code pd}, or null when it can: a window binds one run of memory registered on its own domain,
     * at the address of the run's first byte.
     */
    public String windowRefusal(ProtectionDomain pd) {
        RegisteredMemory memory = backing();
        if (memory == null) {
            return "a memory window binds one run of a page table over registered memory, got " + this;
        }
        if (memory.protectionDomain() != pd) {
            return "a memory window binds memory of its own protection domain";
        }
        long address = memory.iova() + (long) tableFirst * pageSize + firstByteOffset;
        if (iova != address) {
            return "a memory window's IOVA is the address of its first byte, 0x" + Long.toHexString(address)
                    + ", not 0x" + Long.toHexString(iova);
        }
        return null;
    }

    public int firstByteOffset() {
        return firstByteOffset;
    }

    public long length() {
        return length;
    }

    public long iova() {
        return iova;
    }

    /** Forgets every page; the list can be filled again. */
    public PageList clear() {
        if (table == null) {
            Arrays.fill(pages, 0, count, null);
        }
        table = null;
        tableFirst = 0;
        count = 0;
        firstByteOffset = 0;
        length = 0;
        iova = 0;
        return this;
    }

    /** Appends a page view; it must be a direct buffer with exactly {@link #pageSize()} bytes of capacity. */
    public PageList add(ByteBuffer page) {
        if (count == pages.length) {
            throw new IllegalStateException("page list full: " + count + " pages");
        }
        checkPage(page, pageSize);
        unshare();
        pages[count++] = page;
        return this;
    }

    /**
     * Appends pages {@code [first, first + n)} of {@code table}. Into an empty list this takes constant time (the
     * list then names the run, see {@link #table()}); otherwise the pages are appended one by one.
     *
     * @throws IllegalArgumentException  when the table's page size differs from the list's
     * @throws IndexOutOfBoundsException when the run leaves the table
     * @throws IllegalStateException     when the pages do not fit
     */
    public PageList addRun(PageTable table, int first, int n) {
        if (table.pageSize() != pageSize) {
            throw new IllegalArgumentException("table of " + table.pageSize() + "-byte pages in a list of "
                    + pageSize);
        }
        if (first < 0 || n < 0 || first > table.size() - n) {
            throw new IndexOutOfBoundsException("pages " + first + "+" + n + " of a table of " + table.size());
        }
        if (n > pages.length - count) {
            throw new IllegalStateException("page list full: " + count + " + " + n + " pages > " + pages.length);
        }
        if (n == 0) {
            return this;
        }
        if (count == 0) {
            this.table = table;
            this.tableFirst = first;
            this.count = n;
            return this;
        }
        unshare();
        for (int i = 0; i < n; i++) {
            pages[count++] = table.page(first + i);
        }
        return this;
    }

    /** Turns a list that names a table's run into one holding its own page references. */
    private void unshare() {
        if (table != null) {
            for (int i = 0; i < count; i++) {
                pages[i] = table.page(tableFirst + i);
            }
            table = null;
            tableFirst = 0;
        }
    }

    static void checkPage(ByteBuffer page, int pageSize) {
        if (!page.isDirect() || page.capacity() != pageSize) {
            throw new IllegalArgumentException("a page must be a direct buffer of " + pageSize + " bytes, got "
                    + (page.isDirect() ? "direct" : "heap") + " of " + page.capacity());
        }
    }

    /**
     * Sets where the mapped bytes start and how many there are, and the IOVA the peer will use for the first byte.
     *
     * @throws IllegalArgumentException when the bytes do not fit in the pages added
     */
    public PageList set(int firstByteOffset, long length, long iova) {
        if (firstByteOffset < 0 || firstByteOffset >= pageSize) {
            throw new IllegalArgumentException("first byte offset " + firstByteOffset + " outside a page of " + pageSize);
        }
        if (length < 0 || firstByteOffset + length > (long) count * pageSize) {
            throw new IllegalArgumentException(length + " bytes from offset " + firstByteOffset + " do not fit in "
                    + count + " pages of " + pageSize);
        }
        this.firstByteOffset = firstByteOffset;
        this.length = length;
        this.iova = iova;
        return this;
    }

    @Override
    public String toString() {
        return "PageList[" + count + " pages of " + pageSize + ", fbo=" + firstByteOffset + ", length=" + length
                + ", iova=0x" + Long.toHexString(iova) + "]";
    }
}
