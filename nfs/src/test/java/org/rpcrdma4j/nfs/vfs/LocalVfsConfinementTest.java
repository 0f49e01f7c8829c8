package org.rpcrdma4j.nfs.vfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rpcrdma4j.nfs.CreateMode;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.FileType;
import org.rpcrdma4j.nfs.Nfs3Status;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.nfs.SetAttributes;
import org.rpcrdma4j.nfs.StableHow;

/**
 * Escape attempts against {@link LocalVfs} that need the server's own file system: symbolic links planted next to
 * the export, directories swapped for links after their handles were issued, handles of files outside the export.
 */
class LocalVfsConfinementTest {
    @TempDir
    Path temp;

    private Path export;
    private Path outside;
    private LocalVfs vfs;
    private static final byte[] KEY = "a secret handle key of 32 bytes!".getBytes(StandardCharsets.US_ASCII);

    @BeforeEach
    void setUp() throws Exception {
        export = Files.createDirectories(temp.resolve("export"));
        outside = Files.createDirectories(temp.resolve("outside"));
        Files.writeString(outside.resolve("secret"), "outside the export");
        vfs = LocalVfs.open(export, KEY);
    }

    static void assertStatus(ThrowingRunnable r, Nfs3Status... statuses) {
        assertThatThrownBy(r::run).isInstanceOfSatisfying(NfsException.class,
                e -> assertThat(e.status()).isIn((Object[]) statuses));
    }

    interface ThrowingRunnable {
        void run() throws Exception;
    }

    @Test
    void aPlantedSymbolicLinkIsNeverFollowed() throws Exception {
        Files.createSymbolicLink(export.resolve("link"), outside);
        FileHandle link = vfs.lookup(vfs.root(), "link").handle();
        assertThat(vfs.getattr(link).type()).isEqualTo(FileType.SYMLINK);
        assertStatus(() -> vfs.lookup(link, "secret"), Nfs3Status.NFS3ERR_NOTDIR);
        assertStatus(() -> vfs.readdir(link, 0, 0, 10), Nfs3Status.NFS3ERR_NOTDIR);
        assertStatus(() -> vfs.create(link, "new", CreateMode.UNCHECKED, SetAttributes.NONE, 0),
                Nfs3Status.NFS3ERR_NOTDIR);
        assertStatus(() -> vfs.read(link, 0, ByteBuffer.allocate(100)), Nfs3Status.NFS3ERR_INVAL);
        Files.createSymbolicLink(export.resolve("filelink"), outside.resolve("secret"));
        FileHandle fileLink = vfs.lookup(vfs.root(), "filelink").handle();
        assertStatus(() -> vfs.read(fileLink, 0, ByteBuffer.allocate(100)), Nfs3Status.NFS3ERR_INVAL);
        assertStatus(() -> vfs.write(fileLink, 0, ByteBuffer.wrap(new byte[] {1}), StableHow.FILE_SYNC),
                Nfs3Status.NFS3ERR_INVAL);
        assertStatus(() -> vfs.setattr(fileLink, SetAttributes.NONE.withSize(0), null), Nfs3Status.NFS3ERR_INVAL);
        assertThat(Files.readString(outside.resolve("secret"))).isEqualTo("outside the export");
    }

    @Test
    void aDirectorySwappedForALinkIsStale() throws Exception {
        FileHandle d = vfs.mkdir(vfs.root(), "d", SetAttributes.NONE).handle();
        FileHandle f = vfs.create(d, "f", CreateMode.GUARDED, SetAttributes.NONE, 0).handle();
        // behind the server's back: d moves out, and a link to where it went takes its place
        Files.move(export.resolve("d"), outside.resolve("d"));
        Files.createSymbolicLink(export.resolve("d"), outside.resolve("d"));
        assertStatus(() -> vfs.getattr(d), Nfs3Status.NFS3ERR_STALE);
        assertStatus(() -> vfs.create(d, "g", CreateMode.UNCHECKED, SetAttributes.NONE, 0), Nfs3Status.NFS3ERR_STALE);
        assertStatus(() -> vfs.read(f, 0, ByteBuffer.allocate(10)), Nfs3Status.NFS3ERR_STALE);
        assertStatus(() -> vfs.write(f, 0, ByteBuffer.wrap(new byte[] {1}), StableHow.FILE_SYNC),
                Nfs3Status.NFS3ERR_STALE);
        assertThat(Files.size(outside.resolve("d/f"))).isZero();
        assertThat(Files.exists(outside.resolve("d/g"))).isFalse();
    }

    @Test
    void anIntermediateDirectorySwappedForALinkIsStale() throws Exception {
        FileHandle a = vfs.mkdir(vfs.root(), "a", SetAttributes.NONE).handle();
        FileHandle b = vfs.mkdir(a, "b", SetAttributes.NONE).handle();
        FileHandle f = vfs.create(b, "f", CreateMode.GUARDED, SetAttributes.NONE, 0).handle();
        Files.move(export.resolve("a"), outside.resolve("a"));
        Files.createSymbolicLink(export.resolve("a"), outside.resolve("a"));
        assertStatus(() -> vfs.getattr(b), Nfs3Status.NFS3ERR_STALE);
        assertStatus(() -> vfs.write(f, 0, ByteBuffer.wrap(new byte[] {1}), StableHow.FILE_SYNC),
                Nfs3Status.NFS3ERR_STALE);
        assertStatus(() -> vfs.lookup(b, "f"), Nfs3Status.NFS3ERR_STALE);
        assertThat(Files.size(outside.resolve("a/b/f"))).isZero();
    }

