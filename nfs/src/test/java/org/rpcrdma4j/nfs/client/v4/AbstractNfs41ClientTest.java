package org.rpcrdma4j.nfs.client.v4;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.rpcrdma4j.nfs.Access;
import org.rpcrdma4j.nfs.CreateMode;
import org.rpcrdma4j.nfs.DirEntry;
import org.rpcrdma4j.nfs.FileAttributes;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.FileType;
import org.rpcrdma4j.nfs.FsInfo;
import org.rpcrdma4j.nfs.FsStat;
import org.rpcrdma4j.nfs.Nfs3Status;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.nfs.NfsObject;
import org.rpcrdma4j.nfs.NfsTime;
import org.rpcrdma4j.nfs.PathConf;
import org.rpcrdma4j.nfs.SetAttributes;
import org.rpcrdma4j.nfs.StableHow;
import org.rpcrdma4j.nfs.client.DirListing;
import org.rpcrdma4j.nfs.client.EmptyReadException;
import org.rpcrdma4j.nfs.client.NfsClientConfig;
import org.rpcrdma4j.nfs.client.ReadReply;
import org.rpcrdma4j.nfs.client.WriteReply;
import org.rpcrdma4j.nfs.v4.Nfs4Status;
import org.rpcrdma4j.nfs.v4.state.ClientTable;
import org.rpcrdma4j.nfs.v4.state.StateConfig;
import org.rpcrdma4j.nfs.vfs.MemoryVfs;
import org.rpcrdma4j.nfs.vfs.ReadResult;

/**
 * The NFSv4.1 client against the project's NFSv4.1 server ({@code NfsServer}'s NFSv4 program) over one transport:
 * data of several sizes written and read back byte for byte (and compared with what the server's file system holds),
 * the name space operations, two clients, a full slot table, a session destroyed by the server, a connection cut
 * with 16 COMPOUNDs in flight, lease renewal, opens, and the typed errors. A subclass starts the server and connects
 * over TCP or RDMA; every server is reached through a {@link org.rpcrdma4j.xprt.drc.TcpProxy} so its connections
 * can be cut.
 */
abstract class AbstractNfs41ClientTest {
    static final int MIB = 1 << 20;

    protected final MemoryVfs memory = new MemoryVfs(256L << 20);
    protected final GatedVfs vfs = new GatedVfs(memory);
    protected final List<Nfs41Client> clients = new ArrayList<>();

    @TempDir
    Path tmp;

    /** Starts the server with {@code state}, exporting {@link #vfs} at "/export". */
    protected abstract void startServer(StateConfig state) throws IOException;

    /** A client of the export "/export" of the running server. */
    protected abstract Nfs41Client newClient(NfsClientConfig config, Nfs41Options options) throws IOException;

    /** The running server's NFSv4 clients and sessions. */
    protected abstract ClientTable serverState();

    /** Cuts every connection between clients and server (the clients reconnect). */
    protected abstract void cutConnections();

    protected abstract void stopServer() throws Exception;

    /** Connections the clients made to the server so far. */
    protected abstract int connectionsMade();

    @AfterEach
    void tearDown() throws Exception {
        vfs.openGate();
        for (Nfs41Client c : clients) {
            c.close();
        }
        stopServer();
        memory.close();
    }

    static StateConfig state(Duration lease, Duration grace) {
        StateConfig d = StateConfig.defaults();
        return new StateConfig(lease, grace, d.foreLimits(), d.backLimits(), d.maxSessionsPerClient());
    }

    protected void start() throws IOException {
        startServer(state(Duration.ofSeconds(60), Duration.ZERO));
    }

    protected Nfs41Client client(Nfs41Options options) throws IOException {
        Nfs41Client c = newClient(NfsClientConfig.defaults().withCallTimeout(Duration.ofSeconds(60)), options);
        clients.add(c);
        return c;
    }

    protected Nfs41Client client() throws IOException {
        return client(Nfs41Options.defaults());
    }

    static byte[] pattern(int size, long seed) {
        byte[] b = new byte[size];
        new Random(seed).nextBytes(b);
        return b;
    }

