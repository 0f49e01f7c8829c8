package org.rpcrdma4j.nfs.v4.state;

import static org.rpcrdma4j.nfs.v4.Nfs4Status.NFS4ERR_GRACE;
import static org.rpcrdma4j.nfs.v4.Nfs4Status.NFS4ERR_NO_GRACE;

import java.util.function.LongSupplier;
import org.rpcrdma4j.nfs.v4.Nfs4Exception;

/**
 * The grace period after a server (re)start (RFC 8881 section 8.4.2): a fixed time from the start, in which clients
 * reclaim the state they held before and no one obtains new state. It does not end early: without stable storage the
 * server cannot know which clients had state to reclaim, so it cannot tell when all of them are done.
 */
final class GracePeriod {
    private final LongSupplier clock;
    private final long startedAt;
    private final long nanos;

    GracePeriod(LongSupplier clock, long nanos) {
        this.clock = clock;
        this.startedAt = clock.getAsLong();
        this.nanos = nanos;
    }

    boolean inGrace() {
        return clock.getAsLong() - startedAt < nanos;
    }

    /** NFS4ERR_GRACE for a non-reclaim OPEN in grace, NFS4ERR_NO_GRACE for a reclaim after it. */
    void checkOpen(boolean reclaim) throws Nfs4Exception {
        boolean grace = inGrace();
        if (reclaim && !grace) {
            throw new Nfs4Exception(NFS4ERR_NO_GRACE, "the grace period is over");
        }
        if (!reclaim && grace) {
            throw new Nfs4Exception(NFS4ERR_GRACE, "the server is in its grace period");
        }
    }
}
