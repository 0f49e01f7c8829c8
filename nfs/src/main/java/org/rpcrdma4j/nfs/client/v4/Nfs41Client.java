package org.rpcrdma4j.nfs.client.v4;

import io.netty.buffer.ByteBuf;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetSocketAddress;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.rpcrdma4j.nfs.CreateMode;
import org.rpcrdma4j.nfs.DirEntry;
import org.rpcrdma4j.nfs.FileAttributes;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.FileType;
import org.rpcrdma4j.nfs.FsInfo;
import org.rpcrdma4j.nfs.FsStat;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.nfs.NfsObject;
import org.rpcrdma4j.nfs.NfsTime;
import org.rpcrdma4j.nfs.PathConf;
import org.rpcrdma4j.nfs.SetAttributes;
import org.rpcrdma4j.nfs.StableHow;
import org.rpcrdma4j.nfs.client.DataTransport;
import org.rpcrdma4j.nfs.client.DataTransportFactory;
import org.rpcrdma4j.nfs.client.DirListing;
import org.rpcrdma4j.nfs.client.EmptyReadException;
import org.rpcrdma4j.nfs.client.NfsClientConfig;
import org.rpcrdma4j.nfs.client.NfsMount;
import org.rpcrdma4j.nfs.client.NfsPaths;
import org.rpcrdma4j.nfs.client.NfsUrl;
import org.rpcrdma4j.nfs.client.ReadReply;
import org.rpcrdma4j.nfs.client.TcpDataTransport;
import org.rpcrdma4j.nfs.client.WriteReply;
import org.rpcrdma4j.nfs.v4.Bitmap4;
import org.rpcrdma4j.nfs.v4.Fattr4Decoded;
import org.rpcrdma4j.nfs.v4.Nfs4;
import org.rpcrdma4j.nfs.v4.Nfs4Status;

/**
 * An NFSv4.1 (or 4.2) mount of one export: blocking calls for every operation of {@link Nfs41AsyncClient} (the same
 * signatures as the NFSv3 {@link org.rpcrdma4j.nfs.client.NfsClient} where NFSv4 allows), path-based helpers, and
 * pipelined file copies.
 * <pre>{@code
 * try (Nfs41Client nfs = Nfs41Client.mount("rdma://server/export")) {
 *     nfs.upload(Path.of("local.bin"), "/dir/remote.bin");
 *     nfs.download("/dir/remote.bin", Path.of("copy.bin"));
 * }
 * }</pre>
 * No MOUNT protocol: the export is found from the root of the server's name space (PUTROOTFH, LOOKUPs). The URL's
 * scheme picks the transport as for NFSv3 ("tcp" built in, "rdma" from the configuration or the class path); its
 * {@code mountport} is not used. Errors: {@link Nfs4StatusException} (an {@link NfsException}) when the server answered
 * with an error, {@link org.rpcrdma4j.nfs.client.RpcCallException} subtypes when it did not answer usably.
 * Thread-safe.
 */
public final class Nfs41Client implements NfsMount {
    private final DataTransport transport;
    private final boolean ownsTransport;
    private final NfsClientConfig config;
    private final Nfs41Session session;
    private final Nfs41AsyncClient async;
    private final String export;
    private final FileHandle root;

    private Nfs41Client(DataTransport transport, boolean ownsTransport, NfsClientConfig config, Nfs41Session session,
                        String export, FileHandle root, Nfs41AsyncClient async) {
        this.transport = transport;
        this.ownsTransport = ownsTransport;
        this.config = config;
        this.session = session;
        this.export = export;
        this.root = root;
        this.async = async;
    }

    public static Nfs41Client mount(String url) throws IOException {
        return mount(NfsUrl.parse(url), NfsClientConfig.defaults(), Nfs41Options.defaults());
    }

    public static Nfs41Client mount(String url, NfsClientConfig config, Nfs41Options options) throws IOException {
        return mount(NfsUrl.parse(url), config, options);
    }

