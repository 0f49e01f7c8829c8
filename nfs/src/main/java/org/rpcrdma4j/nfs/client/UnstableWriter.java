package org.rpcrdma4j.nfs.client;

import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Semaphore;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.StableHow;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a file with pipelined UNSTABLE WRITEs and makes it durable with COMMIT, checking the write verifier: a range
 * counts as stored only when a COMMIT returns the verifier of the WRITE that wrote it. When they differ (the server
 * restarted and may have lost unstable data) the range is written again from the {@link Source} and committed again.
 * Ranges the server stored stably (FILE_SYNC, DATA_SYNC) need no COMMIT. Short writes are completed.
 * <p>
 * Data is never kept in memory for a resend: it is read from the source again. Methods are called from one thread;
 * WRITE replies arrive on the transport's threads.
 */
public final class UnstableWriter {
    private static final Logger LOG = LoggerFactory.getLogger(UnstableWriter.class);

    /** Where the bytes come from, for the first send and for any resend. */
    @FunctionalInterface
    public interface Source {
        /** Writes exactly {@code length} bytes of the source at {@code offset} into {@code dst}. */
        void read(long offset, int length, ByteBuf dst) throws IOException;
    }

    private record Range(long offset, int length, long verifier) {
    }

    private final NfsAsyncClient client;
    private final FileHandle file;
    private final Source source;
    private final int window;
    private final int maxRounds;
    private final Semaphore slots;
    private final List<Range> unstable = new ArrayList<>(); // guarded by this
    private Throwable failure; // guarded by this
    private long bytesSent;
    private int resends;

    /**
     * @param window    WRITEs in flight at most
     * @param maxRounds how many times a COMMIT whose verifier changed is followed by a resend before giving up
     */
    public UnstableWriter(NfsAsyncClient client, FileHandle file, Source source, int window, int maxRounds) {
        this.client = client;
        this.file = file;
        this.source = source;
        this.window = window;
        this.maxRounds = maxRounds;
        this.slots = new Semaphore(window);
    }

    /** Sends {@code [offset, offset + length)} of the source; blocks while the window is full. */
    public void write(long offset, int length) throws IOException {
        checkFailure();
        acquire(1);
        ByteBuf buf;
        try {
            buf = client.transport().allocateData(length); // over RDMA registered: sent without a copy
        } catch (IOException | RuntimeException e) {
            slots.release();
            throw e;
        }
        try {
            source.read(offset, length, buf);
        } catch (IOException | RuntimeException e) {
            buf.release();
            slots.release();
            throw e;
        }
        bytesSent += length;
        client.write(file, offset, buf, StableHow.UNSTABLE).whenComplete((reply, error) -> {
            buf.release();
            try {
                if (error != null) {
                    fail(error);
                } else if (reply.count() < length) {
                    // a short write: the rest is sent from the writer's thread on the next flush
                    record(offset, (int) reply.count(), reply);
                    synchronized (this) {
                        shortWrites.add(new Range(offset + reply.count(), length - (int) reply.count(), 0));
                    }
                } else {
                    record(offset, length, reply);
                }
            } finally {
                slots.release();
            }
        });
    }

    private final List<Range> shortWrites = new ArrayList<>(); // guarded by this

    private void record(long offset, int length, WriteReply reply) {
        if (length > 0 && reply.committed() == StableHow.UNSTABLE) {
            synchronized (this) {
                unstable.add(new Range(offset, length, reply.verifier()));
            }
        }
    }

    private synchronized void fail(Throwable t) {
        if (failure == null) {
            failure = t;
        }
    }

    private synchronized void checkFailure() throws IOException {
        if (failure != null) {
            throw MountClient.Calls.unwrap(failure);
        }
    }

    private void acquire(int n) throws IOException {
        try {
            slots.acquire(n);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while writing");
        }
    }

    /** Waits until every WRITE sent has been answered (completing short writes); throws the first failure. */
    public void flush() throws IOException {
        while (true) {
            acquire(window);
            slots.release(window);
            checkFailure();
            List<Range> rest;
            synchronized (this) {
                rest = new ArrayList<>(shortWrites);
                shortWrites.clear();
            }
            if (rest.isEmpty()) {
                return;
            }
            for (Range r : rest) {
                write(r.offset(), r.length());
            }
        }
    }

    /**
     * Flushes, then COMMITs the whole file until every unstable range is covered by the COMMIT's verifier, resending
     * ranges whose verifier differs. Returns the final verifier.
     */
    public long commit() throws IOException {
        for (int round = 0; ; round++) {
            flush();
            long verifier = MountClient.Calls.await(client.commit(file, 0, 0));
            List<Range> lost = new ArrayList<>();
            synchronized (this) {
                for (Range r : unstable) {
                    if (r.verifier() != verifier) {
                        lost.add(r);
                    }
                }
                unstable.clear();
            }
            if (lost.isEmpty()) {
                return verifier;
            }
            if (round >= maxRounds) {
                throw new IOException("the server's write verifier kept changing; " + lost.size()
                        + " ranges are not durable after " + round + " resends");
            }
            LOG.info("write verifier changed (server restart?): resending {} ranges", lost.size());
            for (Range r : lost) {
                resends++;
                write(r.offset(), r.length());
            }
        }
    }

    /** Bytes sent so far, resends included. */
    public long bytesSent() {
        return bytesSent;
    }

    /** Ranges sent again because the verifier changed. */
    public int resends() {
        return resends;
    }
}
