package org.rpcrdma4j.benchmarks.harness;

import java.io.IOException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.netty.buffer.ByteBuf;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.StableHow;
import org.rpcrdma4j.nfs.client.DataTransport;
import org.rpcrdma4j.nfs.client.NfsAsyncMount;
import org.rpcrdma4j.nfs.client.NfsClientConfig;
import org.rpcrdma4j.nfs.client.NfsMount;
import org.rpcrdma4j.nfs.client.NfsMounts;
import org.rpcrdma4j.nfs.client.NfsUrl;
import org.rpcrdma4j.nfs.client.ReadReply;

/**
 * The project's NFS client, NFSv3 ({@code NfsClient}) or NFSv4.1 ({@code Nfs41Client}) as the URL's {@code vers}
 * says, pipelined through its {@link NfsAsyncMount}, over {@code tcp://} or {@code rdma://}. Over RDMA the READ sinks
 * and WRITE sources are the transport's registered memory ({@link DataTransport#allocateData}), the zero-copy use of
 * the API; over TCP they are pooled direct buffers.
 * One thread issues the calls, a semaphore keeps {@code outstanding} of them in flight; completions run on the
 * transport's threads. Owns the mount.
 */
final class NfsClientDriver implements NfsDriver {
    private final NfsMount client;
    private final NfsAsyncMount async;
    private final FileHandle data;
    private final FileHandle scratch;
    private final DataTransport transport;
    private final long fileBytes;

    private NfsClientDriver(NfsMount client, long fileBytes) throws IOException {
        this.client = client;
        this.async = client.async();
        this.data = client.resolve(NfsFixture.DATA);
        this.scratch = client.resolve(NfsFixture.SCRATCH);
        this.transport = client.transport();
        this.fileBytes = fileBytes;
    }

    /** Mounts {@code url}, which names the NFS version ({@code vers}): a column measures one version only. */
    static NfsClientDriver mount(String url, NfsClientConfig config, long fileBytes) throws IOException {
        NfsUrl parsed = NfsUrl.parse(url);
        if (parsed.version().isEmpty()) {
            throw new IllegalArgumentException(url + " names no NFS version: a column measures one");
        }
        NfsMount client = NfsMounts.mount(parsed, config);
        try {
            return new NfsClientDriver(client, fileBytes);
        } catch (IOException | RuntimeException e) {
            client.close();
            throw e;
        }
    }

    /** The mounted client (for the transport underneath). */
    NfsMount client() {
        return client;
    }

    private ByteBuf buffer(int size) throws Exception {
        return transport.allocateData(size); // RDMA: registered memory; TCP: pooled direct memory
    }

    @Override
    public Load load(NfsRow row, int outstanding) throws Exception {
        int size = row.size();
        ArrayBlockingQueue<ByteBuf> free = new ArrayBlockingQueue<>(outstanding);
        try {
            for (int i = 0; i < outstanding; i++) {
                ByteBuf b = buffer(size);
                free.add(b);
                if (!row.read()) {
                    b.setBytes(0, NfsFixture.PATTERN, 0, size);
                }
            }
            if (row.read()) {
                ByteBuf b = free.peek();
                ReadReply r = async.read(data, 0, b.clear()).get(60, TimeUnit.SECONDS);
                byte[] bytes = new byte[r.count()];
                b.getBytes(0, bytes);
                NfsFixture.checkPattern(0, bytes, size);
            }
        } catch (Exception | Error e) {
            free.forEach(ByteBuf::release);
            throw e;
        }
        return new ClientLoad(row, free, outstanding);
    }

    private final class ClientLoad implements Load {
        private final NfsRow row;
        private final ArrayBlockingQueue<ByteBuf> free;
        private final int outstanding;
        private final Semaphore permits;
        private final Offsets offsets;

        ClientLoad(NfsRow row, ArrayBlockingQueue<ByteBuf> free, int outstanding) {
            this.row = row;
            this.free = free;
            this.outstanding = outstanding;
            this.permits = new Semaphore(outstanding);
            this.offsets = new Offsets(row, fileBytes);
        }

        @Override
        public long run(long deadlineNanos) throws Exception {
            AtomicLong done = new AtomicLong();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            int size = row.size();
            while (System.nanoTime() < deadlineNanos && failure.get() == null) {
                permits.acquire();
                ByteBuf b = free.poll();
                long offset = offsets.next();
                CompletableFuture<?> call = row.read() ? async.read(data, offset, b.clear())
                        : async.write(scratch, offset, b.setIndex(0, size), StableHow.UNSTABLE);
                call.whenComplete((result, e) -> {
                    if (e != null) {
                        failure.compareAndSet(null, e);
                    } else if (row.read() && ((ReadReply) result).count() != size) {
                        failure.compareAndSet(null, new IllegalStateException("short READ at " + offset + ": "
                                + ((ReadReply) result).count() + " bytes"));
                    } else {
                        done.incrementAndGet();
                    }
                    free.add(b);
                    permits.release();
                });
            }
            if (!permits.tryAcquire(outstanding, 120, TimeUnit.SECONDS)) {
                throw new IllegalStateException("calls still outstanding after 120 s");
            }
            permits.release(outstanding);
            if (failure.get() != null) {
                throw new IllegalStateException(row.label() + " failed", failure.get());
            }
            return done.get();
        }

        @Override
        public void close() {
            free.forEach(ByteBuf::release);
            free.clear();
        }
    }

    @Override
    public void getattr() throws Exception {
        async.getattr(data).get(60, TimeUnit.SECONDS);
    }

    @Override
    public void close() {
        client.close();
    }
}
