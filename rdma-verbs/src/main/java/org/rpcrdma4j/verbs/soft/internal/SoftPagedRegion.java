package org.rpcrdma4j.verbs.soft.internal;

import java.nio.ByteBuffer;

import org.rpcrdma4j.verbs.MrState;

/**
 * A region mapped from a page list (fast-register MR or FMR). The page buffers are the consumer's, lent to the
 * device while the mapping is valid: engine threads move their position and limit (see
 * {@link org.rpcrdma4j.verbs.PageList}).
 */
abstract class SoftPagedRegion extends SoftRegion {
    private final ByteBuffer[] pages;
    private int pageCount;
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
     * page list fits and that the region may be mapped).
     */
    final void map(ByteBuffer[] src, int count, int pageSize, int fbo, long iova, long length, int access,
                   int newStag) {
        System.arraycopy(src, 0, pages, 0, count);
        for (int i = count; i < pageCount; i++) {
            pages[i] = null;
        }
        pageCount = count;
        pageShift = Integer.numberOfTrailingZeros(pageSize);
        pageMask = pageSize - 1;
        firstByteOffset = fbo;
        validate(newStag, iova, length, access);
    }

    /** As {@link #map}, from a page list (caller holds the monitor and has checked the list). */
    final void mapFrom(org.rpcrdma4j.verbs.PageList list, int newStag, int access) {
        int count = list.count();
        for (int i = 0; i < count; i++) {
            pages[i] = list.page(i);
        }
        for (int i = count; i < pageCount; i++) {
            pages[i] = null;
        }
        pageCount = count;
        pageShift = Integer.numberOfTrailingZeros(list.pageSize());
        pageMask = list.pageSize() - 1;
        firstByteOffset = list.firstByteOffset();
        validate(newStag, list.iova(), list.length(), access);
    }

    @Override
    void onFree() {
        java.util.Arrays.fill(pages, null);
        pageCount = 0;
    }

    @Override
    final ByteBuffer piece(long offset, int engineId) {
        return pages[(int) ((firstByteOffset + offset) >>> pageShift)];
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