    /** Connects with the scheme's transport (owned by the client), then {@link #connect}s over it. */
    public static Nfs41Client mount(NfsUrl url, NfsClientConfig config, Nfs41Options options) throws IOException {
        CallbackService callbacks = new CallbackService();
        DataTransport t = factory(url.scheme(), config).connect(new InetSocketAddress(url.host(), url.port()),
                config.withReverseProgram(Nfs4Ops.CB_PROGRAM, CallbackService.VERSION, callbacks));
        try {
            return open(t, true, url.export(), config, options, callbacks);
        } catch (IOException | RuntimeException e) {
            t.close();
            throw e;
        }
    }

    /**
     * Makes a session over {@code transport} (borrowed: {@link #close()} leaves it open) and finds {@code export}
     * ("/" for the root of the server's name space).
     */
    public static Nfs41Client connect(DataTransport transport, String export, NfsClientConfig config,
                                      Nfs41Options options) throws IOException {
        return open(transport, false, export, config, options, null);
    }

    private static Nfs41Client open(DataTransport t, boolean owns, String export, NfsClientConfig config,
                                    Nfs41Options options, CallbackService callbacks) throws IOException {
        Nfs41Session session = Nfs41Session.establish(t, config, options, callbacks);
        try {
            Nfs41AsyncClient async = new Nfs41AsyncClient(session);
            NfsObject top = Nfs41Session.await(async.rootObject());
            List<String> names = NfsPaths.components(export);
            FileHandle root = names.isEmpty() ? top.handle()
                    : Nfs41Session.await(async.lookupPath(top.handle(), names)).handle();
            return new Nfs41Client(t, owns, config, session, export, root, async);
        } catch (IOException | RuntimeException e) {
            session.close();
            throw e;
        }
    }

    /** The factory for {@code scheme}: configured, built in ("tcp"), or found by {@link ServiceLoader}. */
    private static DataTransportFactory factory(String scheme, NfsClientConfig config) throws IOException {
        DataTransportFactory f = config.factory(scheme);
        if (f != null) {
            return f;
        }
        if ("tcp".equals(scheme)) {
            return TcpDataTransport.factory();
        }
        for (DataTransportFactory found : ServiceLoader.load(DataTransportFactory.class)) {
            if (found.scheme().equals(scheme)) {
                return found;
            }
        }
        throw new IOException("no transport for scheme \"" + scheme + "\": add a DataTransportFactory for it to the "
                + "configuration or the class path");
    }

    /** "4.1" or "4.2": the minor version the session speaks. */
    @Override
    public String version() {
        return "4." + session.minorVersion();
    }

    /** The export's root handle. */
    public FileHandle root() {
        return root;
    }

    /** The export's path in the server's name space. */
    public String export() {
        return export;
    }

    public Nfs41Session session() {
        return session;
    }

    /** The asynchronous API over the same session. */
    public Nfs41AsyncClient async() {
        return async;
    }

    @Override
    public DataTransport transport() {
        return transport;
    }

    /** The largest READ one call makes ({@link Nfs41Session#maxReadSize()}). */
    public int maxReadSize() {
        return session.maxReadSize();
    }

    /** The largest WRITE one call makes ({@link Nfs41Session#maxWriteSize()}). */
    public int maxWriteSize() {
        return session.maxWriteSize();
    }

    /**
     * A buffer for READ or WRITE data: over RDMA the transport's registered memory (data moves without a copy), else
     * heap memory. The caller releases it.
     */
    public ByteBuf allocateBuffer(int size) throws IOException {
        return transport.allocateData(size);
    }

    private static <T> T await(CompletableFuture<T> f) throws IOException {
        return Nfs41Session.await(f);
    }

    // =========================================================================================== operations

    public void ping() throws IOException {
        await(async.ping());
    }

    public FileAttributes getattr(FileHandle fh) throws IOException {
        return await(async.getattr(fh));
    }

