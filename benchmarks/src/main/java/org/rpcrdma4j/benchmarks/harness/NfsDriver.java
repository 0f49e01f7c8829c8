package org.rpcrdma4j.benchmarks.harness;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One column of the NFS table: a mounted client that runs a row's calls with a number of them outstanding, and
 * GETATTR round trips one at a time. Driven by one thread (the harness's); a driver may run calls on threads of its
 * own.
 */
interface NfsDriver extends AutoCloseable {

    /**
     * Makes ready to run {@code row}'s calls {@code outstanding} at a time: the buffers are allocated (and, for a READ
     * row, one READ is made and its bytes compared with the data file's pattern).
     */
    Load load(NfsRow row, int outstanding) throws Exception;

    /** One GETATTR of the data file, waiting for its reply. */
    void getattr() throws Exception;

    @Override
    void close();

    /** A row's calls, ready to run; holds its buffers until closed. */
    interface Load extends AutoCloseable {
        /**
         * Keeps the calls outstanding until {@code deadlineNanos} ({@link System#nanoTime()}), then waits for those in
         * flight; returns the calls completed. A call that fails, or a READ that returns fewer bytes than asked for,
         * fails the run.
         */
        long run(long deadlineNanos) throws Exception;

        /** Why this load keeps fewer calls outstanding than asked for, or null when it does not. */
        default String limitation() {
            return null;
        }

        @Override
        void close();
    }

    /** Where a row's calls go in the file: sequential (wrapping at the end) or random, aligned to the call size. */
    final class Offsets {
        private final int size;
        private final boolean random;
        private final long slots;
        private final AtomicLong next = new AtomicLong();

        Offsets(NfsRow row, long fileBytes) {
            this.size = row.size();
            this.random = row.random();
            this.slots = fileBytes / row.size();
        }

        long next() {
            long slot = random ? ThreadLocalRandom.current().nextLong(slots) : next.getAndIncrement() % slots;
            return slot * size;
        }
    }
}
