package org.rpcrdma4j.xprt.internal;

import java.util.concurrent.TimeUnit;

/**
 * A work request flushed while the connection still looked up: its queue pair is in error. A device reports the
 * disconnect behind a flush at once as a rule, but some say nothing more (siw, whose peer refused an RDMA READ or
 * WRITE with a TERMINATE, reports no disconnect to this side). When no disconnect follows within {@link #GRACE_NANOS},
 * the owner drops the connection itself, as Linux's xprtrdma and svcrdma close on a failed completion. The client's
 * and the server's connections each keep one, on their agent thread.
 */
public final class UnexplainedFlush {
    /** How long a flush waits for the disconnect that explains it. */
    public static final long GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    private String what;
    private long seenNanos;

    /** A work request was flushed, {@code what} says which; the first one counts. */
    public void flushed(String what, long nowNanos) {
        if (this.what == null) {
            this.what = what;
            this.seenNanos = nowNanos;
        }
    }

    /** Whether a flush waits for its disconnect. */
    public boolean pending() {
        return what != null;
    }

    /** Whether the grace passed with no disconnect: the connection is to be dropped ({@link #reason}). */
    public boolean expired(long nowNanos) {
        return what != null && nowNanos - seenNanos >= GRACE_NANOS;
    }

    /** The earlier of {@code deadline} and the end of the grace (when a flush waits). */
    public long deadline(long deadline) {
        return what == null ? deadline : Math.min(deadline, seenNanos + GRACE_NANOS);
    }

    /** Why the connection is dropped, once {@link #expired}. */
    public String reason() {
        return what + ", and no disconnect followed within " + TimeUnit.NANOSECONDS.toMillis(GRACE_NANOS)
                + " ms: the queue pair is in error";
    }

    /** A new connection: nothing waits. */
    public void reset() {
        what = null;
    }
}