    /** GETATTR of NFSv4 attributes as they come ({@link Nfs41AsyncClient#getattr(FileHandle, Bitmap4)}). */
    public Fattr4Decoded getattr(FileHandle fh, Bitmap4 attributes) throws IOException {
        return await(async.getattr(fh, attributes));
    }

    public FileAttributes setattr(FileHandle fh, SetAttributes attributes) throws IOException {
        return await(async.setattr(fh, attributes, null));
    }

    /** With a ctime guard: NFS4ERR_NOTSUPP (see {@link Nfs41AsyncClient#setattr(FileHandle, SetAttributes, NfsTime)}). */
    public FileAttributes setattr(FileHandle fh, SetAttributes attributes, NfsTime guardCtime) throws IOException {
        return await(async.setattr(fh, attributes, guardCtime));
    }

    public NfsObject lookup(FileHandle dir, String name) throws IOException {
        return await(async.lookup(dir, name));
    }

    public int access(FileHandle fh, int bits) throws IOException {
        return await(async.access(fh, bits));
    }

    public String readlink(FileHandle fh) throws IOException {
        return await(async.readlink(fh));
    }

    /** READ into {@code dst} (see {@link Nfs41AsyncClient#read}). */
    public ReadReply read(FileHandle fh, long offset, ByteBuf dst) throws IOException {
        return await(async.read(fh, offset, dst));
    }

    /** WRITE from {@code src} (see {@link Nfs41AsyncClient#write}). */
    public WriteReply write(FileHandle fh, long offset, ByteBuf src, StableHow stable) throws IOException {
        return await(async.write(fh, offset, src, stable));
    }

    public long commit(FileHandle fh, long offset, long count) throws IOException {
        return await(async.commit(fh, offset, count));
    }

    public NfsObject create(FileHandle dir, String name, CreateMode mode, SetAttributes attributes) throws IOException {
        return await(async.create(dir, name, mode, attributes, 0));
    }

    public NfsObject createExclusive(FileHandle dir, String name, long verifier) throws IOException {
        return await(async.create(dir, name, CreateMode.EXCLUSIVE, SetAttributes.NONE, verifier));
    }

    /** OPEN by name without create (see {@link Nfs41AsyncClient#open}). */
    public NfsObject open(FileHandle dir, String name, boolean write) throws IOException {
        return await(async.open(dir, name, write));
    }

    /** CLOSE of the client's open of {@code fh}, if it has one. */
    public void close(FileHandle fh) throws IOException {
        await(async.close(fh));
    }

    /**
     * A byte-range lock of {@code length} bytes at {@code offset} ({@link Nfs41AsyncClient#TO_END}: to the end of the
     * file); see {@link Nfs41AsyncClient#lock}. Throws {@link LockDeniedException} when another owner holds a
     * conflicting lock.
     */
    public void lock(FileHandle fh, LockType type, long offset, long length) throws IOException {
        await(async.lock(fh, type, offset, length));
    }

    /**
     * A byte-range lock, waiting up to {@code patience} for the locks in its way to go (see
     * {@link Nfs41AsyncClient#lock(FileHandle, LockType, long, long, Duration)}).
     */
    public void lock(FileHandle fh, LockType type, long offset, long length, Duration patience) throws IOException {
        await(async.lock(fh, type, offset, length, patience));
    }

    /** Unlocks the bytes given (see {@link Nfs41AsyncClient#unlock}). */
    public void unlock(FileHandle fh, long offset, long length) throws IOException {
        await(async.unlock(fh, offset, length));
    }

    /** The lock that would keep this client from locking the bytes given, if any (LOCKT). */
    public Optional<LockConflict> testLock(FileHandle fh, LockType type, long offset, long length) throws IOException {
        return await(async.testLock(fh, type, offset, length));
    }

    /** Storage for the range, which reads as zeros where it was a hole (ALLOCATE; see {@link Nfs41AsyncClient#allocate}). */
    public void allocate(FileHandle fh, long offset, long length) throws IOException {
        await(async.allocate(fh, offset, length));
    }