    /** What the server's file system holds at {@code name} in the export's root. */
    protected byte[] stored(String name) throws NfsException {
        FileHandle fh = memory.lookup(memory.root(), name).handle();
        long size = memory.getattr(fh).size();
        ByteBuffer b = ByteBuffer.allocate((int) size + 1);
        memory.read(fh, 0, b);
        b.flip();
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    static void await(String what, BooleanSupplier condition) throws InterruptedException {
        while (!condition.getAsBoolean()) {
            Thread.sleep(5); // the class's timeout bounds the wait
        }
    }

    /** Writes {@code data} at 0 in chunks from buffers of {@link Nfs41Client#allocateBuffer}, all in flight at once. */
    static void writeChunks(Nfs41Client c, FileHandle fh, byte[] data, int chunk, StableHow how) throws Exception {
        List<CompletableFuture<WriteReply>> pending = new ArrayList<>();
        List<ByteBuf> buffers = new ArrayList<>();
        for (int off = 0; off < data.length; off += chunk) {
            int n = Math.min(chunk, data.length - off);
            ByteBuf b = c.allocateBuffer(n);
            b.writeBytes(data, off, n);
            buffers.add(b);
            pending.add(c.async().write(fh, off, b, how));
        }
        for (int i = 0; i < pending.size(); i++) {
            assertThat(pending.get(i).get(60, TimeUnit.SECONDS).count()).isEqualTo(buffers.get(i).readableBytes());
            buffers.get(i).release();
        }
    }

    // =========================================================================================== data

    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(ints = {0, 1, 4097, MIB + 1, 16 * MIB})
    void filesOfEverySizeComeBackByteForByte(int size) throws Exception {
        start();
        Nfs41Client c = client();
        byte[] data = pattern(size, size);
        FileHandle fh = c.createFile("/f" + size);
        writeChunks(c, fh, data, c.maxWriteSize(), StableHow.UNSTABLE);
        long verifier = c.commit(fh, 0, 0);
        assertThat(verifier).isEqualTo(memory.writeVerifier());

        assertThat(stored("f" + size)).as("what the server stored").isEqualTo(data);
        assertThat(c.getattr(fh).size()).isEqualTo(size);
        assertThat(c.readAll("/f" + size)).isEqualTo(data);
        Path local = tmp.resolve("copy");
        assertThat(c.download("/f" + size, local)).isEqualTo(size);
        assertThat(Files.readAllBytes(local)).isEqualTo(data);
        assertThat(c.async().isOpen(fh)).as("download closes its open").isFalse();
    }

    @Test
    void aReadOfNothingBeforeTheEndFailsTypedAndAnEarlyEndCutsTheCopyThere() throws Exception {
        start();
        Nfs41Client c = client();
        int chunk = Math.min(NfsClientConfig.defaults().chunkSize(), c.maxReadSize());
        byte[] data = pattern(3 * chunk - 100, 11);
        c.writeAll("/short", data);
        Path local = tmp.resolve("short");

        vfs.readsAt.put((long) chunk, new ReadResult(0, false));
        assertThatThrownBy(() -> c.download("/short", local)).as("no zeros left where the data was not read")
                .isInstanceOfSatisfying(EmptyReadException.class, e -> assertThat(e.offset()).isEqualTo(chunk));
        vfs.readsAt.put((long) chunk, new ReadResult(0, false));
        assertThatThrownBy(() -> c.readAll("/short")).isInstanceOf(EmptyReadException.class);

        // the file ends early for the READ at the second chunk: the copy is what came before it
        vfs.readsAt.put((long) chunk, new ReadResult(0, true));
        assertThat(c.download("/short", local)).isEqualTo(chunk);
        assertThat(Files.readAllBytes(local)).isEqualTo(Arrays.copyOf(data, chunk));

        assertThat(c.download("/short", local)).isEqualTo(data.length);
        assertThat(Files.readAllBytes(local)).isEqualTo(data);
    }

    @Test
    void uploadAndWriteAllStoreWhatWasGiven() throws Exception {
        start();
        Nfs41Client c = client();
        byte[] data = pattern(5 * MIB + 333, 5);
        Path local = tmp.resolve("up");
        Files.write(local, data);
        assertThat(c.upload(local, "/up")).isEqualTo(data.length);
        assertThat(stored("up")).isEqualTo(data);
        byte[] small = pattern(70_000, 6);
        c.writeAll("/up", small); // truncates
        assertThat(stored("up")).isEqualTo(small);
        assertThat(c.readAll("/up")).isEqualTo(small);
    }

    @Test
    void readsAndWritesAtOffsetsAndShortReadsAtTheEnd() throws Exception {
        start();
        Nfs41Client c = client();
        FileHandle fh = c.createFile("/o");
        byte[] data = pattern(10_000, 7);
        ByteBuf src = c.allocateBuffer(data.length);
        src.writeBytes(data);
        WriteReply w = c.write(fh, 5000, src, StableHow.FILE_SYNC);
        src.release();
        assertThat(w.count()).isEqualTo(data.length);
        assertThat(w.committed()).isEqualTo(StableHow.FILE_SYNC);
        ByteBuf dst = c.allocateBuffer(20_000);
        ReadReply r = c.read(fh, 5000, dst);
        assertThat(r.count()).isEqualTo(data.length);
        assertThat(r.eof()).isTrue();
        byte[] back = new byte[dst.readableBytes()];
        dst.readBytes(back);
        assertThat(back).isEqualTo(data);
        dst.clear();
        ReadReply whole = c.read(fh, 0, dst.writerIndex(100));
        assertThat(whole.count()).isEqualTo(15_000);
        assertThat(dst.writerIndex()).as("the writer index moved by the count").isEqualTo(15_100);
        for (int i = 100; i < 5100; i++) {
            assertThat(dst.getByte(i)).as("the hole before the data").isZero();
        }
        byte[] tail = new byte[data.length];
        dst.getBytes(5100, tail);
        assertThat(tail).isEqualTo(data);
        dst.release();
        // a heap buffer larger than a READ: the READ fills only what it asks
        ByteBuf big = io.netty.buffer.Unpooled.buffer(3 * MIB);
        ReadReply all = c.read(fh, 0, big);
        assertThat(all.count()).isEqualTo(15_000);
        assertThat(big.readableBytes()).isEqualTo(15_000);
    }

    // ====================================================================================== name space

    @Test
    void directoriesLinksRenamesRemovesAndListings() throws Exception {
        start();
        Nfs41Client c = client();
        FileHandle dir = c.mkdir("/d");
        assertThat(c.getattr(dir).type()).isEqualTo(FileType.DIRECTORY);
        c.mkdir("/d/sub");
        c.writeAll("/d/a", pattern(100, 1));
        NfsObject link = c.symlink(dir, "l", "a/../a");
        assertThat(link.attributes().type()).isEqualTo(FileType.SYMLINK);
        assertThat(c.readlink(link.handle())).isEqualTo("a/../a");
        assertThat(c.readlink(c.resolve("/d/l"))).isEqualTo("a/../a");

        c.rename("/d/a", "/d/sub/b");
        assertThat(c.readAll("/d/sub/b")).isEqualTo(pattern(100, 1));
        assertThatThrownBy(() -> c.resolve("/d/a")).isInstanceOfSatisfying(Nfs4StatusException.class, e -> {
            assertThat(e.nfs4Status()).isEqualTo(Nfs4Status.NFS4ERR_NOENT);
            assertThat(e.status()).isEqualTo(Nfs3Status.NFS3ERR_NOENT);
        });
        assertThat(c.lookup(c.resolve("/d/sub"), "..").handle()).isEqualTo(dir);
        assertThat(c.lookup(dir, ".").handle()).isEqualTo(dir);

        List<DirEntry> entries = c.list("/d");
        assertThat(entries).extracting(DirEntry::name).containsExactlyInAnyOrder("sub", "l");
        for (DirEntry e : entries) {
            assertThat(e.handle()).isEqualTo(c.resolve("/d/" + e.name()));
            assertThat(e.attributes()).isNotNull();
            assertThat(e.fileid()).isEqualTo(e.attributes().fileid());
        }
        assertThatThrownBy(() -> c.rmdir(dir, "sub")).isInstanceOfSatisfying(Nfs4StatusException.class,
                e -> assertThat(e.nfs4Status()).isEqualTo(Nfs4Status.NFS4ERR_NOTEMPTY));
        c.delete("/d/sub/b");
        c.rmdir(dir, "sub");
        c.remove(dir, "l");
        assertThat(c.list("/d")).isEmpty();
        c.delete("/d");
        assertThat(c.list("/")).isEmpty();
    }

    /**
     * LINK (the file's handle saved, the directory's current): one file under two names, the same bytes through
     * either whichever is written, kept while either name is; what Linux's server refuses is refused with its status.
     */
    @Test
    void hardLinksNameOneFile() throws Exception {
        start();
        Nfs41Client c = client();
        FileHandle dir = c.mkdir("/d");
        byte[] data = pattern(3 * MIB + 7, 21);
        c.writeAll("/a", data);
        FileHandle a = c.resolve("/a");
        c.link(a, dir, "b");
        assertThat(c.resolve("/d/b")).isEqualTo(a);
        assertThat(c.readAll("/d/b")).isEqualTo(data).isEqualTo(c.readAll("/a"));
        assertThat(c.getattr(a).nlink()).isEqualTo(2);

        byte[] patch = pattern(5000, 22);
        ByteBuf src = c.allocateBuffer(patch.length);
        src.writeBytes(patch);
        try {
            c.write(c.resolve("/d/b"), MIB, src, StableHow.FILE_SYNC);
        } finally {
            src.release();
        }
        System.arraycopy(patch, 0, data, MIB, patch.length);
        assertThat(c.readAll("/a")).isEqualTo(data);
        assertThat(stored("a")).isEqualTo(data);

        c.remove(c.root(), "a");
        assertThat(c.readAll("/d/b")).isEqualTo(data);
        assertThat(c.getattr(a).nlink()).as("the handle lives on").isEqualTo(1);

        c.writeAll("/other", pattern(10, 23));
        FileHandle other = c.resolve("/other");
        assertThat(statusOf(() -> c.link(other, dir, "b")).nfs4Status()).isEqualTo(Nfs4Status.NFS4ERR_EXIST);
        assertThat(statusOf(() -> c.link(dir, c.root(), "d2")).nfs4Status()).isEqualTo(Nfs4Status.NFS4ERR_ISDIR);
        assertThat(statusOf(() -> c.link(other, other, "x")).nfs4Status()).isEqualTo(Nfs4Status.NFS4ERR_NOTDIR);
        assertThat(c.readAll("/d/b")).isEqualTo(data);

        assertThat(c.fsinfo(c.root()).properties() & FsInfo.FSF3_LINK).as("link_support").isNotZero();
        assertThat(c.pathconf(c.root()).linkMax()).as("maxlink").isEqualTo(MemoryVfs.MAX_LINKS);
    }

    @Test
    void aListingLargerThanOnePageComesInPagesWithCookies() throws Exception {
        start();
        Nfs41Client c = client();
        FileHandle dir = c.mkdir("/many");
        List<String> names = new ArrayList<>();
        List<CompletableFuture<NfsObject>> made = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            String n = "entry-with-a-longish-name-" + i;
            names.add(n);
            made.add(c.async().mkdir(dir, n, SetAttributes.NONE));
        }
        for (CompletableFuture<NfsObject> f : made) {
            f.get(60, TimeUnit.SECONDS);
        }
        DirListing first = c.readdir(dir, 0, 0, 4096);
        assertThat(first.eof()).isFalse();
        assertThat(first.entries()).isNotEmpty().hasSizeLessThan(300);
        assertThat(first.dirAttributes().type()).isEqualTo(FileType.DIRECTORY);
        DirEntry last = first.entries().get(first.entries().size() - 1);
        DirListing second = c.readdir(dir, last.cookie(), first.cookieVerifier(), 4096);
        assertThat(second.entries().get(0).name()).isNotEqualTo(last.name());
        assertThat(c.list(dir)).extracting(DirEntry::name).containsExactlyInAnyOrderElementsOf(names);
    }

