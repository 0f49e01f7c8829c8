package org.rpcrdma4j.mount.bench;

import java.io.IOException;
import java.time.Duration;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import org.HdrHistogram.Histogram;
import org.rpcrdma4j.mount.CliException;
import org.rpcrdma4j.mount.ExitCode;
import org.rpcrdma4j.mount.client.RemotePaths;
import org.rpcrdma4j.mount.client.Session;
import org.rpcrdma4j.mount.client.Transfers;
import org.rpcrdma4j.nfs.CreateMode;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.FsInfo;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.nfs.SetAttributes;
import org.rpcrdma4j.nfs.StableHow;
import org.rpcrdma4j.nfs.client.NfsAsyncMount;
import org.rpcrdma4j.nfs.client.NfsMount;
import org.rpcrdma4j.nfs.client.rdma.RdmaDataTransport;
import org.rpcrdma4j.verbs.VerbsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A throughput and latency benchmark on one file of a mount: {@code depth} READs or WRITEs of {@code ioSize} bytes
 * kept in flight for a fixed time, at sequential or random aligned offsets, each call's round trip recorded in an
 * HdrHistogram. Over RDMA the I/O buffers are the transport's registered memory, so data moves without a copy
 * (WRITE data as read chunks, READ data through write chunks). WRITEs are UNSTABLE and the run ends with a COMMIT,
 * whose time counts.
 * <p>
 * The file is created for the run (it must not exist) and removed by {@link #close()} unless kept. One thread drives
 * a benchmark; replies arrive on the transport's threads and only hand back their slot.
 */
public final class Bench implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Bench.class);
    private static final long HIGHEST_NANOS = TimeUnit.SECONDS.toNanos(600);
    private static final long DRAIN_SECONDS = 30;

    /**
     * What to run.
     *
     * @param ioSize   bytes per call
     * @param depth    calls in flight
     * @param time     duration of each workload
     * @param fileSize bytes of the file (rounded down to whole I/Os, at least one)
     */
    public record Spec(int ioSize, int depth, Duration time, long fileSize) {
        public Spec {
            if (ioSize < 512 || depth < 1 || time.isNegative() || time.isZero() || fileSize < 1) {
                throw new IllegalArgumentException("bad benchmark settings");
            }
            fileSize = Math.max(ioSize, fileSize / ioSize * ioSize);
        }

        public long blocks() {
            return fileSize / ioSize;
        }
    }

    private final NfsMount nfs;
    private final NfsAsyncMount async;
    private final String path;
    private final FileHandle dir;
    private final FileHandle file;
    private final Spec spec;
    private final ByteBuf[] buffers;
    private final Progress progress;
    private final boolean keep;
    private boolean buffersInFlight;

    private Bench(NfsMount nfs, String path, FileHandle dir, FileHandle file, Spec spec, ByteBuf[] buffers,
                  Progress progress, boolean keep) {
        this.nfs = nfs;
        this.async = nfs.async();
        this.path = path;
        this.dir = dir;
        this.file = file;
        this.spec = spec;
        this.buffers = buffers;
        this.progress = progress;
        this.keep = keep;
    }

    /** The registered memory {@link #open} takes from an RDMA transport for {@code spec}. */
    public static long bufferBytes(int ioSize, int depth) {
        return (long) ioSize * depth + (16L << 20);
    }

    /**
     * Creates the file {@code path} (refused if it exists) and the I/O buffers. {@code ioSize} above the server's
     * maximum READ or WRITE size is refused.
     */
    public static Bench open(Session session, String path, Spec spec, Progress progress, boolean keep)
            throws IOException, InterruptedException {
        NfsMount nfs = session.nfs();
        FsInfo info = nfs.fsinfo(nfs.root());
        int max = info.largestIo();
        if (spec.ioSize() > max) {
            throw new CliException(ExitCode.USAGE, "--size " + spec.ioSize() + " exceeds the server's largest READ or "
                    + "WRITE (" + max + " bytes)");
        }
        String parent = RemotePaths.parent(path);
        FileHandle dir;
        FileHandle file;
        try {
            dir = nfs.resolve(parent);
            file = nfs.create(dir, RemotePaths.name(path), CreateMode.GUARDED, SetAttributes.NONE.withSize(0))
                    .handle();
        } catch (NfsException e) {
            throw Transfers.remote(path, e);
        }
        ByteBuf[] buffers = new ByteBuf[spec.depth()];
        try {
            RdmaDataTransport rdma = session.rdma().orElse(null);
            Random fill = new Random(path.hashCode());
            byte[] pattern = new byte[spec.ioSize()];
            for (int i = 0; i < buffers.length; i++) {
                buffers[i] = rdma != null ? rdma.bufferPool().allocate(spec.ioSize())
                        : PooledByteBufAllocator.DEFAULT.directBuffer(spec.ioSize(), spec.ioSize());
                fill.nextBytes(pattern);
                buffers[i].writeBytes(pattern);
            }
        } catch (VerbsException | RuntimeException | InterruptedException e) {
            for (ByteBuf b : buffers) {
                if (b != null) {
                    b.release();
                }
            }
            Transfers.removeQuietly(nfs, dir, RemotePaths.name(path));
            throw e;
        }
        return new Bench(nfs, path, dir, file, spec, buffers, progress, keep);
    }

    public String path() {
        return path;
    }

    public Spec spec() {
        return spec;
    }

    /** Writes the whole file once, sequentially (so that reads find data); returns that write's numbers. */
    public BenchResult prefill() throws IOException, InterruptedException {
        return drive(Workload.SEQ_WRITE, "prefill", Long.MAX_VALUE, spec.blocks());
    }

    /** Runs {@code workload} for the spec's time. */
    public BenchResult run(Workload workload) throws IOException, InterruptedException {
        return drive(workload, workload.label(), spec.time().toNanos(), Long.MAX_VALUE);
    }

    private BenchResult drive(Workload w, String label, long durationNanos, long maxOps)
            throws IOException, InterruptedException {
        ArrayBlockingQueue<Integer> free = new ArrayBlockingQueue<>(buffers.length);
        for (int i = 0; i < buffers.length; i++) {
            free.add(i);
        }
        Histogram latency = new Histogram(HIGHEST_NANOS, 3);
        AtomicLong ops = new AtomicLong();
        AtomicLong bytes = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long blocks = spec.blocks();
        long start = System.nanoTime();
        long deadline = durationNanos == Long.MAX_VALUE ? Long.MAX_VALUE : start + durationNanos;
        long issued = 0;
        buffersInFlight = true;
        try {
            while (failure.get() == null && issued < maxOps && System.nanoTime() - deadline < 0) {
                Integer slot = free.poll(50, TimeUnit.MILLISECONDS);
                if (slot != null) {
                    long block = w.random() ? ThreadLocalRandom.current().nextLong(blocks) : issued % blocks;
                    issue(w, slot, block * spec.ioSize(), free, latency, ops, bytes, failure);
                    issued++;
                }
                long elapsed = System.nanoTime() - start;
                double fraction = maxOps != Long.MAX_VALUE ? (double) issued / maxOps
                        : (double) elapsed / durationNanos;
                progress.update(label, fraction, String.format(Locale.ROOT, "%.0f MB/s",
                        bytes.get() / 1e6 / Math.max(1e-9, elapsed / 1e9)));
            }
        } finally {
            drain(free);
            progress.clear();
        }
        if (failure.get() != null) {
            throw asIOException(failure.get());
        }
        if (w.write()) {
            nfs.commit(file, 0, 0);
        }
        long nanos = System.nanoTime() - start;
        synchronized (latency) {
            return new BenchResult(w, ops.get(), bytes.get(), nanos, latency.copy());
        }
    }

    private void issue(Workload w, int slot, long offset, ArrayBlockingQueue<Integer> free, Histogram latency,
                       AtomicLong ops, AtomicLong bytes, AtomicReference<Throwable> failure) {
        ByteBuf b = buffers[slot];
        long t0 = System.nanoTime();
        CompletableFuture<Long> call;
        if (w.write()) {
            b.setIndex(0, spec.ioSize());
            call = async.write(file, offset, b, StableHow.UNSTABLE).thenApply(r -> r.count());
        } else {
            b.clear();
            call = async.read(file, offset, b).thenApply(r -> (long) r.count());
        }
        call.whenComplete((count, error) -> {
            long rtt = System.nanoTime() - t0;
            if (error != null) {
                failure.compareAndSet(null, error);
            } else {
                synchronized (latency) {
                    latency.recordValue(Math.min(rtt, HIGHEST_NANOS));
                }
                ops.incrementAndGet();
                bytes.addAndGet(count);
            }
            free.add(slot);
        });
    }

    /** Waits for every call in flight to finish (the buffers are theirs until then), with the interrupt held off. */
    private void drain(ArrayBlockingQueue<Integer> free) {
        boolean interrupted = Thread.interrupted();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(DRAIN_SECONDS);
        try {
            while (free.size() < buffers.length && System.nanoTime() - deadline < 0) {
                Thread.sleep(1);
            }
            buffersInFlight = free.size() < buffers.length;
        } catch (InterruptedException e) {
            interrupted = true;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static IOException asIOException(Throwable t) {
        Throwable e = t;
        while (e instanceof java.util.concurrent.CompletionException && e.getCause() != null) {
            e = e.getCause();
        }
        if (e instanceof IOException io) {
            return io;
        }
        if (e instanceof RuntimeException r) {
            throw r;
        }
        return new IOException(e);
    }

    /** Releases the buffers (unless calls still hold them) and removes the file unless it is kept. */
    @Override
    public void close() {
        if (!buffersInFlight) {
            for (ByteBuf b : buffers) {
                b.release();
            }
        } else {
            LOG.warn("calls still in flight after {} s: their buffers are left to the transport", DRAIN_SECONDS);
        }
        if (!keep) {
            Transfers.removeQuietly(nfs, dir, RemotePaths.name(path));
        }
    }
}