    /** Punches a hole, the size kept (DEALLOCATE; see {@link Nfs41AsyncClient#deallocate}). */
    public void deallocate(FileHandle fh, long offset, long length) throws IOException {
        await(async.deallocate(fh, offset, length));
    }

    /**
     * Where the next data or hole begins at or after {@code offset} (SEEK; see {@link Nfs41AsyncClient#seek}); an
     * {@link Nfs4StatusException} with NFS4ERR_NXIO when there is none.
     */
    public SeekReply seek(FileHandle fh, long offset, SeekReply.Content what) throws IOException {
        return await(async.seek(fh, offset, what));
    }

    /**
     * Copies {@code count} bytes (0: to the end the source has now) of {@code src} from {@code srcOffset} to
     * {@code dst} at {@code dstOffset} within the server, without the bytes passing through this client: COPYs until
     * all are copied or the source ends, then a COMMIT of the destination if any part was copied UNSTABLE. Should the COMMIT
     * find that the server restarted meanwhile (its write verifier changed), the copy starts again, at most three
     * times in all.
     *
     * @return the bytes copied, fewer than {@code count} when the source ends first
     */
    public long copy(FileHandle src, long srcOffset, FileHandle dst, long dstOffset, long count) throws IOException {
        if (count == 0) {
            // "to the end" is fixed now: a copy into its own source, or a source that grows, would never end
            count = Math.max(0, getattr(src).size() - srcOffset);
            if (count == 0) {
                return 0;
            }
        }
        return CopyParts.copy(count,
                (done, left) -> await(async.copy(src, srcOffset + done, dst, dstOffset + done, left)),
                () -> commit(dst, 0, 0), dst);
    }

    /**
     * Makes {@code dst}'s bytes from {@code dstOffset} share {@code src}'s storage from {@code srcOffset} (CLONE; see
     * {@link Nfs41AsyncClient#clone}): all {@code count} bytes (0: to the end of the source) or none. An
     * {@link Nfs4StatusException} with NFS4ERR_NOTSUPP when the server's file system cannot share storage.
     */
    public void clone(FileHandle src, long srcOffset, FileHandle dst, long dstOffset, long count) throws IOException {
        await(async.clone(src, srcOffset, dst, dstOffset, count));
    }

    public NfsObject mkdir(FileHandle dir, String name, SetAttributes attributes) throws IOException {
        return await(async.mkdir(dir, name, attributes));
    }

    public NfsObject symlink(FileHandle dir, String name, String target) throws IOException {
        return await(async.symlink(dir, name, target, SetAttributes.NONE));
    }

    public NfsObject mknod(FileHandle dir, String name, FileType type, int major, int minor) throws IOException {
        return await(async.mknod(dir, name, type, SetAttributes.NONE, major, minor));
    }

    public void remove(FileHandle dir, String name) throws IOException {
        await(async.remove(dir, name));
    }

    public void rmdir(FileHandle dir, String name) throws IOException {
        await(async.rmdir(dir, name));
    }

    public void rename(FileHandle fromDir, String fromName, FileHandle toDir, String toName) throws IOException {
        await(async.rename(fromDir, fromName, toDir, toName));
    }

    public void link(FileHandle file, FileHandle dir, String name) throws IOException {
        await(async.link(file, dir, name));
    }

    public DirListing readdir(FileHandle dir, long cookie, long cookieVerifier, int count) throws IOException {
        return await(async.readdir(dir, cookie, cookieVerifier, count));
    }

    public DirListing readdirplus(FileHandle dir, long cookie, long cookieVerifier, int dirCount, int maxCount)
            throws IOException {
        return await(async.readdirplus(dir, cookie, cookieVerifier, dirCount, maxCount));
    }

    public FsStat fsstat(FileHandle fh) throws IOException {
        return await(async.fsstat(fh));
    }

    public FsInfo fsinfo(FileHandle fh) throws IOException {
        return await(async.fsinfo(fh));
    }