    @Test
    void createModesOpenByNameAndAttributes() throws Exception {
        start();
        Nfs41Client c = client();
        FileHandle root = c.root();
        NfsObject made = c.create(root, "g", CreateMode.GUARDED, SetAttributes.NONE.withMode(0640));
        assertThat(made.attributes().mode()).isEqualTo(0640);
        assertThatThrownBy(() -> c.create(root, "g", CreateMode.GUARDED, SetAttributes.NONE))
                .isInstanceOfSatisfying(Nfs4StatusException.class, e -> {
                    assertThat(e.nfs4Status()).isEqualTo(Nfs4Status.NFS4ERR_EXIST);
                    assertThat(e.status()).isEqualTo(Nfs3Status.NFS3ERR_EXIST);
                });
        NfsObject x1 = c.createExclusive(root, "x", 42);
        NfsObject x2 = c.createExclusive(root, "x", 42);
        assertThat(x2.handle()).as("the same exclusive create again").isEqualTo(x1.handle());
        assertThatThrownBy(() -> c.createExclusive(root, "x", 43)).isInstanceOf(Nfs4StatusException.class);

        c.writeAll("/u", pattern(1000, 9));
        NfsObject opened = c.open(root, "u", false);
        assertThat(opened.attributes().size()).isEqualTo(1000);
        assertThat(c.async().isOpen(opened.handle())).isTrue();
        assertThatThrownBy(() -> c.open(root, "missing", false)).isInstanceOfSatisfying(Nfs4StatusException.class,
                e -> assertThat(e.nfs4Status()).isEqualTo(Nfs4Status.NFS4ERR_NOENT));

        FileAttributes a = c.setattr(opened.handle(), SetAttributes.NONE.withMode(0600).withSize(10)
                .withMtime(SetAttributes.TimeSetting.client(new NfsTime(1_000_000, 5))));
        assertThat(a.mode()).isEqualTo(0600);
        assertThat(a.size()).isEqualTo(10);
        assertThat(a.mtime()).isEqualTo(new NfsTime(1_000_000, 5));
        assertThat(stored("u")).isEqualTo(java.util.Arrays.copyOf(pattern(1000, 9), 10));
        assertThat(c.stat("/u")).isEqualTo(c.getattr(opened.handle()));

        assertThat(c.access(opened.handle(), Access.READ | Access.MODIFY)).isEqualTo(Access.READ | Access.MODIFY);
        FsStat fs = c.fsstat(root);
        assertThat(fs.totalBytes()).isPositive();
        assertThat(fs.availableBytes()).isLessThanOrEqualTo(fs.totalBytes());
        FsInfo info = c.fsinfo(root);
        assertThat(info.rtmax()).isEqualTo(c.maxReadSize());
        assertThat(info.wtmax()).isEqualTo(c.maxWriteSize());
        assertThat(info.maxFileSize()).isPositive();
        PathConf pc = c.pathconf(root);
        assertThat(pc.nameMax()).isPositive();
    }

