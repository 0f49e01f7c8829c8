package org.rpcrdma4j.nfs.vfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rpcrdma4j.nfs.vfs.LocalVfsConfinementTest.assertStatus;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rpcrdma4j.nfs.CreateMode;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.Nfs3Status;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.nfs.NfsObject;
import org.rpcrdma4j.nfs.SetAttributes;
import org.rpcrdma4j.nfs.StableHow;
import org.rpcrdma4j.nfs.vfs.LocalHandleIndex.FileKey;

/**
 * A handle of a file removed through the server stays stale when the file system gives the file's inode number to a
 * new file (ext4, where the build runs, gives the number just freed to the next file made in the directory).
 */
class LocalVfsGenerationsTest {
    private static final byte[] KEY = "a handle key of this test".getBytes(StandardCharsets.US_ASCII);

    @TempDir
    Path export;

    private LocalVfs vfs;

    @BeforeEach
    void setUp() throws Exception {
        vfs = LocalVfs.open(export, KEY);
    }

    @AfterEach
    void tearDown() {
        vfs.close();
    }

    private interface Make {
        NfsObject make(String name) throws NfsException;
    }

    /**
     * Makes objects named {@code prefix0}, {@code prefix1}, ... until one has inode number {@code fileid} (the ones
     * that do not are left in place, so the number stays free), or skips the test when the file system gives it to
     * none of twenty.
     */
    private static NfsObject reusing(long fileid, String prefix, Make make) throws NfsException {
        for (int i = 0; i < 20; i++) {
            NfsObject o = make.make(prefix + i);
            if (o.attributes().fileid() == fileid) {
                return o;
            }
        }
        String why = "skipped: the file system under " + System.getProperty("java.io.tmpdir")
                + " did not give a freed inode number to a new file";
        System.out.println("LocalVfsGenerationsTest " + why);
        Assumptions.abort(why);
        return null;
    }

    private NfsObject file(String name, String content) throws NfsException {
        NfsObject f = vfs.create(vfs.root(), name, CreateMode.GUARDED, SetAttributes.NONE, 0).object();
        vfs.write(f.handle(), 0, ByteBuffer.wrap(content.getBytes(StandardCharsets.US_ASCII)), StableHow.FILE_SYNC);
        return f;
    }

    private String read(FileHandle fh) throws NfsException {
        ByteBuffer b = ByteBuffer.allocate(64);
        vfs.read(fh, 0, b);
        return new String(b.array(), 0, b.position(), StandardCharsets.US_ASCII);
    }

    @Test
    void aRemovedFilesHandleDoesNotNameTheFileThatTookItsInode() throws Exception {
        NfsObject old = file("old", "old bytes");
        vfs.remove(vfs.root(), "old");
        NfsObject fresh = reusing(old.attributes().fileid(), "new",
                n -> file(n, "new bytes"));
        assertThat(fresh.handle()).isNotEqualTo(old.handle());

        assertStatus(() -> vfs.getattr(old.handle()), Nfs3Status.NFS3ERR_STALE);
        assertStatus(() -> vfs.read(old.handle(), 0, ByteBuffer.allocate(16)), Nfs3Status.NFS3ERR_STALE);
        assertStatus(() -> vfs.write(old.handle(), 0, ByteBuffer.wrap("written late".getBytes(
                StandardCharsets.US_ASCII)), StableHow.FILE_SYNC), Nfs3Status.NFS3ERR_STALE);
        assertStatus(() -> vfs.setattr(old.handle(), SetAttributes.NONE.withSize(0), null),
                Nfs3Status.NFS3ERR_STALE);
        assertThat(read(fresh.handle())).isEqualTo("new bytes");
        assertThat(Files.readString(export.resolve(nameOf(fresh)))).isEqualTo("new bytes");
        // the new file's handle is the one LOOKUP gives from now on
        assertThat(vfs.lookup(vfs.root(), nameOf(fresh)).handle()).isEqualTo(fresh.handle());
    }

    private String nameOf(NfsObject o) throws Exception {
        try (var names = Files.list(export)) {
            return names.filter(p -> {
                try {
                    return ((Long) Files.getAttribute(p, "unix:ino")) == o.attributes().fileid();
                } catch (java.io.IOException e) {
                    return false;
                }
            }).findFirst().orElseThrow().getFileName().toString();
        }
    }