    public PathConf pathconf(FileHandle fh) throws IOException {
        return await(async.pathconf(fh));
    }

    // ================================================================================================ paths

    /** The handle of {@code path} below the export root ("/" or "" is the root): LOOKUPs in one COMPOUND. */
    @Override
    public FileHandle resolve(String path) throws IOException {
        List<String> names = NfsPaths.components(path);
        return names.isEmpty() ? root : await(async.lookupPath(root, names)).handle();
    }

    /** The attributes of {@code path}: its LOOKUPs and GETATTR in one COMPOUND. */
    @Override
    public FileAttributes stat(String path) throws IOException {
        List<String> names = NfsPaths.components(path);
        return names.isEmpty() ? getattr(root) : await(async.lookupPath(root, names)).attributes();
    }

    /** Removes a file or an empty directory (one REMOVE either way). */
    @Override
    public void delete(String path) throws IOException {
        NfsPaths.Split s = NfsPaths.split(path);
        remove(resolve(s.directory()), s.name());
    }

    /** Lists a directory with READDIR pages; a listing invalidated by a change (BAD_COOKIE) starts over, 3 times. */
    public List<DirEntry> list(FileHandle dir) throws IOException {
        for (int attempt = 0; ; attempt++) {
            try {
                return listOnce(dir);
            } catch (Nfs4StatusException e) {
                if (e.nfs4Status() != Nfs4Status.NFS4ERR_BAD_COOKIE || attempt >= 3) {
                    throw e;
                }
            }
        }
    }

    private List<DirEntry> listOnce(FileHandle dir) throws IOException {
        List<DirEntry> all = new ArrayList<>();
        long cookie = 0;
        long verifier = 0;
        while (true) {
            DirListing page = readdir(dir, cookie, verifier, config.readdirBytes());
            for (DirEntry e : page.entries()) {
                if (!e.isDotOrDotDot()) {
                    all.add(e);
                }
            }
            if (page.eof()) {
                return all;
            }
            if (page.entries().isEmpty()) {
                throw new IOException("the server returned an empty directory page without end of listing");
            }
            cookie = page.entries().get(page.entries().size() - 1).cookie();
            verifier = page.cookieVerifier();
        }
    }

    // ========================================================================================= file copies

    private int readChunk() {
        return Math.min(config.chunkSize(), maxReadSize());
    }

    private int writeChunk() {
        return Math.min(config.chunkSize(), maxWriteSize());
    }

    /**
     * Reads a whole remote file into memory (for small files).
     *
     * @throws EmptyReadException a READ returned no data before the end of the file
     */
    public byte[] readAll(String path) throws IOException {
        FileHandle fh = resolve(path);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int chunk = readChunk();
        ByteBuf buf = allocateBuffer(chunk);
        try {
            long offset = 0;
            while (true) {
                buf.clear();
                ReadReply r = read(fh, offset, buf);
                buf.readBytes(out, buf.readableBytes());
                offset += r.count();
                if (r.eof()) {
                    return out.toByteArray();
                }
                if (r.count() == 0) {
                    throw new EmptyReadException(offset);
                }
            }
        } finally {
            buf.release();
        }
    }

    /** Writes {@code data} as the whole content of {@code path} (created or truncated), FILE_SYNC, pipelined. */
    public long writeAll(String path, byte[] data) throws IOException {
        FileHandle fh = createFile(path);
        writeRanges(fh, data.length, StableHow.FILE_SYNC, (offset, length, dst) -> dst.writeBytes(data,
                (int) offset, length));
        return data.length;
    }

    /** Fills {@code dst} with {@code length} bytes of a source at {@code offset}. */
    @FunctionalInterface
    private interface Source {
        void read(long offset, int length, ByteBuf dst) throws IOException;
    }

    /** A range written and how, for the check against COMMIT's verifier. */
    private record Written(long offset, int length, StableHow committed, long verifier) {
    }