    /**
     * CREATE makes FIFOs, sockets and devices; their handles name them, with a device's numbers (rawdev); READ and WRITE
     * of one are NFS4ERR_WRONG_TYPE (RFC 8881 sections 18.22.3 and 18.32.3).
     */
    @Test
    void specialFilesAreMadeByCreate() throws Exception {
        start();
        Nfs41Client c = client();
        FileHandle root = c.root();
        assertThat(c.mknod(root, "p", FileType.FIFO, 0, 0).attributes().type()).isEqualTo(FileType.FIFO);
        assertThat(c.mknod(root, "s", FileType.SOCKET, 0, 0).attributes().type()).isEqualTo(FileType.SOCKET);
        FileAttributes chr = c.mknod(root, "null", FileType.CHAR_DEVICE, 1, 3).attributes();
        assertThat(chr.type()).isEqualTo(FileType.CHAR_DEVICE);
        assertThat(new int[] {chr.rdevMajor(), chr.rdevMinor()}).containsExactly(1, 3);
        FileHandle blk = c.mknod(root, "loop", FileType.BLOCK_DEVICE, 7, 200).handle();
        FileAttributes again = c.getattr(blk);
        assertThat(again.type()).isEqualTo(FileType.BLOCK_DEVICE);
        assertThat(new int[] {again.rdevMajor(), again.rdevMinor()}).containsExactly(7, 200);
        assertThat(c.lookup(root, "p").attributes().type()).isEqualTo(FileType.FIFO);
        assertThatThrownBy(() -> c.mknod(root, "p", FileType.FIFO, 0, 0))
                .isInstanceOfSatisfying(Nfs4StatusException.class,
                        e -> assertThat(e.nfs4Status()).isEqualTo(Nfs4Status.NFS4ERR_EXIST));
        FileHandle p = c.lookup(root, "p").handle();
        ByteBuf b = c.allocateBuffer(10);
        try {
            assertThatThrownBy(() -> c.read(p, 0, b)).isInstanceOfSatisfying(Nfs4StatusException.class,
                    e -> assertThat(e.nfs4Status()).isEqualTo(Nfs4Status.NFS4ERR_WRONG_TYPE));
            b.writeZero(4);
            assertThatThrownBy(() -> c.write(p, 0, b, StableHow.FILE_SYNC)).isInstanceOfSatisfying(
                    Nfs4StatusException.class, e -> assertThat(e.nfs4Status()).isEqualTo(Nfs4Status.NFS4ERR_WRONG_TYPE));
        } finally {
            b.release();
        }
        for (String name : List.of("p", "s", "null", "loop")) {
            c.remove(root, name);
        }
    }

    @Test
    void whatNfsv4CannotDoIsATypedFailure() throws Exception {
        start();
        Nfs41Client c = client();
        FileHandle root = c.root();
        FileHandle file = c.createFile("/f");
        assertThatThrownBy(() -> c.mknod(root, "r", FileType.REGULAR, 0, 0))
                .isInstanceOfSatisfying(Nfs4StatusException.class,
                        e -> assertThat(e.nfs4Status()).isEqualTo(Nfs4Status.NFS4ERR_BADTYPE));
        assertThatThrownBy(() -> c.setattr(file, SetAttributes.NONE.withMode(0600), NfsTime.ZERO))
                .isInstanceOfSatisfying(Nfs4StatusException.class,
                        e -> assertThat(e.nfs4Status()).isEqualTo(Nfs4Status.NFS4ERR_NOTSUPP));
        ByteBuf b = c.allocateBuffer(10);
        try {
            assertThatThrownBy(() -> c.read(root, 0, b)).isInstanceOfSatisfying(Nfs4StatusException.class,
                    e -> assertThat(e.nfs4Status()).isEqualTo(Nfs4Status.NFS4ERR_ISDIR));
        } finally {
            b.release();
        }
        assertThatThrownBy(() -> c.lookup(root, "a/b")).isInstanceOf(IllegalArgumentException.class);
    }