    @Test
    void aRemovedDirectorysHandleDoesNotNameTheDirectoryThatTookItsInode() throws Exception {
        NfsObject old = vfs.mkdir(vfs.root(), "old", SetAttributes.NONE);
        vfs.create(old.handle(), "inside", CreateMode.GUARDED, SetAttributes.NONE, 0);
        vfs.remove(old.handle(), "inside");
        vfs.rmdir(vfs.root(), "old");
        NfsObject fresh = reusing(old.attributes().fileid(), "new",
                n -> vfs.mkdir(vfs.root(), n, SetAttributes.NONE));

        assertStatus(() -> vfs.create(old.handle(), "y", CreateMode.GUARDED, SetAttributes.NONE, 0),
                Nfs3Status.NFS3ERR_STALE);
        assertStatus(() -> vfs.lookup(old.handle(), "."), Nfs3Status.NFS3ERR_STALE);
        try (var left = Files.list(export.resolve(nameOf(fresh)))) {
            assertThat(left).isEmpty();
        }
        vfs.create(fresh.handle(), "y", CreateMode.GUARDED, SetAttributes.NONE, 0);
    }

    @Test
    void aFileReplacedByRenameIsRemovedToo() throws Exception {
        NfsObject replaced = file("target", "replaced");
        NfsObject moved = file("source", "moved");
        vfs.rename(vfs.root(), "source", vfs.root(), "target");
        NfsObject fresh = reusing(replaced.attributes().fileid(), "new", n -> file(n, "new bytes"));

        assertStatus(() -> vfs.read(replaced.handle(), 0, ByteBuffer.allocate(16)), Nfs3Status.NFS3ERR_STALE);
        assertThat(read(moved.handle())).isEqualTo("moved");
        assertThat(read(fresh.handle())).isEqualTo("new bytes");
    }

    @Test
    void removingOneOfTwoNamesLeavesTheHandleAsItWas() throws Exception {
        NfsObject f = file("one", "linked");
        vfs.link(f.handle(), vfs.root(), "two");
        vfs.remove(vfs.root(), "one");
        assertThat(read(f.handle())).isEqualTo("linked");
        assertThat(vfs.lookup(vfs.root(), "two").handle()).isEqualTo(f.handle());
    }

    /** Handles outlive a restart, also one of a file that took a removed file's inode; version 1 handles are taken. */
    @Test
    void handlesOfLiveFilesWorkAfterARestartAndOlderHandlesAreTaken() throws Exception {
        NfsObject old = file("old", "old bytes");
        vfs.remove(vfs.root(), "old");
        NfsObject fresh = reusing(old.attributes().fileid(), "new", n -> file(n, "new bytes"));
        NfsObject plain = file("plain", "plain bytes");
        vfs.close();

        vfs = LocalVfs.open(export, KEY);
        assertThat(read(fresh.handle())).isEqualTo("new bytes");
        assertThat(read(plain.handle())).isEqualTo("plain bytes");
        assertThat(read(version1(plain))).isEqualTo("plain bytes");
        byte[] damaged = version1(plain).unsafeBytes().clone();
        damaged[12] ^= 1;
        assertStatus(() -> vfs.getattr(FileHandle.wrap(damaged)), Nfs3Status.NFS3ERR_BADHANDLE);
    }

    private static FileHandle version1(NfsObject o) throws Exception {
        return version1(o, KEY);
    }

    /** The handle an earlier release gave: 'L', 1, dev, ino, 8 bytes of HMAC-SHA256 over them. */
    static FileHandle version1(NfsObject o, byte[] key) throws Exception {
        byte[] b = new byte[26];
        b[0] = 'L';
        b[1] = 1;
        ByteBuffer.wrap(b, 2, 16).putLong(o.attributes().fsid()).putLong(o.attributes().fileid());
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(key, "HmacSHA256"));
        mac.update(b, 0, 18);
        System.arraycopy(Arrays.copyOf(mac.doFinal(), 8), 0, b, 18, 8);
        return FileHandle.wrap(b);
    }

    @Test
    void generationsGrowAndTheOldestRemovedAreLetGo() {
        LocalGenerations g = new LocalGenerations(2);
        FileKey a = new FileKey(1, 10);
        FileKey b = new FileKey(1, 11);
        FileKey c = new FileKey(1, 12);
        assertThat(g.of(a)).isZero();
        assertThat(g.current(a, 0)).isTrue();
        g.removed(a);
        long first = g.of(a);
        assertThat(g.current(a, 0)).isFalse();
        assertThat(g.current(a, first)).isTrue();
        g.removed(a);
        assertThat(g.of(a)).isGreaterThan(first);
        assertThat(g.current(a, first)).isFalse();
        assertThat(g.of(a)).isGreaterThanOrEqualTo(System.currentTimeMillis() * 1000 - 60_000_000L);
        g.removed(b);
        g.removed(c);
        assertThat(g.kept()).isEqualTo(2);
        assertThat(g.of(a)).as("let go").isZero();
        assertThat(g.current(a, 0)).isTrue();
        assertThat(g.of(b)).isLessThan(g.of(c));
    }
}
