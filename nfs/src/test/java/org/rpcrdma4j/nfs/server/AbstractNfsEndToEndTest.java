package org.rpcrdma4j.nfs.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
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
import org.rpcrdma4j.nfs.Nfs3Status;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.nfs.NfsObject;
import org.rpcrdma4j.nfs.NfsTime;
import org.rpcrdma4j.nfs.SetAttributes;
import org.rpcrdma4j.nfs.StableHow;
import org.rpcrdma4j.nfs.client.DirListing;
import org.rpcrdma4j.nfs.client.NfsClient;
import org.rpcrdma4j.nfs.client.NfsClientConfig;
import org.rpcrdma4j.nfs.client.ReadReply;
import org.rpcrdma4j.nfs.client.WriteReply;
import org.rpcrdma4j.nfs.testing.Bytes;
import org.rpcrdma4j.nfs.vfs.Vfs;
import org.rpcrdma4j.nfs.xdr.LinkArgs;
import org.rpcrdma4j.nfs.xdr.LinkRes;
import org.rpcrdma4j.nfs.xdr.Nfs3;

/**
 * Our client against our embedded server over TCP on loopback, for one {@link Vfs} implementation
 * ({@link #newVfs}): file copies compared byte for byte, directory operations, and every error path.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(120)
public abstract class AbstractNfsEndToEndTest {
    @TempDir
    static Path temp;

    protected NfsServer server;
    protected NfsClient nfs;
    private Vfs vfs;
    private Vfs readOnlyVfs;

    /** The VFS under test, over {@code dir} when it needs a directory. */
    protected abstract Vfs newVfs(Path dir) throws IOException;

    @BeforeAll
    void start() throws IOException {
        Path exportDir = Files.createDirectories(temp.resolve("export"));
        Path roDir = Files.createDirectories(temp.resolve("ro"));
        vfs = newVfs(exportDir);
        readOnlyVfs = newVfs(roDir);
        server = NfsServer.builder().bindAddress("127.0.0.1").port(0).export("/export", vfs)
                .export("/ro", readOnlyVfs, true).workerThreads(4).build().start();
        nfs = NfsClient.mount("tcp://127.0.0.1:" + server.port() + "/export");
    }

    @AfterAll
    void stop() throws IOException {
        if (nfs != null) {
            nfs.close();
        }
        if (server != null) {
            server.close();
        }
        vfs.close();
        readOnlyVfs.close();
    }

    /** A fresh directory for one test. */
    protected String dir(TestInfo info) throws IOException {
        String name = "/" + info.getTestMethod().orElseThrow().getName() + "-" + System.nanoTime();
        nfs.mkdir(name);
        return name;
    }

    private static void assertStatus(ThrowingRunnable r, Nfs3Status status) {
        assertThatThrownBy(r::run).isInstanceOfSatisfying(NfsException.class,
                e -> assertThat(e.status()).isEqualTo(status));
    }

    interface ThrowingRunnable {
        void run() throws Exception;
    }

    // ---- data ----

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 4095, 4096, 4097, (1 << 20) + 1})
    void uploadAndDownloadKeepEveryByte(int size, TestInfo info) throws IOException {
        String d = dir(info);
        Path src = temp.resolve("src-" + size);
        Path back = temp.resolve("back-" + size);
        Bytes.writeRandomFile(src, size, size);
        assertThat(nfs.upload(src, d + "/f")).isEqualTo(size);
        assertThat(nfs.stat(d + "/f").size()).isEqualTo(size);
        assertThat(nfs.download(d + "/f", back)).isEqualTo(size);
        assertThat(Files.readAllBytes(back)).isEqualTo(Files.readAllBytes(src));
        assertThat(nfs.readAll(d + "/f")).isEqualTo(Files.readAllBytes(src));
    }

    @Test
    void sixtyFourMebibytesRoundTrip(TestInfo info) throws IOException {
        String d = dir(info);
        long size = 64L << 20;
        Path src = temp.resolve("big");
        Path back = temp.resolve("big-back");
        Bytes.writeRandomFile(src, size, 64);
        assertThat(nfs.upload(src, d + "/big")).isEqualTo(size);
        assertThat(nfs.download(d + "/big", back)).isEqualTo(size);
        assertThat(Files.size(back)).isEqualTo(size);
        assertThat(Bytes.sha256(back)).isEqualTo(Bytes.sha256(src));
        nfs.delete(d + "/big");
        Files.delete(src);
        Files.delete(back);
    }

    @Test
    void readAndWriteAtOffsetsWithTheirOwnBuffers(TestInfo info) throws IOException {
        String d = dir(info);
        FileHandle fh = nfs.createFile(d + "/f");
        byte[] a = Bytes.random(10_000, 1);
        WriteReply w = nfs.write(fh, 0, Unpooled.wrappedBuffer(a), StableHow.FILE_SYNC);
        assertThat(w.count()).isEqualTo(a.length);
        assertThat(w.committed()).isIn(StableHow.FILE_SYNC);
        // a write that leaves a hole, then a read across it
        nfs.write(fh, 20_000, Unpooled.wrappedBuffer(new byte[] {7, 8, 9}), StableHow.UNSTABLE);
        ByteBuf dst = Unpooled.buffer(25_000);
        dst.writeByte(42); // data goes after what the buffer already holds
        ReadReply r = nfs.read(fh, 9_990, dst);
        assertThat(r.count()).isEqualTo(20_003 - 9_990);
        assertThat(r.eof()).isTrue();
        assertThat(dst.readByte()).isEqualTo((byte) 42);
        byte[] got = new byte[r.count()];
        dst.readBytes(got);
        assertThat(java.util.Arrays.copyOfRange(got, 0, 10)).isEqualTo(java.util.Arrays.copyOfRange(a, 9_990, 10_000));
        assertThat(java.util.Arrays.copyOfRange(got, 10, 10_010)).containsOnly((byte) 0);
        assertThat(java.util.Arrays.copyOfRange(got, 10_010, 10_013)).containsExactly(7, 8, 9);
        // a read into a buffer with little room reads only that much
        ByteBuf small = Unpooled.buffer(5, 5);
        assertThat(nfs.read(fh, 0, small).count()).isEqualTo(5);
        assertThat(small.array()).isEqualTo(java.util.Arrays.copyOf(a, 5));
        assertThat(nfs.commit(fh, 0, 0)).isEqualTo(w.verifier());

        // beyond the server's wtmax/rtmax (1 MiB): a short write and a short read, which the client reports
        FileHandle big = nfs.createFile(d + "/big");
        byte[] data = Bytes.random((1 << 20) + 4096, 2);
        ByteBuf src = Unpooled.wrappedBuffer(data);
        assertThat(nfs.write(big, 0, src, StableHow.FILE_SYNC).count()).isEqualTo(1 << 20);
        assertThat(src.readableBytes()).isEqualTo(data.length); // borrowed, not consumed
        ByteBuf rest = src.slice(1 << 20, 4096);
        assertThat(nfs.write(big, 1 << 20, rest, StableHow.FILE_SYNC).count()).isEqualTo(4096);
        ByteBuf all = Unpooled.buffer(2 << 20);
        ReadReply first = nfs.read(big, 0, all);
        assertThat(first.count()).isEqualTo(1 << 20);
        assertThat(first.eof()).isFalse();
        ReadReply second = nfs.read(big, 1 << 20, all);
        assertThat(second.count()).isEqualTo(4096);
        assertThat(second.eof()).isTrue();
        byte[] whole = new byte[all.readableBytes()];
        all.readBytes(whole);
        assertThat(whole).isEqualTo(data);
    }

    // ---- directories ----

    @Test
    void directoryOperations(TestInfo info) throws IOException {
        String d = dir(info);
        nfs.mkdir(d + "/sub");
        nfs.createFile(d + "/a");
        nfs.createFile(d + "/sub/b");
        FileHandle link = nfs.symlink(nfs.resolve(d), "l", "sub/b").handle();
        assertThat(nfs.readlink(link)).isEqualTo("sub/b");
        assertThat(nfs.getattr(link).type()).isEqualTo(FileType.SYMLINK);

        List<DirEntry> entries = nfs.list(d);
        assertThat(entries).extracting(DirEntry::name).containsExactlyInAnyOrder("a", "l", "sub");
        assertThat(entries).allSatisfy(e -> {
            assertThat(e.attributes()).isNotNull();
            assertThat(e.handle()).isNotNull();
        });
        DirEntry sub = entries.stream().filter(e -> e.name().equals("sub")).findFirst().orElseThrow();
        assertThat(sub.attributes().type()).isEqualTo(FileType.DIRECTORY);
        assertThat(nfs.getattr(sub.handle()).fileid()).isEqualTo(sub.fileid());

        nfs.rename(d + "/a", d + "/sub/a2");
        nfs.rename(d + "/sub", d + "/moved");
        assertThat(nfs.list(d + "/moved")).extracting(DirEntry::name).containsExactlyInAnyOrder("a2", "b");
        assertStatus(() -> nfs.stat(d + "/a"), Nfs3Status.NFS3ERR_NOENT);
        // the moved directory's handle still works
        assertThat(nfs.getattr(sub.handle()).isDirectory()).isTrue();

        nfs.delete(d + "/moved/a2");
        nfs.delete(d + "/moved/b");
        nfs.delete(d + "/moved");
        nfs.delete(d + "/l");
        assertThat(nfs.list(d)).isEmpty();
    }

    @Test
    void largeDirectoriesArePagedWithCookies(TestInfo info) throws IOException {
        String d = dir(info);
        FileHandle dh = nfs.resolve(d);
        Set<String> expected = new TreeSet<>();
        for (int i = 0; i < 150; i++) {
            String name = "file-with-a-rather-long-name-" + i;
            nfs.create(dh, name, CreateMode.GUARDED, SetAttributes.NONE);
            expected.add(name);
        }
        for (boolean plus : new boolean[] {false, true}) {
            Set<String> seen = new TreeSet<>();
            long cookie = 0;
            long verifier = 0;
            int pages = 0;
            while (true) {
                DirListing page = plus ? nfs.readdirplus(dh, cookie, verifier, 1024, 2048)
                        : nfs.readdir(dh, cookie, verifier, 1024);
                pages++;
                for (DirEntry e : page.entries()) {
                    assertThat(seen.add(e.name())).as("entry %s listed twice", e.name()).isTrue();
                }
                if (page.eof()) {
                    break;
                }
                cookie = page.entries().get(page.entries().size() - 1).cookie();
                verifier = page.cookieVerifier();
            }
            seen.remove(".");
            seen.remove("..");
            assertThat(seen).isEqualTo(expected);
            assertThat(pages).isGreaterThan(3);
        }
        assertThat(nfs.list(d)).hasSize(150);
    }

    @Test
    void attributesCanBeSetAndGuarded(TestInfo info) throws IOException {
        String d = dir(info);
        FileHandle fh = nfs.createFile(d + "/f");
        FileAttributes a = nfs.setattr(fh, SetAttributes.NONE.withMode(0600).withSize(12345)
                .withMtime(SetAttributes.TimeSetting.client(new NfsTime(1_000_000_000L, 5))));
        assertThat(a.mode()).isEqualTo(0600);
        assertThat(a.size()).isEqualTo(12345);
        assertThat(a.mtime().seconds()).isEqualTo(1_000_000_000L);
        assertThat(nfs.readAll(d + "/f")).hasSize(12345).containsOnly((byte) 0);
        assertStatus(() -> nfs.setattr(fh, SetAttributes.NONE.withMode(0644), new NfsTime(1, 1)),
                Nfs3Status.NFS3ERR_NOT_SYNC);
        FileAttributes now = nfs.getattr(fh);
        assertThat(nfs.setattr(fh, SetAttributes.NONE.withMode(0644), now.ctime()).mode()).isEqualTo(0644);
        assertThat(nfs.access(fh, Access.ALL)).isEqualTo(Access.READ | Access.MODIFY | Access.EXTEND);
        assertThat(nfs.access(nfs.resolve(d), Access.ALL))
                .isEqualTo(Access.READ | Access.LOOKUP | Access.MODIFY | Access.EXTEND | Access.DELETE);
    }

    @Test
    void fileSystemInformation() throws IOException {
        FsInfo info = nfs.fsinfo(nfs.root());
        assertThat(info.rtmax()).isEqualTo(1 << 20);
        assertThat(info.wtmax()).isEqualTo(1 << 20);
        assertThat(info.properties() & FsInfo.FSF3_SYMLINK).isNotZero();
        assertThat(info.properties() & FsInfo.FSF3_LINK).isNotZero();
        assertThat(nfs.fsstat(nfs.root()).totalBytes()).isPositive();
        assertThat(nfs.pathconf(nfs.root()).nameMax()).isEqualTo(255);
        assertThat(nfs.pathconf(nfs.root()).linkMax()).isEqualTo(vfs.linkMax()).isGreaterThan(1);
        nfs.ping();
    }

    /**
     * An UNCHECKED CREATE of a name that holds a file sets only its size, as Linux's server does: the mode, owner and
     * times it carries are for a file it makes.
     */
    @Test
    void uncheckedCreateOfAnExistingFileSetsOnlyItsSize(TestInfo info) throws IOException {
        String d = dir(info);
        FileHandle dh = nfs.resolve(d);
        NfsObject made = nfs.create(dh, "f", CreateMode.UNCHECKED, SetAttributes.NONE.withMode(0640));
        nfs.write(made.handle(), 0, Unpooled.wrappedBuffer(new byte[100]), StableHow.FILE_SYNC);
        NfsTime mtime = new NfsTime(1_000_000_000L, 0);
        NfsObject again = nfs.create(dh, "f", CreateMode.UNCHECKED, SetAttributes.NONE.withMode(0606).withSize(10)
                .withMtime(SetAttributes.TimeSetting.client(mtime)));
        assertThat(again.handle()).isEqualTo(made.handle());
        FileAttributes a = nfs.getattr(made.handle());
        assertThat(a.size()).isEqualTo(10);
        assertThat(a.mode()).isEqualTo(0640);
        assertThat(a.mtime()).isNotEqualTo(mtime);
        nfs.create(dh, "f", CreateMode.UNCHECKED, SetAttributes.NONE.withMode(0600));
        assertThat(nfs.getattr(made.handle())).satisfies(b -> {
            assertThat(b.size()).isEqualTo(10);
            assertThat(b.mode()).isEqualTo(0640);
        });
    }

    // ---- hard links ----

    /** LINK makes a second name of one file: the same bytes through either, whichever is written, and either kept. */
    @Test
    void hardLinksNameOneFile(TestInfo info) throws Exception {
        String d = dir(info);
        FileHandle dh = nfs.resolve(d);
        nfs.mkdir(d + "/sub");
        FileHandle sub = nfs.resolve(d + "/sub");
        Path src = temp.resolve("link-src");
        Bytes.writeRandomFile(src, (1 << 20) + 1, 11);
        nfs.upload(src, d + "/a");
        FileHandle a = nfs.resolve(d + "/a");
        FileAttributes dirBefore = nfs.getattr(sub);

        LinkRes res = nfs.transport().call(Nfs3.PROGRAM, Nfs3.VERSION, Nfs3.LINK, new LinkArgs(a, sub, "b"),
                new LinkRes()).get();
        assertThat(res.status).isEqualTo(Nfs3Status.NFS3_OK.wireValue());
        assertThat(res.attributes.nlink()).as("the file's attributes after").isEqualTo(2);
        assertThat(res.attributes.fileid()).isEqualTo(nfs.getattr(a).fileid());
        assertThat(res.linkDirWcc.after()).as("the directory's attributes after").isNotNull();
        assertThat(res.linkDirWcc.after().fileid()).isEqualTo(dirBefore.fileid());

        assertThat(nfs.resolve(d + "/sub/b")).isEqualTo(a);
        byte[] expected = Files.readAllBytes(src);
        assertThat(nfs.readAll(d + "/sub/b")).isEqualTo(expected).isEqualTo(nfs.readAll(d + "/a"));
        assertThat(nfs.stat(d + "/sub/b").nlink()).isEqualTo(2);

        byte[] patch = "written through b".getBytes(StandardCharsets.UTF_8);
        nfs.write(nfs.resolve(d + "/sub/b"), 4096, Unpooled.wrappedBuffer(patch), StableHow.FILE_SYNC);
        System.arraycopy(patch, 0, expected, 4096, patch.length);
        assertThat(nfs.readAll(d + "/a")).isEqualTo(expected);

        nfs.delete(d + "/a");
        assertThat(nfs.readAll(d + "/sub/b")).isEqualTo(expected);
        assertThat(nfs.getattr(a).nlink()).as("the handle lives on").isEqualTo(1);
        assertThat(nfs.list(d)).extracting(DirEntry::name).containsExactly("sub");
        assertStatus(() -> nfs.link(a, dh, "sub"), Nfs3Status.NFS3ERR_EXIST);
    }

    /** A LINK between exports is NFS3ERR_XDEV, into a read-only export NFS3ERR_ROFS. */
    @Test
    void linksStayWithinAWritableExport(TestInfo info) throws Exception {
        String d = dir(info);
        FileHandle dh = nfs.resolve(d);
        FileHandle mine = nfs.createFile(d + "/mine");
        readOnlyVfs.create(readOnlyVfs.root(), "theirs-" + System.nanoTime(), CreateMode.GUARDED, SetAttributes.NONE,
                0);
        try (NfsClient ro = NfsClient.mount("tcp://127.0.0.1:" + server.port() + "/ro")) {
            DirEntry theirs = ro.list("/").stream().filter(e -> e.name().startsWith("theirs-")).findFirst()
                    .orElseThrow();
            FileHandle other = ro.resolve("/" + theirs.name());
            assertStatus(() -> nfs.link(other, dh, "x"), Nfs3Status.NFS3ERR_XDEV);
            assertStatus(() -> ro.link(mine, ro.root(), "x"), Nfs3Status.NFS3ERR_ROFS);
            assertStatus(() -> ro.link(other, ro.root(), "x"), Nfs3Status.NFS3ERR_ROFS);
        }
        assertThat(nfs.list(d)).extracting(DirEntry::name).containsExactly("mine");
    }

    @Test
    void exclusiveCreateIsIdempotentForItsVerifier(TestInfo info) throws IOException {
        FileHandle dh = nfs.resolve(dir(info));
        NfsObject first = nfs.createExclusive(dh, "x", 0x1234_5678_9abc_def0L);
        NfsObject again = nfs.createExclusive(dh, "x", 0x1234_5678_9abc_def0L);
        assertThat(again.handle()).isEqualTo(first.handle());
        assertStatus(() -> nfs.createExclusive(dh, "x", 99), Nfs3Status.NFS3ERR_EXIST);
    }

    // ---- errors ----

    @Test
    void errorStatuses(TestInfo info) throws IOException {
        String d = dir(info);
        FileHandle dh = nfs.resolve(d);
        FileHandle file = nfs.createFile(d + "/file");
        nfs.mkdir(d + "/full");
        nfs.createFile(d + "/full/x");

        assertStatus(() -> nfs.lookup(dh, "missing"), Nfs3Status.NFS3ERR_NOENT);
        assertStatus(() -> nfs.remove(dh, "missing"), Nfs3Status.NFS3ERR_NOENT);
        assertStatus(() -> nfs.mkdir(dh, "file", SetAttributes.NONE), Nfs3Status.NFS3ERR_EXIST);
        assertStatus(() -> nfs.create(dh, "file", CreateMode.GUARDED, SetAttributes.NONE), Nfs3Status.NFS3ERR_EXIST);
        assertStatus(() -> nfs.rmdir(dh, "full"), Nfs3Status.NFS3ERR_NOTEMPTY);
        assertStatus(() -> nfs.remove(dh, "full"), Nfs3Status.NFS3ERR_ISDIR);
        assertStatus(() -> nfs.read(dh, 0, Unpooled.buffer(10)), Nfs3Status.NFS3ERR_ISDIR);
        assertStatus(() -> nfs.lookup(file, "x"), Nfs3Status.NFS3ERR_NOTDIR);
        assertStatus(() -> nfs.rmdir(dh, "file"), Nfs3Status.NFS3ERR_NOTDIR);
        assertStatus(() -> nfs.readlink(file), Nfs3Status.NFS3ERR_INVAL);
        assertStatus(() -> nfs.rename(dh, "full", nfs.resolve(d + "/full"), "inside"), Nfs3Status.NFS3ERR_INVAL);
        assertStatus(() -> nfs.mknod(dh, "file", FileType.FIFO, 0, 0), Nfs3Status.NFS3ERR_EXIST);
        assertStatus(() -> nfs.mknod(dh, "reg", FileType.REGULAR, 0, 0), Nfs3Status.NFS3ERR_BADTYPE);
        assertStatus(() -> nfs.mknod(dh, "dir", FileType.DIRECTORY, 0, 0), Nfs3Status.NFS3ERR_BADTYPE);
        assertStatus(() -> nfs.link(file, file, "hard"), Nfs3Status.NFS3ERR_NOTDIR);
        assertStatus(() -> nfs.link(dh, dh, "hard"), Nfs3Status.NFS3ERR_ISDIR);
        assertStatus(() -> nfs.link(file, dh, "full"), Nfs3Status.NFS3ERR_EXIST);

        String longName = "n".repeat(256);
        assertStatus(() -> nfs.lookup(dh, longName), Nfs3Status.NFS3ERR_NAMETOOLONG);
        assertStatus(() -> nfs.mkdir(dh, longName, SetAttributes.NONE), Nfs3Status.NFS3ERR_NAMETOOLONG);
        assertStatus(() -> nfs.create(dh, longName, CreateMode.UNCHECKED, SetAttributes.NONE),
                Nfs3Status.NFS3ERR_NAMETOOLONG);
        assertStatus(() -> nfs.symlink(dh, "l", "x".repeat(1025)), Nfs3Status.NFS3ERR_NAMETOOLONG);
        nfs.mkdir(dh, "n".repeat(255), SetAttributes.NONE); // 255 is fine

        assertStatus(() -> nfs.readdir(dh, 0, 0, 40), Nfs3Status.NFS3ERR_TOOSMALL);
    }

    /**
     * MKNOD makes FIFOs, sockets and devices (devices for root only, as mknod(2)); their mode and times change, and
     * READ, WRITE and COMMIT are refused, without the server opening them (a FIFO's open blocks until a writer comes).
     */
    @Test
    void specialFilesAreMadeAndChangedWithoutBeingOpened(TestInfo info) throws Exception {
        String d = dir(info);
        FileHandle dh = nfs.resolve(d);
        NfsObject fifo = nfs.async().mknod(dh, "fifo", FileType.FIFO, SetAttributes.NONE.withMode(0640), 0, 0).get();
        assertThat(fifo.attributes().type()).isEqualTo(FileType.FIFO);
        assertThat(fifo.attributes().mode()).isEqualTo(0640);
        NfsTime then = new NfsTime(1_000_000_000L, 123_000_000);
        FileAttributes changed = nfs.setattr(fifo.handle(), SetAttributes.NONE.withMode(0600)
                .withMtime(SetAttributes.TimeSetting.client(then)).withAtime(SetAttributes.TimeSetting.client(then)));
        assertThat(changed.type()).isEqualTo(FileType.FIFO);
        assertThat(changed.mode()).isEqualTo(0600);
        assertThat(changed.mtime()).isEqualTo(then);
        assertThat(changed.atime()).isEqualTo(then);
        assertThat(nfs.lookup(dh, "fifo").attributes().type()).isEqualTo(FileType.FIFO);
        assertStatus(() -> nfs.read(fifo.handle(), 0, Unpooled.buffer(10)), Nfs3Status.NFS3ERR_INVAL);
        assertStatus(() -> nfs.write(fifo.handle(), 0, Unpooled.wrappedBuffer(new byte[4]), StableHow.FILE_SYNC),
                Nfs3Status.NFS3ERR_INVAL);
        assertStatus(() -> nfs.commit(fifo.handle(), 0, 0), Nfs3Status.NFS3ERR_INVAL);

        NfsObject socket = nfs.mknod(dh, "socket", FileType.SOCKET, 0, 0);
        assertThat(socket.attributes().type()).isEqualTo(FileType.SOCKET);
        assertThat(nfs.setattr(socket.handle(), SetAttributes.NONE.withMode(0700)).mode()).isEqualTo(0700);

        if (makesDevices()) {
            FileAttributes chr = nfs.mknod(dh, "null", FileType.CHAR_DEVICE, 1, 3).attributes();
            assertThat(chr.type()).isEqualTo(FileType.CHAR_DEVICE);
            assertThat(List.of(chr.rdevMajor(), chr.rdevMinor())).containsExactly(1, 3);
            FileAttributes blk = nfs.mknod(dh, "loop", FileType.BLOCK_DEVICE, 7, 200).attributes();
            assertThat(blk.type()).isEqualTo(FileType.BLOCK_DEVICE);
            assertThat(List.of(blk.rdevMajor(), blk.rdevMinor())).containsExactly(7, 200);
            NfsObject dev = nfs.lookup(dh, "loop");
            assertThat(nfs.setattr(dev.handle(), SetAttributes.NONE.withMtime(SetAttributes.TimeSetting.client(then)))
                    .mtime()).isEqualTo(then);
        } else {
            assertStatus(() -> nfs.mknod(dh, "null", FileType.CHAR_DEVICE, 1, 3), Nfs3Status.NFS3ERR_PERM);
        }
        Set<String> listed = nfs.list(dh).stream().map(DirEntry::name).collect(Collectors.toCollection(TreeSet::new));
        assertThat(listed).containsAll(List.of("fifo", "socket"));

        // a caller that is not root makes FIFOs where it may write, and no devices
        nfs.setattr(dh, SetAttributes.NONE.withMode(0777));
        try (NfsClient user = NfsClient.mount("tcp://127.0.0.1:" + server.port() + "/export",
                NfsClientConfig.defaults().withIdentity(1000, 1000))) {
            assertThat(user.mknod(dh, "users-fifo", FileType.FIFO, 0, 0).attributes().type())
                    .isEqualTo(FileType.FIFO);
            assertThatThrownBy(() -> user.mknod(dh, "users-null", FileType.CHAR_DEVICE, 1, 3))
                    .isInstanceOfSatisfying(NfsException.class,
                            e -> assertThat(e.status()).isEqualTo(Nfs3Status.NFS3ERR_PERM));
        }
        for (String name : listed) {
            nfs.remove(dh, name);
        }
        nfs.remove(dh, "users-fifo");
        assertThat(nfs.list(dh)).isEmpty();
    }

    /** Whether the VFS under test makes devices for root (a local file system: only when this JVM runs as root). */
    protected boolean makesDevices() {
        return true;
    }

    @Test
    void staleAndBadHandles(TestInfo info) throws IOException {
        String d = dir(info);
        FileHandle file = nfs.createFile(d + "/gone");
        nfs.delete(d + "/gone");
        assertStatus(() -> nfs.getattr(file), Nfs3Status.NFS3ERR_STALE);
        assertStatus(() -> nfs.read(file, 0, Unpooled.buffer(1)), Nfs3Status.NFS3ERR_STALE);

        assertStatus(() -> nfs.getattr(FileHandle.wrap(new byte[] {1, 2, 3})), Nfs3Status.NFS3ERR_BADHANDLE);
        // a damaged handle never names an object: malformed, or for no object the server knows
        for (int i = 4; i < nfs.root().length(); i++) {
            byte[] corrupt = nfs.root().toByteArray();
            corrupt[i] ^= 0x55;
            assertThatThrownBy(() -> nfs.getattr(FileHandle.wrap(corrupt))).as("byte %d damaged", i)
                    .isInstanceOfSatisfying(NfsException.class, e -> assertThat(e.status())
                            .isIn(Nfs3Status.NFS3ERR_BADHANDLE, Nfs3Status.NFS3ERR_STALE));
        }
        byte[] otherExport = nfs.root().toByteArray();
        otherExport[0] ^= 0x55;
        assertStatus(() -> nfs.getattr(FileHandle.wrap(otherExport)), Nfs3Status.NFS3ERR_STALE);
    }

    @Test
    void namesCannotEscapeTheExport(TestInfo info) throws IOException {
        FileHandle root = nfs.root();
        assertThat(nfs.lookup(root, "..").handle()).isEqualTo(root);
        assertThat(nfs.lookup(root, ".").handle()).isEqualTo(root);
        String d = dir(info);
        FileHandle dh = nfs.resolve(d);
        assertThat(nfs.lookup(dh, "..").handle()).isEqualTo(root);
        for (String bad : new String[] {"../x", "a/b", "/etc", "..//.."}) {
            assertStatus(() -> nfs.lookup(dh, bad), Nfs3Status.NFS3ERR_INVAL);
            assertStatus(() -> nfs.create(dh, bad, CreateMode.UNCHECKED, SetAttributes.NONE),
                    Nfs3Status.NFS3ERR_INVAL);
        }
        assertStatus(() -> nfs.mkdir(dh, "..", SetAttributes.NONE), Nfs3Status.NFS3ERR_EXIST);
        assertStatus(() -> nfs.remove(dh, ".."), Nfs3Status.NFS3ERR_INVAL);
        assertStatus(() -> nfs.rmdir(root, ".."), Nfs3Status.NFS3ERR_INVAL);
        nfs.createFile(d + "/f");
        assertStatus(() -> nfs.rename(dh, "f", root, ".."), Nfs3Status.NFS3ERR_EXIST);
        assertStatus(() -> nfs.rename(dh, "..", dh, "x"), Nfs3Status.NFS3ERR_INVAL);

        // a symbolic link pointing out is stored, never followed
        FileHandle out = nfs.symlink(dh, "out", "/etc").handle();
        FileHandle up = nfs.symlink(dh, "up", "../../../../..").handle();
        assertThat(nfs.readlink(out)).isEqualTo("/etc");
        assertStatus(() -> nfs.lookup(out, "passwd"), Nfs3Status.NFS3ERR_NOTDIR);
        assertStatus(() -> nfs.lookup(up, "etc"), Nfs3Status.NFS3ERR_NOTDIR);
        assertStatus(() -> nfs.read(out, 0, Unpooled.buffer(10)), Nfs3Status.NFS3ERR_INVAL);
        assertStatus(() -> nfs.write(out, 0, Unpooled.wrappedBuffer(new byte[1]), StableHow.FILE_SYNC),
                Nfs3Status.NFS3ERR_INVAL);
        assertStatus(() -> nfs.create(out, "x", CreateMode.UNCHECKED, SetAttributes.NONE), Nfs3Status.NFS3ERR_NOTDIR);
        // ".." from the root's listing is the root itself
        DirListing listing = nfs.readdirplus(root, 0, 0, 8192, 8192);
        DirEntry dotdot = listing.entries().stream().filter(e -> e.name().equals("..")).findFirst().orElseThrow();
        assertThat(dotdot.handle()).isEqualTo(root);
    }

    @Test
    void readOnlyExportsRefuseChanges() throws IOException {
        try (NfsClient ro = NfsClient.mount("tcp://127.0.0.1:" + server.port() + "/ro")) {
            assertThat(ro.list("/")).isEmpty();
            assertStatus(() -> ro.mkdir("/x"), Nfs3Status.NFS3ERR_ROFS);
            assertStatus(() -> ro.createFile("/x"), Nfs3Status.NFS3ERR_ROFS);
            assertThat(ro.access(ro.root(), Access.ALL)).isEqualTo(Access.READ | Access.LOOKUP);
        }
    }

    /**
     * Cookies never move, so a listing resumed with the cookie and verifier of a page from before a change goes on
     * (as with Linux's server): every entry that stayed is listed once, READDIR and READDIRPLUS alike.
     */
    @Test
    void aListingResumesWithOldCookiesAfterTheDirectoryChanged(TestInfo info) throws IOException {
        String d = dir(info);
        FileHandle dh = nfs.resolve(d);
        for (int i = 0; i < 40; i++) {
            nfs.createFile(d + "/entry-" + i);
        }
        for (boolean plus : new boolean[] {false, true}) {
            DirListing first = plus ? nfs.readdirplus(dh, 0, 0, 512, 1024) : nfs.readdir(dh, 0, 0, 512);
            assertThat(first.eof()).isFalse();
            List<String> seen = new ArrayList<>();
            first.entries().forEach(e -> seen.add(e.name()));
            nfs.createFile(d + "/newcomer-" + plus);
            nfs.delete(d + "/newcomer-" + plus);
            nfs.createFile(d + "/newcomer-" + plus);
            long cookie = first.entries().get(first.entries().size() - 1).cookie();
            long verifier = first.cookieVerifier();
            while (true) {
                DirListing page = plus ? nfs.readdirplus(dh, cookie, verifier, 512, 1024)
                        : nfs.readdir(dh, cookie, verifier, 512);
                page.entries().forEach(e -> seen.add(e.name()));
                if (page.eof()) {
                    break;
                }
                cookie = page.entries().get(page.entries().size() - 1).cookie();
                verifier = page.cookieVerifier();
            }
            assertThat(seen).doesNotHaveDuplicates();
            for (int i = 0; i < 40; i++) {
                assertThat(seen).contains("entry-" + i);
            }
        }
        assertThat(nfs.list(d)).extracting(DirEntry::name).contains("newcomer-false", "newcomer-true").hasSize(42);
    }

    @Test
    void concurrentClientsSeeEachOthersWrites(TestInfo info) throws Exception {
        String d = dir(info);
        List<Thread> threads = new ArrayList<>();
        List<Throwable> errors = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int t = 0; t < 4; t++) {
            int id = t;
            threads.add(new Thread(() -> {
                try {
                    for (int i = 0; i < 10; i++) {
                        String p = d + "/t" + id + "-" + i;
                        FileHandle fh = nfs.createFile(p);
                        byte[] data = (p + " contents").getBytes(StandardCharsets.UTF_8);
                        nfs.write(fh, 0, Unpooled.wrappedBuffer(data), StableHow.FILE_SYNC);
                        assertThat(nfs.readAll(p)).isEqualTo(data);
                    }
                } catch (Throwable e) {
                    errors.add(e);
                }
            }));
        }
        threads.forEach(Thread::start);
        for (Thread t : threads) {
            t.join();
        }
        assertThat(errors).isEmpty();
        assertThat(nfs.list(d).stream().map(DirEntry::name).collect(Collectors.toSet())).hasSize(40);
    }

    @Test
    void aSmallWindowAndChunkStillCopiesCorrectly(TestInfo info) throws IOException {
        String d = dir(info);
        try (NfsClient small = NfsClient.mount("tcp://127.0.0.1:" + server.port() + "/export",
                NfsClientConfig.defaults().withWindow(1).withChunkSize(4096))) {
            Path src = temp.resolve("small-window");
            Bytes.writeRandomFile(src, 50_000, 5);
            small.upload(src, d + "/f");
            Path back = temp.resolve("small-window-back");
            small.download(d + "/f", back);
            assertThat(Files.readAllBytes(back)).isEqualTo(Files.readAllBytes(src));
        }
    }
}