    // ======================================================================================== sessions

    @Test
    void twoClientsHaveTheirOwnClientIdsAndSessions() throws Exception {
        start();
        Nfs41Client a = client(Nfs41Options.defaults().withOwnerId("client-a"));
        Nfs41Client b = client(Nfs41Options.defaults().withOwnerId("client-b"));
        assertThat(a.session().clientId()).isNotEqualTo(b.session().clientId());
        assertThat(a.session().sessionId()).isNotEqualTo(b.session().sessionId());
        byte[] da = pattern(2 * MIB + 3, 11);
        byte[] db = pattern(MIB + 5, 12);
        CompletableFuture<Long> wa = CompletableFuture.supplyAsync(() -> {
            try {
                return a.writeAll("/a", da);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        b.writeAll("/b", db);
        assertThat(wa.get(60, TimeUnit.SECONDS)).isEqualTo(da.length);
        assertThat(a.readAll("/b")).isEqualTo(db);
        assertThat(b.readAll("/a")).isEqualTo(da);
        assertThat(serverState().isConfirmed(a.session().clientId())).isTrue();
        long bId = b.session().clientId();
        b.close();
        clients.remove(b);
        assertThat(serverState().isConfirmed(bId)).as("DESTROY_CLIENTID on close").isFalse();
        assertThat(a.readAll("/a")).isEqualTo(da);
    }

    @Test
    void aMountWaitsWhileTheServerHoldsAllTheClientIdsItKeeps() throws Exception {
        startServer(state(Duration.ofSeconds(60), Duration.ZERO).withStateBounds(1, 1024));
        Nfs41Client first = client(Nfs41Options.defaults().withOwnerId("first"));
        first.writeAll("/one", pattern(100, 50));
        CompletableFuture<Nfs41Client> second = CompletableFuture.supplyAsync(() -> {
            try {
                return newClient(NfsClientConfig.defaults().withCallTimeout(Duration.ofSeconds(60)),
                        Nfs41Options.defaults().withOwnerId("second")
                                .withDelayRetries(200, Duration.ofMillis(20), Duration.ofMillis(100)));
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        Thread.sleep(300);
        assertThat(second).as("mounted while the server held no room").isNotDone();
        first.close(); // DESTROY_CLIENTID: room for one
        clients.remove(first);
        Nfs41Client b = second.get(60, TimeUnit.SECONDS);
        clients.add(b);
        assertThat(b.session().delayRetries()).as("EXCHANGE_IDs asked again after NFS4ERR_DELAY").isPositive();
        assertThat(b.readAll("/one")).isEqualTo(pattern(100, 50));
    }

    // ======================================================================================== NFSv4.2 space

    private static Nfs4StatusException statusOf(ThrowingCall call) {
        try {
            call.run();
        } catch (Nfs4StatusException e) {
            return e;
        } catch (Exception e) {
            throw new AssertionError("expected an Nfs4StatusException", e);
        }
        throw new AssertionError("expected an Nfs4StatusException, the call succeeded");
    }

    @FunctionalInterface
    interface ThrowingCall {
        void run() throws Exception;
    }

    @Test
    void holesArePunchedAndFoundAndSpaceIsAllocatedAsTheServersFileSystemSees() throws Exception {
        start();
        Nfs41Client c = client();
        byte[] data = pattern(4 * MIB + 100, 40);
        c.writeAll("/sparse", data);
        FileHandle fh = c.resolve("/sparse");
        long usedBefore = memory.getattr(memory.lookup(memory.root(), "sparse").handle()).used();

        c.deallocate(fh, MIB, 2 * MIB);

        byte[] expected = data.clone();
        java.util.Arrays.fill(expected, MIB, 3 * MIB, (byte) 0);
        assertThat(stored("sparse")).isEqualTo(expected);
        assertThat(c.readAll("/sparse")).isEqualTo(expected);
        assertThat(memory.getattr(memory.lookup(memory.root(), "sparse").handle()).used())
                .isEqualTo(usedBefore - 2 * MIB);
        assertThat(c.seek(fh, 0, SeekReply.Content.HOLE)).isEqualTo(new SeekReply(MIB, false));
        assertThat(c.seek(fh, MIB + 5, SeekReply.Content.DATA)).isEqualTo(new SeekReply(3 * MIB, false));
        assertThat(c.seek(fh, 3 * MIB, SeekReply.Content.HOLE)).isEqualTo(new SeekReply(data.length, true));
        assertThat(statusOf(() -> c.seek(fh, data.length, SeekReply.Content.DATA)).nfs4Status())
                .as("from the end: ENXIO, as lseek").isEqualTo(Nfs4Status.NFS4ERR_NXIO);

        c.allocate(fh, 4 * MIB, 2 * MIB);

        assertThat(c.getattr(fh).size()).isEqualTo(6 * MIB);
        assertThat(stored("sparse")).isEqualTo(java.util.Arrays.copyOf(expected, 6 * MIB));
        assertThat(c.seek(fh, 4 * MIB, SeekReply.Content.HOLE)).isEqualTo(new SeekReply(6 * MIB, true));
        assertThat(statusOf(() -> c.allocate(fh, 0, 1L << 40)).nfs4Status()).isEqualTo(Nfs4Status.NFS4ERR_FBIG);
    }

    @Test
    void copyWithinTheServerGoesInPartsAndComparesByteForByte() throws Exception {
        start();
        Nfs41Client c = client();
        byte[] data = pattern(33 * MIB + 7, 41);
        c.writeAll("/original", data);
        FileHandle src = c.resolve("/original");
        FileHandle dst = c.create(c.root(), "copy", CreateMode.UNCHECKED, SetAttributes.NONE).handle();

        CopyReply first = c.async().copy(src, 0, dst, 0, 0).get(60, TimeUnit.SECONDS);
        assertThat(first.count()).as("the server's most per COPY").isEqualTo(16L * MIB);
        assertThat(first.committed()).isEqualTo(StableHow.FILE_SYNC);
        assertThat(c.copy(src, 0, dst, 0, 0)).as("to the end of the source, in three COPYs").isEqualTo(data.length);
        assertThat(stored("copy")).isEqualTo(data);

        // part of one file into the middle of another, a count past the source's end, and nothing past it
        FileHandle small = c.create(c.root(), "small", CreateMode.UNCHECKED, SetAttributes.NONE).handle();
        c.writeAll("/small", pattern(100, 42));
        assertThat(c.copy(src, 5, small, 50, 1000)).isEqualTo(1000);
        assertThat(c.copy(src, data.length - 10, small, 0, 100)).isEqualTo(10);
        assertThat(c.copy(src, data.length + 10, small, 0, 100)).isZero();
        byte[] expected = java.util.Arrays.copyOf(pattern(100, 42), 1050);
        System.arraycopy(data, 5, expected, 50, 1000);
        System.arraycopy(data, data.length - 10, expected, 0, 10);
        assertThat(stored("small")).isEqualTo(expected);
        assertThat(c.readAll("/small")).isEqualTo(expected);

        assertThat(statusOf(() -> c.copy(src, 0, src, 10, 100)).nfs4Status()).as("overlapping ranges of one file")
                .isEqualTo(Nfs4Status.NFS4ERR_INVAL);
    }

    @Test
    void cloneSharesTheSourcesBytesWithinTheServer() throws Exception {
        start();
        Nfs41Client c = client();
        byte[] data = pattern(3 * MIB + 11, 44);
        c.writeAll("/original", data);
        FileHandle src = c.resolve("/original");
        FileHandle dst = c.create(c.root(), "clone", CreateMode.UNCHECKED, SetAttributes.NONE).handle();

        c.clone(src, 0, dst, 0, 0);
        assertThat(stored("clone")).isEqualTo(data);
        c.clone(src, MIB, dst, 0, MIB);
        byte[] expected = data.clone();
        System.arraycopy(data, MIB, expected, 0, MIB);
        assertThat(c.readAll("/clone")).isEqualTo(expected);
        assertThat(statusOf(() -> c.clone(src, data.length, dst, 0, 1)).nfs4Status()).as("from the source's end")
                .isEqualTo(Nfs4Status.NFS4ERR_INVAL);
        assertThat(statusOf(() -> c.clone(src, 5, dst, 0, MIB)).nfs4Status()).as("not on the server's blocks")
                .isEqualTo(Nfs4Status.NFS4ERR_INVAL);
        assertThat(stored("clone")).isEqualTo(expected);
    }

    @Test
    void nfsV42OperationsOnAnNfsV41SessionFailTypedBeforeTheyAreSent() throws Exception {
        start();
        Nfs41Client c = client(Nfs41Options.defaults().withMinorVersion(1));
        c.writeAll("/v41", pattern(10, 43));
        FileHandle fh = c.resolve("/v41");
        for (ThrowingCall call : List.<ThrowingCall>of(() -> c.allocate(fh, 0, 10), () -> c.deallocate(fh, 0, 10),
                () -> c.seek(fh, 0, SeekReply.Content.DATA), () -> c.copy(fh, 0, fh, 20, 5),
                () -> c.clone(fh, 0, fh, 20, 5))) {
            Nfs4StatusException e = statusOf(call);
            assertThat(e.nfs4Status()).isEqualTo(Nfs4Status.NFS4ERR_NOTSUPP);
            assertThat(e.getMessage()).contains("NFSv4.2 operation", "NFSv4.1");
        }
        assertThat(stored("v41")).isEqualTo(pattern(10, 43));
    }

    // ======================================================================================== locks

    @Test
    void byteRangeLocksKeepOtherClientsOutUntilUnlockedOrClosed() throws Exception {
        start();
        Nfs41Client a = client(Nfs41Options.defaults().withOwnerId("locker-a")
                .withOpenIdleTimeout(Duration.ofMillis(200)).withRenewInterval(Duration.ofMillis(100)));
        Nfs41Client b = client(Nfs41Options.defaults().withOwnerId("locker-b"));
        a.writeAll("/locked", pattern(1000, 30));
        FileHandle fh = a.resolve("/locked");
        long aId = a.session().clientId();

        a.lock(fh, LockType.WRITE, 0, 100);

        assertThatThrownBy(() -> b.lock(fh, LockType.READ, 50, 10)).isInstanceOfSatisfying(LockDeniedException.class,
                e -> {
                    assertThat(e.nfs4Status()).isEqualTo(Nfs4Status.NFS4ERR_DENIED);
                    assertThat(e.conflict().offset()).isZero();
                    assertThat(e.conflict().length()).isEqualTo(100);
                    assertThat(e.conflict().type()).isEqualTo(LockType.WRITE);
                    assertThat(e.conflict().ownerClientId()).isEqualTo(aId);
                    assertThat(e.getMessage()).contains("bytes 0-99");
                });
        assertThat(b.testLock(fh, LockType.WRITE, 100, Nfs41AsyncClient.TO_END)).isEmpty();
        assertThat(b.testLock(fh, LockType.READ, 99, 1)).hasValueSatisfying(l -> assertThat(l.ownerClientId())
                .isEqualTo(aId));
        assertThat(a.testLock(fh, LockType.WRITE, 0, 100)).as("the client's own lock is no conflict").isEmpty();
        // I/O under the lock
        ByteBuf w = a.allocateBuffer(10);
        w.writeBytes(pattern(10, 31));
        a.write(fh, 0, w, StableHow.FILE_SYNC);
        w.release();

        a.lock(fh, LockType.READ, 0, 100); // down to READ: readers may join
        b.lock(fh, LockType.READ, 50, 10);
        assertThatThrownBy(() -> a.lock(fh, LockType.WRITE, 0, 100)).isInstanceOf(LockDeniedException.class);
        b.unlock(fh, 0, Nfs41AsyncClient.TO_END);
        a.lock(fh, LockType.WRITE, 0, 100);

        // an open holding a lock is not closed for being idle (the idle check runs with each renewal, 100 ms)
        Thread.sleep(1000);
        assertThat(a.async().isOpen(fh)).isTrue();
        assertThat(serverState().opens().locks().lockStateCount(aId)).isOne();
        assertThatThrownBy(() -> b.lock(fh, LockType.WRITE, 0, Nfs41AsyncClient.TO_END))
                .isInstanceOf(LockDeniedException.class);

        // CLOSE lets the locks go
        a.close(fh);
        assertThat(serverState().opens().locks().lockStateCount(aId)).isZero();
        b.lock(fh, LockType.WRITE, 0, Nfs41AsyncClient.TO_END);
        assertThatThrownBy(() -> a.lock(fh, LockType.READ, 0, 1)).isInstanceOf(LockDeniedException.class);
        assertThatThrownBy(() -> a.lock(fh, LockType.READ, 5, 0)).isInstanceOfSatisfying(Nfs4StatusException.class,
                e -> assertThat(e.nfs4Status()).isEqualTo(Nfs4Status.NFS4ERR_INVAL));
        assertThat(stored("locked")).startsWith(pattern(10, 31));
    }

    @Test
    void aWaitingLockIsGrantedOnceTheLockInItsWayGoesAndGivesUpWhenItsTimeIsUp() throws Exception {
        start();
        Nfs41Client a = client(Nfs41Options.defaults().withOwnerId("holder"));
        Nfs41Client b = client(Nfs41Options.defaults().withOwnerId("waiter"));
        a.writeAll("/contended", pattern(100, 32));
        FileHandle fh = a.resolve("/contended");
        a.lock(fh, LockType.WRITE, 0, Nfs41AsyncClient.TO_END);

        assertThatThrownBy(() -> b.lock(fh, LockType.READ, 0, 1, Duration.ofMillis(150)))
                .isInstanceOf(LockDeniedException.class);
        CompletableFuture<Void> waiting = b.async().lock(fh, LockType.WRITE, 10, 10, Duration.ofSeconds(60));
        Thread.sleep(300); // the waiter asks again after 20, 40, 80, 160 ms
        assertThat(waiting).as("granted before the holder let go").isNotDone();
        a.unlock(fh, 0, Nfs41AsyncClient.TO_END);

        waiting.get(60, TimeUnit.SECONDS);
        assertThatThrownBy(() -> a.lock(fh, LockType.READ, 15, 1)).isInstanceOf(LockDeniedException.class);
    }

    @Test
    void aLockWaitingWhenItsClientClosesFailsInsteadOfWaitingForGood() throws Exception {
        start();
        Nfs41Client a = client(Nfs41Options.defaults().withOwnerId("holder-at-close"));
        Nfs41Client b = client(Nfs41Options.defaults().withOwnerId("waiter-at-close"));
        a.writeAll("/held", pattern(10, 3));
        FileHandle fh = a.resolve("/held");
        a.lock(fh, LockType.WRITE, 0, Nfs41AsyncClient.TO_END);
        CompletableFuture<Void> waiting = b.async().lock(fh, LockType.WRITE, 0, 1, Duration.ofSeconds(120));
        Thread.sleep(300); // it asked, was denied, and waits on the session's timer to ask again
        assertThat(waiting).isNotDone();
        b.close();
        assertThatThrownBy(() -> waiting.get(10, TimeUnit.SECONDS)).as("ended by the close, not left pending")
                .isInstanceOf(java.util.concurrent.ExecutionException.class);
    }

    @Test
    void moreCallsThanSlotsAllCompleteAndNoMoreThanTheSlotsRunAtOnce() throws Exception {
        start();
        Nfs41Client c = client(Nfs41Options.defaults().withSlots(2));
        assertThat(c.session().slots()).isEqualTo(2);
        FileHandle fh = c.createFile("/s");
        byte[] data = pattern(40 * 1000, 13);
        vfs.closeGate();
        List<CompletableFuture<WriteReply>> writes = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            writes.add(c.async().write(fh, i * 1000L, io.netty.buffer.Unpooled.wrappedBuffer(data, i * 1000, 1000),
                    StableHow.FILE_SYNC));
        }
        List<CompletableFuture<FileAttributes>> stats = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            stats.add(c.async().getattr(fh));
        }
        vfs.awaitWaiting(2);
        await("every slot busy", () -> c.session().slotsInUse() == 2);
        vfs.openGate();
        for (CompletableFuture<WriteReply> w : writes) {
            assertThat(w.get(60, TimeUnit.SECONDS).count()).isEqualTo(1000);
        }
        for (CompletableFuture<FileAttributes> s : stats) {
            assertThat(s.get(60, TimeUnit.SECONDS).type()).isEqualTo(FileType.REGULAR);
        }
        assertThat(vfs.maxConcurrent()).as("WRITEs the server ran at once").isLessThanOrEqualTo(2);
        assertThat(stored("s")).isEqualTo(data);
        assertThat(c.session().slotsInUse()).isZero();
    }

    @Test
    void aSessionTheServerDestroyedIsMadeAgainAndTheCallsGoOn() throws Exception {
        start();
        Nfs41Client c = client();
        FileHandle fh = c.createFile("/k");
        byte[] first = pattern(300_000, 14);
        writeChunks(c, fh, first, 100_000, StableHow.FILE_SYNC);
        long clientId = c.session().clientId();
        serverState().destroySession(c.session().sessionId());

        byte[] second = pattern(300_000, 15);
        ByteBuf b = c.allocateBuffer(second.length);
        b.writeBytes(second);
        // the open of the file belongs to the client ID, which survived: the WRITE goes on with it
        assertThat(c.write(fh, first.length, b, StableHow.FILE_SYNC).count()).isEqualTo(second.length);
        b.release();
        assertThat(c.session().sessionsCreated()).isEqualTo(2);
        assertThat(c.session().clientIdsCreated()).isEqualTo(1);
        assertThat(c.session().clientId()).isEqualTo(clientId);
        byte[] all = new byte[first.length + second.length];
        System.arraycopy(first, 0, all, 0, first.length);
        System.arraycopy(second, 0, all, first.length, second.length);
        assertThat(stored("k")).isEqualTo(all);

        // lost again while many calls are on their way: they share one recovery
        serverState().destroySession(c.session().sessionId());
        List<CompletableFuture<FileAttributes>> stats = new ArrayList<>();
        for (int i = 0; i < 24; i++) {
            stats.add(c.async().getattr(fh));
        }
        for (CompletableFuture<FileAttributes> s : stats) {
            assertThat(s.get(60, TimeUnit.SECONDS).size()).isEqualTo(all.length);
        }
        assertThat(c.session().sessionsCreated()).isEqualTo(3);
    }

    @Test
    void aConnectionCutWith16CompoundsInFlightLosesNothingAndRunsNothingTwice() throws Exception {
        startServer(state(Duration.ofSeconds(60), Duration.ZERO));
        Nfs41Client c = client();
        FileHandle fh = c.createFile("/r");
        FileHandle inner = memory.lookup(memory.root(), "r").handle();
        // each victim in a directory of its own: changes of one directory run one at a time
        FileHandle[] dirs = new FileHandle[8];
        for (int i = 0; i < 8; i++) {
            dirs[i] = c.mkdir(c.root(), "d" + i, SetAttributes.NONE).handle();
            c.writeAll("/d" + i + "/victim" + i, new byte[] {(byte) i});
        }
        byte[] data = pattern(8 * 65536, 16);
        vfs.closeGate();
        List<CompletableFuture<?>> inFlight = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            inFlight.add(c.async().write(fh, i * 65536L, io.netty.buffer.Unpooled.wrappedBuffer(data, i * 65536,
                    65536), StableHow.FILE_SYNC));
            inFlight.add(c.async().remove(dirs[i], "victim" + i));
        }
        vfs.awaitWaiting(16); // all 16 are inside the server
        cutConnections();
        vfs.openGate();
        for (CompletableFuture<?> f : inFlight) {
            f.get(60, TimeUnit.SECONDS); // a REMOVE run twice would be NFS4ERR_NOENT
        }
        for (int i = 0; i < 8; i++) {
            assertThat(vfs.writesAt(inner, i * 65536L)).as("WRITE at %d runs", i * 65536).isEqualTo(1);
            assertThat(vfs.removes.get("victim" + i)).hasValue(1);
        }
        assertThat(stored("r")).isEqualTo(data);
        for (int i = 0; i < 8; i++) {
            assertThat(c.list("/d" + i)).as("d%d", i).isEmpty();
        }
        assertThat(connectionsMade()).as("the client connected again").isGreaterThanOrEqualTo(2);
        assertThat(c.session().sessionsCreated()).isEqualTo(1);
        assertThat(c.session().slotsInUse()).isZero();
    }

    @Test
    void anIdleClientRenewsItsLease() throws Exception {
        startServer(state(Duration.ofSeconds(2), Duration.ZERO));
        Nfs41Client c = client();
        assertThat(c.session().leaseSeconds()).isEqualTo(2);
        FileHandle fh = c.createFile("/lease");
        writeChunks(c, fh, pattern(1000, 17), 1000, StableHow.FILE_SYNC);
        long renewals = c.session().leaseRenewals();
        // idle for longer than the lease: only the renewals keep the client ID
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(3500);
        while (System.nanoTime() < end) {
            Thread.sleep(50);
        }
        assertThat(serverState().expire()).as("clients the server expires now").isZero();
        assertThat(c.session().leaseRenewals()).isGreaterThan(renewals);
        assertThat(c.readAll("/lease")).isEqualTo(pattern(1000, 17));
        assertThat(c.session().sessionsCreated()).isEqualTo(1);
        assertThat(c.session().clientIdsCreated()).isEqualTo(1);
    }

    @Test
    void opensAreMadeOnFirstUseAndClosedWhenIdleOrAsked() throws Exception {
        start();
        Nfs41Client c = client(Nfs41Options.defaults().withOpenIdleTimeout(Duration.ofMillis(200)));
        c.writeAll("/p", pattern(100, 18));
        FileHandle fh = c.resolve("/p");
        c.close(fh);
        assertThat(c.async().isOpen(fh)).isFalse();
        ByteBuf b = c.allocateBuffer(100);
        c.read(fh, 0, b);
        b.release();
        assertThat(c.async().isOpen(fh)).as("opened by the READ").isTrue();
        await("closed when idle", () -> c.async().openFiles() == 0);
        // the server holds no open of the client any more: DESTROY_CLIENTID would fail with CLIENTID_BUSY else
        long id = c.session().clientId();
        c.close();
        clients.remove(c);
        assertThat(serverState().isConfirmed(id)).isFalse();
    }
}