    /**
     * What a client could try with its own calls: between the server's check of a file's path and its use, move the
     * file's directory away and put a symbolic link to somewhere else in its place. The client's RENAME and SYMLINK
     * run at that moment (on another thread, given 300 ms to finish) and must wait until the use is over.
     */
    @Test
    void aClientCannotSwapADirectoryForALinkBetweenTheCheckOfAPathAndItsUse() throws Exception {
        Files.writeString(outside.resolve("f"), "outside the export");
        FileHandle d = vfs.mkdir(vfs.root(), "d", SetAttributes.NONE).handle();
        FileHandle f = vfs.create(d, "f", CreateMode.GUARDED, SetAttributes.NONE, 0).handle();
        java.util.concurrent.atomic.AtomicReference<Throwable> swapFailed = new java.util.concurrent.atomic.AtomicReference<>();
        java.util.concurrent.atomic.AtomicReference<Thread> swapper = new java.util.concurrent.atomic.AtomicReference<>();
        boolean[] swappedDuringUse = new boolean[1];
        vfs.afterCheck = () -> {
            Thread t = new Thread(() -> {
                try {
                    vfs.rename(vfs.root(), "d", vfs.root(), "moved");
                    vfs.symlink(vfs.root(), "d", outside.toString(), SetAttributes.NONE);
                } catch (Throwable e) {
                    swapFailed.set(e);
                }
            });
            swapper.set(t);
            t.start();
            try {
                t.join(300);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            swappedDuringUse[0] = !t.isAlive();
        };
        vfs.write(f, 0, ByteBuffer.wrap("in the export".getBytes(StandardCharsets.US_ASCII)), StableHow.FILE_SYNC);
        swapper.get().join(10_000);
        assertThat(swapFailed.get()).isNull();
        assertThat(Files.readString(outside.resolve("f"))).isEqualTo("outside the export");
        assertThat(Files.readString(export.resolve("moved/f"))).isEqualTo("in the export");
        assertThat(swappedDuringUse[0]).as("the swap waited for the write").isFalse();
        // the swap happened after: the handle still names the file where it went
        assertThat(Files.isSymbolicLink(export.resolve("d"))).isTrue();
        assertThat(vfs.getattr(f).size()).isEqualTo("in the export".length());
    }

    @Test
    void aFileRemovedByOneOfItsNamesKeepsItsHandleAndByItsLastIsStale() throws Exception {
        FileHandle f = vfs.create(vfs.root(), "f", CreateMode.GUARDED, SetAttributes.NONE, 0).handle();
        Files.createLink(export.resolve("g"), export.resolve("f")); // a second name, made on the server
        vfs.remove(vfs.root(), "f");
        assertThat(vfs.getattr(f).nlink()).isEqualTo(1);
        vfs.write(f, 0, ByteBuffer.wrap(new byte[] {1, 2}), StableHow.FILE_SYNC);
        assertThat(Files.readAllBytes(export.resolve("g"))).containsExactly(1, 2);
        vfs.remove(vfs.root(), "g");
        assertStatus(() -> vfs.getattr(f), Nfs3Status.NFS3ERR_STALE);
    }

    @Test
    void handlesOfFilesOutsideTheExportAreRefused() throws Exception {
        // the same key: the integrity check passes, but the file is not in the exported tree
        LocalVfs wider = LocalVfs.open(temp, KEY);
        FileHandle out = wider.lookup(wider.lookup(wider.root(), "outside").handle(), "secret").handle();
        assertStatus(() -> vfs.getattr(out), Nfs3Status.NFS3ERR_STALE);
        assertStatus(() -> vfs.read(out, 0, ByteBuffer.allocate(100)), Nfs3Status.NFS3ERR_STALE);
        FileHandle widerRoot = wider.root();
        assertStatus(() -> vfs.lookup(widerRoot, "outside"), Nfs3Status.NFS3ERR_STALE);
        // another key: the handle fails its integrity check
        LocalVfs otherKey = LocalVfs.open(export);
        FileHandle foreign = otherKey.create(otherKey.root(), "x", CreateMode.GUARDED, SetAttributes.NONE, 0)
                .handle();
        assertStatus(() -> vfs.getattr(foreign), Nfs3Status.NFS3ERR_BADHANDLE);
    }

    @Test
    void dotDotStopsAtTheRoot() throws Exception {
        assertThat(vfs.lookup(vfs.root(), "..").handle()).isEqualTo(vfs.root());
        FileHandle d = vfs.mkdir(vfs.root(), "d", SetAttributes.NONE).handle();
        assertThat(vfs.lookup(d, "..").handle()).isEqualTo(vfs.root());
        assertThat(vfs.lookup(vfs.lookup(d, "..").handle(), "..").handle()).isEqualTo(vfs.root());
        assertStatus(() -> vfs.rename(d, "..", vfs.root(), "x"), Nfs3Status.NFS3ERR_INVAL);
        assertStatus(() -> vfs.symlink(vfs.root(), "../escape", "x", SetAttributes.NONE), Nfs3Status.NFS3ERR_INVAL);
        assertThat(Files.exists(temp.resolve("escape"))).isFalse();
    }

    @Test
    void handlesAreStableAcrossInstances() throws Exception {
        FileHandle d = vfs.mkdir(vfs.root(), "d", SetAttributes.NONE).handle();
        FileHandle f = vfs.create(d, "f", CreateMode.GUARDED, SetAttributes.NONE, 0).handle();
        LocalVfs again = LocalVfs.open(export, KEY);
        assertThat(again.root()).isEqualTo(vfs.root());
        assertThat(again.getattr(f).fileid()).isEqualTo(vfs.getattr(f).fileid());
        assertThat(again.writeVerifier()).isNotEqualTo(vfs.writeVerifier());
    }
}
