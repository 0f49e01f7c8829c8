package org.rpcrdma4j.nfs.client;

import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.rpcrdma4j.nfs.FileHandle;

/**
 * Copies a remote file into a local channel with a window of pipelined READs, each into its own pooled buffer that
 * is written at its offset as soon as it arrives. Reads until the server reports end of file: short reads are
 * completed, a file that grew is followed, one that shrank is cut at its end.
 */
final class Download {
    private record Range(long offset, int length) {
    }

    private final NfsAsyncClient client;
    private final FileHandle file;
    private final FileChannel out;
    private final int chunk;
    private final int window;
    private final Semaphore slots;
    private final ConcurrentLinkedQueue<Range> retry = new ConcurrentLinkedQueue<>();
    private final AtomicLong eofAt = new AtomicLong(Long.MAX_VALUE);
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    Download(NfsAsyncClient client, FileHandle file, FileChannel out, int chunk, int window) {
        this.client = client;
        this.file = file;
        this.out = out;
        this.chunk = chunk;
        this.window = window;
        this.slots = new Semaphore(window);
    }

    /** Runs the copy; {@code sizeHint} is the size GETATTR reported. Returns the bytes copied. */
    long run(long sizeHint) throws IOException {
        long next = 0;
        long end = sizeHint;
        try {
            while (true) {
                slots.acquire();
                if (failure.get() != null) {
                    slots.release();
                    break;
                }
                Range r = retry.poll();
                long limit = Math.min(end, eofAt.get());
                if (r == null && next < limit) {
                    int len = (int) Math.min(chunk, limit - next);
                    r = new Range(next, len);
                    next += len;
                }
                if (r != null) {
                    issue(r);
                    continue;
                }
                slots.release();
                // nothing to send now: wait for the window to drain, then decide
                slots.acquire(window);
                slots.release(window);
                if (failure.get() != null) {
                    break;
                }
                if (!retry.isEmpty()) {
                    continue;
                }
                if (eofAt.get() != Long.MAX_VALUE) {
                    break;
                }
                end = next + (long) chunk * window; // no end of file yet: the file grew (or was empty)
            }
            slots.acquire(window);
            slots.release(window);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while reading");
        }
        if (failure.get() != null) {
            throw MountClient.Calls.unwrap(failure.get());
        }
        long size = eofAt.get();
        out.truncate(size);
        return size;
    }

    private void issue(Range r) {
        ByteBuf buf;
        try {
            buf = client.transport().allocateData(r.length()); // over RDMA registered: the data lands in place
        } catch (IOException | RuntimeException e) {
            failure.compareAndSet(null, e);
            slots.release();
            return;
        }
        client.read(file, r.offset(), buf).whenComplete((reply, error) -> {
            try {
                if (error != null) {
                    failure.compareAndSet(null, error);
                    return;
                }
                int count = reply.count();
                long pos = r.offset();
                while (buf.isReadable()) {
                    pos += buf.readBytes(out, pos, buf.readableBytes());
                }
                if (reply.eof()) {
                    eofAt.accumulateAndGet(r.offset() + count, Math::min);
                } else if (count < r.length()) {
                    if (count == 0) {
                        throw new EmptyReadException(r.offset());
                    }
                    retry.add(new Range(r.offset() + count, r.length() - count));
                }
            } catch (IOException | RuntimeException e) {
                failure.compareAndSet(null, e);
            } finally {
                buf.release();
                slots.release();
            }
        });
    }
}
