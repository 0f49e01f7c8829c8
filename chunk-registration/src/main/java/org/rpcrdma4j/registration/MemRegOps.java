package org.rpcrdma4j.registration;

import org.rpcrdma4j.verbs.CompletionQueue;
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
     * a gap ({@link ScatterList#joins}) and at {@code maxPages}, one page per piece.
     */
    static int run(ScatterList list, int from, int n, int maxPages, boolean pageLists) {
        boolean[] joins = pageLists ? list.joinsPageList : list.joinsContiguous;
        int limit = from + Math.min(n, maxPages);
        int next = from + 1;
        while (next < limit && joins[next]) {
            next++;
        }
        return next - from;
    }
}
