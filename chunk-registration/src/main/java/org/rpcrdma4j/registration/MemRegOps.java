package org.rpcrdma4j.registration;

import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.PageList;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * One registration strategy (FRWR, FMR, REG_MR), in the shape of xprtrdma's old memreg ops. The pool and the
 * per-RPC {@link Registration} call these and never branch on the strategy. Package-private: the transport sees only
 * the pool.
 */
interface MemRegOps {

    RegistrationMode mode();

    /** Pages one handle maps at most (the fast-register depth; unbounded for REG_MR). */
    int maxPages();

    /** Whether discontiguous page-aligned pieces may share one handle (a page list), or only contiguous memory. */
    boolean pageLists();

    /** ro_open: allocates the device side of a new handle in {@code slot}. Setup path; may be slow. */
    Mr open(int slot) throws VerbsException;

    /**
     * ro_map: maps pieces {@code [from, from + n)} of {@code list}, or a prefix of them, onto {@code mr} with
     * {@code access}, and returns how many pieces it covered (at least 1). FRWR prepares a REG_MR work request and
     * appends it to the registration's pending chain; FMR maps synchronously; REG_MR registers synchronously.
     *
     * @throws VerbsException when a synchronous mapping failed (the handle is then marked failed)
     */
    int map(Mr mr, ScatterList list, int from, int n, int access, Registration registration) throws VerbsException;

    /**
     * ro_unmap: starts invalidating every handle of {@code registration} that needs it. Returns true when all of them
     * are invalid on return (the registration is then finished); false when a completion will finish it through
     * {@link RegistrationPool#onCompletion}.
     */
    boolean invalidate(Registration registration);

    /** ro_recover: destroys the device side of a handle whose state is unknown (or at teardown). Never throws. */
    void destroy(Mr mr);

    /** The completion queue the transport should poll in place of {@code deviceCq} (identity but for FMR). */
    default CompletionQueue wrap(CompletionQueue deviceCq) {
        return deviceCq;
    }

    /** The pool was reset: forget background work queued for the destroyed handles. */
    default void reset() {
    }

    /** Stops background work. */
    default void close() {
    }

    /**
     * The shared splitting rule: how many pieces from {@code from} (at most {@code n}) one handle covers — it stops at
     * a gap ({@link ScatterList#joins}) and at {@code maxPages}, one page per piece. Logarithmic in the run's length
     * (a binary search over the list's run starts).
     */
    static int run(ScatterList list, int from, int n, int maxPages, boolean pageLists) {
        int[] start = pageLists ? list.pageListRunStart : list.contiguousRunStart;
        int limit = from + Math.min(n, maxPages);
        // pieces j >= from share from's run exactly while start[j] <= from (start is non-decreasing)
        if (start[limit - 1] <= from) {
            return limit - from;
        }
        int lo = from;
        int hi = limit - 1;
        while (hi - lo > 1) {
            int mid = (lo + hi) >>> 1;
            if (start[mid] <= from) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        return lo + 1 - from;
    }

    /**
     * Fills {@code pages} (cleared) with the pages of pieces {@code [from, from + covered)} and returns their bytes.
     * A byte-contiguous run of one arena is named as a run of the arena's page table (constant time, nothing copied
     * per page); anything else is added page by page.
     */
    static long fill(PageList pages, ScatterList list, int from, int covered) {
        pages.clear();
        if (list.contiguous(from, covered)) {
            RegisteredArena arena = list.arenas[from];
            pages.addRun(arena.pageTable(), list.pages[from], covered);
            return list.contiguousLength(from, covered);
        }
        long length = 0;
        RegisteredArena[] arenas = list.arenas;
        int[] pageIndex = list.pages;
        int[] lengths = list.lengths;
        for (int i = from; i < from + covered; i++) {
            pages.add(arenas[i].page(pageIndex[i]));
            length += lengths[i];
        }
        return length;
    }
}