    /**
     * Writes {@code size} bytes from {@code source} in chunks, {@code config.window()} WRITEs in flight, each range
     * completed after a short write. Returns what was written.
     */
    private List<Written> writeRanges(FileHandle fh, long size, StableHow stable, Source source) throws IOException {
        int chunk = writeChunk();
        Semaphore window = new Semaphore(config.window());
        AtomicReference<Throwable> failure = new AtomicReference<>();
        ConcurrentLinkedQueue<Written> written = new ConcurrentLinkedQueue<>();
        try {
            for (long offset = 0; offset < size && failure.get() == null; offset += chunk) {
                int length = (int) Math.min(chunk, size - offset);
                window.acquire();
                ByteBuf buf;
                try {
                    buf = allocateBuffer(length);
                    source.read(offset, length, buf);
                } catch (IOException | RuntimeException e) {
                    window.release();
                    throw e;
                }
                long at = offset;
                writeFully(fh, at, buf, stable, written).whenComplete((v, e) -> {
                    buf.release();
                    if (e != null) {
                        failure.compareAndSet(null, e);
                    }
                    window.release();
                });
            }
            window.acquire(config.window());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while writing");
        }
        if (failure.get() != null) {
            throw Nfs41Session.asIo(failure.get());
        }
        return new ArrayList<>(written);
    }

    /** WRITEs the readable bytes of {@code buf} at {@code offset}, again after a short write, until all are written. */
    private CompletableFuture<Void> writeFully(FileHandle fh, long offset, ByteBuf buf, StableHow stable,
                                               ConcurrentLinkedQueue<Written> written) {
        return async.write(fh, offset, buf, stable).thenCompose(r -> {
            if (r.count() <= 0 && buf.readableBytes() > 0) {
                return CompletableFuture.failedFuture(new IOException("WRITE at " + offset + " wrote nothing"));
            }
            written.add(new Written(offset, (int) r.count(), r.committed(), r.verifier()));
            if (r.count() >= buf.readableBytes()) {
                return CompletableFuture.completedFuture(null);
            }
            buf.skipBytes((int) r.count());
            return writeFully(fh, offset + r.count(), buf, stable, written);
        });
    }

    /**
     * Copies {@code local} to {@code remotePath} (created or truncated): pipelined UNSTABLE WRITEs, a COMMIT, and the
     * ranges whose write verifier differs from the COMMIT's (the server restarted in between) written again
     * FILE_SYNC. Closes the file's open. Returns the bytes in the file.
     */
    public long upload(Path local, String remotePath) throws IOException {
        FileHandle fh = createFile(remotePath);
        try (FileChannel in = FileChannel.open(local, StandardOpenOption.READ)) {
            long size = in.size();
            Source source = (offset, length, dst) -> {
                int done = 0;
                while (done < length) {
                    int n = dst.writeBytes(in, offset + done, length - done);
                    if (n < 0) {
                        throw new IOException(local + " shrank while being uploaded");
                    }
                    done += n;
                }
            };
            List<Written> written = writeRanges(fh, size, StableHow.UNSTABLE, source);
            long verifier = commit(fh, 0, 0);
            for (Written w : written) {
                if (!w.committed().isStable() && w.verifier() != verifier) {
                    // the server lost unstable data: this range again, stably
                    ByteBuf buf = allocateBuffer(w.length());
                    try {
                        source.read(w.offset(), w.length(), buf);
                        await(writeFully(fh, w.offset(), buf, StableHow.FILE_SYNC, new ConcurrentLinkedQueue<>()));
                    } finally {
                        buf.release();
                    }
                }
            }
            return size;
        } finally {
            close(fh);
        }
    }

