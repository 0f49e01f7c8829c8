package org.rpcrdma4j.nfs.client;

import java.util.concurrent.Future;

/**
 * How a thread waiting for a reply polls for it before it parks ({@link NfsClientConfig#withReplySpin}), shared by the
 * calls of one transport. It polls for up to the spin time, yielding now and then so that many waiters on few cores do
 * not hold up the thread that takes the replies. When the replies keep coming later than that (a slow server, a
 * loaded machine), polling only costs CPU: after {@value #MISSES_TO_PAUSE} polls in a row that ended without the
 * reply, a waiter parks at once, and only every {@value #PROBE_EVERY}th wait polls again to find out whether replies
 * are quick once more. Allocation-free.
 */
public final class ReplySpin {
    /** A waiter parks at once. */
    public static final ReplySpin NONE = new ReplySpin(0);

    static final int MISSES_TO_PAUSE = 4;
    static final int PROBE_EVERY = 32;
    /** Polls between yields of the waiting thread. */
    private static final int POLLS_PER_YIELD = 64;

    private final long nanos;
    // a heuristic read and written by every waiter without synchronisation: a lost update only changes one decision
    private int misses;
    private int paused;

    /** @param nanos the longest a waiter polls; 0 parks at once */
    public ReplySpin(long nanos) {
        if (nanos < 0) {
            throw new IllegalArgumentException("negative spin time: " + nanos);
        }
        this.nanos = nanos;
    }

    /** Polls {@code f} until it is done, for up to the spin time, unless recent polls were in vain. */
    public void await(Future<?> f) {
        if (nanos == 0 || f.isDone()) {
            return;
        }
        if (misses >= MISSES_TO_PAUSE && ++paused % PROBE_EVERY != 0) {
            return;
        }
        long end = System.nanoTime() + nanos;
        int polls = 0;
        while (!f.isDone() && System.nanoTime() - end < 0) {
            if (++polls % POLLS_PER_YIELD == 0) {
                Thread.yield();
            } else {
                Thread.onSpinWait();
            }
        }
        if (f.isDone()) {
            misses = 0;
        } else if (misses < MISSES_TO_PAUSE) {
            misses++;
        }
    }

    /** Whether waiters park at once for now, polling having been in vain lately. */
    boolean paused() {
        return misses >= MISSES_TO_PAUSE;
    }
}