    /**
     * Copies the remote file {@code remotePath} to {@code local} (replaced) with pipelined READs; reads on past the
     * size it had at the start until the end of file, and stops at an end of file found before that size (the local
     * file is cut there). Closes the file's open. Returns the bytes copied: the local file's size.
     *
     * @throws EmptyReadException a READ returned no data before the end of the file
     */
    public long download(String remotePath, Path local) throws IOException {
        FileHandle fh = resolve(remotePath);
        FileAttributes a = getattr(fh);
        if (a.isDirectory()) {
            throw new Nfs4StatusException(Nfs4Status.NFS4ERR_ISDIR, Nfs4.OP_READ, remotePath);
        }
        int chunk = readChunk();
        Semaphore window = new Semaphore(config.window());
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicLong eofAt = new AtomicLong(Long.MAX_VALUE);
        try (FileChannel out = FileChannel.open(local, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            long size = a.size();
            try {
                for (long offset = 0; offset < Math.min(size, eofAt.get()) && failure.get() == null;
                     offset += chunk) {
                    int length = (int) Math.min(chunk, size - offset);
                    window.acquire();
                    ByteBuf buf;
                    try {
                        buf = allocateBuffer(length);
                    } catch (IOException | RuntimeException e) {
                        window.release();
                        throw e;
                    }
                    long at = offset;
                    readFully(fh, at, length, buf).whenComplete((eof, e) -> {
                        try {
                            if (e == null) {
                                int n = buf.readableBytes();
                                int done = 0;
                                while (done < n) {
                                    done += buf.getBytes(buf.readerIndex() + done, out, at + done, n - done);
                                }
                                if (eof && n < length) {
                                    eofAt.accumulateAndGet(at + n, Math::min); // the file is shorter now
                                }
                            }
                        } catch (IOException | RuntimeException x) {
                            e = x;
                        } finally {
                            buf.release();
                            if (e != null) {
                                failure.compareAndSet(null, e);
                            }
                            window.release();
                        }
                    });
                }
                window.acquire(config.window());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while reading");
            }
            if (failure.get() != null) {
                throw Nfs41Session.asIo(failure.get());
            }
            if (eofAt.get() < size) {
                out.truncate(eofAt.get()); // READs past the end the file had found data of another size
                return eofAt.get();
            }
            return size + readTail(fh, size, chunk, out);
        } finally {
            close(fh);
        }
    }

    /** READs from {@code from} to the end of the file (it may have grown) into {@code out}: the bytes read. */
    private long readTail(FileHandle fh, long from, int chunk, FileChannel out) throws IOException {
        long total = from;
        ByteBuf buf = allocateBuffer(chunk);
        try {
            while (true) {
                buf.clear();
                ReadReply r = read(fh, total, buf);
                int n = buf.readableBytes();
                int done = 0;
                while (done < n) {
                    done += buf.getBytes(done, out, total + done, n - done);
                }
                total += n;
                if (r.eof()) {
                    return total - from;
                }
                if (n == 0) {
                    throw new EmptyReadException(total);
                }
            }
        } finally {
            buf.release();
        }
    }

    /**
     * READs {@code length} bytes at {@code offset} into {@code buf}, again after a short read, until they are all there
     * or the file ends; completes with whether it ended, or with {@link EmptyReadException} for a READ that returned
     * nothing before the end.
     */
    private CompletableFuture<Boolean> readFully(FileHandle fh, long offset, int length, ByteBuf buf) {
        int before = buf.writerIndex();
        return async.read(fh, offset, buf).thenCompose(r -> {
            int got = buf.writerIndex() - before;
            if (got >= length || r.eof()) {
                return CompletableFuture.completedFuture(r.eof());
            }
            if (got == 0) {
                return CompletableFuture.failedFuture(new EmptyReadException(offset));
            }
            return readFully(fh, offset + got, length - got, buf);
        });
    }

    /**
     * Closes the client's opens, ends the session (DESTROY_SESSION, DESTROY_CLIENTID) and closes the transport if the
     * client made it.
     */
    @Override
    public void close() {
        try {
            session.close();
        } finally {
            if (ownsTransport) {
                transport.close();
            }
        }
    }

    @Override
    public String toString() {
        return "NFSv4 mount of " + export + " over " + session;
    }
}
