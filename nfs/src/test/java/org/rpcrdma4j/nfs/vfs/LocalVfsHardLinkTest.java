package org.rpcrdma4j.nfs.vfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.rpcrdma4j.nfs.vfs.LocalVfsConfinementTest.assertStatus;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.FileType;
import org.rpcrdma4j.nfs.Nfs3Status;

/**
 * {@link AbstractHardLinkTest} on {@link LocalVfs}, and what the handle index does with a file's several names: a
 * handle goes on through a name it knows without a walk, through one made on the server after a walk, and never
 * through a name outside the export.
 */
class LocalVfsHardLinkTest extends AbstractHardLinkTest {
    @TempDir
    Path temp;

    private Path export;

    @Override
    protected Vfs newVfs() throws Exception {
        export = Files.createDirectories(temp.resolve("export"));
        return LocalVfs.open(export);
    }

    @Override
    protected int expectedLinkMax() {
        return 255;
    }

    private LocalVfs local() {
        return (LocalVfs) vfs;
    }

    @Test
    void theLinkIsMadeOnTheFileSystem() throws Exception {
        FileHandle a = file(root, "a", "on disk");
        vfs.link(a, sub, "b");
        assertThat(Files.isSameFile(export.resolve("a"), export.resolve("sub/b"))).isTrue();
        assertThat(Files.getAttribute(export.resolve("a"), "unix:nlink")).isEqualTo(2);
        assertThat(Files.readString(export.resolve("sub/b"))).isEqualTo("on disk");
    }

    /** The index holds both names: the name the handle came by removed, the other serves, and nothing is walked. */
    @Test
    void aHandleGoesOnThroughTheOtherNameWithoutAWalk() throws Exception {
        FileHandle a = file(root, "a", "one");
        vfs.link(a, sub, "b");
        FileHandle c = file(root, "c", "two");
        vfs.link(c, sub, "d");
        vfs.lookup(sub, "d");
        vfs.remove(sub, "b"); // the name LINK recorded last
        vfs.remove(root, "c"); // the name the handle was made by
        assertThat(content(a)).isEqualTo("one");
        assertThat(content(c)).isEqualTo("two");
        assertThat(local().walks()).isZero();
    }

    /** A name made on the server itself is not known until a walk (or a LOOKUP) finds it. */
    @Test
    void aNameMadeOnTheServerIsFoundByAWalk() throws Exception {
        FileHandle a = file(root, "a", "server side");
        Files.createLink(export.resolve("sub/made-here"), export.resolve("a"));
        vfs.remove(root, "a");
        assertThat(content(a)).isEqualTo("server side");
        assertThat(local().walks()).isEqualTo(1);
        assertThat(vfs.lookup(sub, "made-here").handle()).isEqualTo(a);
    }

    /** After a restart every handle is found again by a walk, and its names are all known after it. */
    @Test
    void aNewInstanceFindsTheFileUnderEitherName() throws Exception {
        FileHandle a = file(root, "a", "restart");
        vfs.link(a, sub, "b");
        vfs.close();
        vfs = LocalVfs.open(export);
        assertThat(content(a)).isEqualTo("restart");
        assertThat(local().walks()).isEqualTo(1);
        vfs.remove(root, "a");
        assertThat(content(a)).as("through the name the walk found").isEqualTo("restart");
        vfs.remove(sub, "b");
        assertStatus(() -> vfs.getattr(a), Nfs3Status.NFS3ERR_STALE);
        assertThat(local().walks()).as("gone with its last name: stale without a walk").isEqualTo(1);
    }

    /**
     * A file whose only other name is outside the export (linked there on the server) is stale once its name in the
     * export goes: a handle never reaches outside, whatever names its file has.
     */
    @Test
    void aNameOutsideTheExportIsNeverUsed() throws Exception {
        FileHandle a = file(root, "a", "inside");
        Path outside = Files.createDirectories(temp.resolve("outside"));
        Files.createLink(outside.resolve("a"), export.resolve("a"));
        vfs.remove(root, "a");
        assertStatus(() -> vfs.getattr(a), Nfs3Status.NFS3ERR_STALE);
        assertStatus(() -> vfs.read(a, 0, java.nio.ByteBuffer.allocate(10)), Nfs3Status.NFS3ERR_STALE);
        assertThat(Files.readString(outside.resolve("a"))).isEqualTo("inside");
    }

    /**
     * A file on another file system than the directory is NFS3ERR_XDEV, as link(2)'s EXDEV: here {@code /dev}
     * exported, a directory made on the tmpfs mounted at {@code /dev/shm}, and {@code /dev/null} linked into it.
     */
    @Test
    void aFileOfAnotherFileSystemIsXdev() throws Exception {
        Path dev = Path.of("/dev");
        Path shm = dev.resolve("shm");
        assumeThat(Files.isDirectory(shm, LinkOption.NOFOLLOW_LINKS) && Files.isWritable(shm)).isTrue();
        assumeThat(Files.getAttribute(shm, "unix:dev")).isNotEqualTo(Files.getAttribute(dev, "unix:dev"));
        assumeThat(Files.exists(dev.resolve("null"), LinkOption.NOFOLLOW_LINKS)).isTrue();
        Path dir = Files.createTempDirectory(shm, "xdev");
        try (LocalVfs devVfs = LocalVfs.open(dev)) {
            FileHandle shmDir = devVfs.lookup(devVfs.root(), "shm").handle();
            FileHandle target = devVfs.lookup(shmDir, dir.getFileName().toString()).handle();
            FileHandle nul = devVfs.lookup(devVfs.root(), "null").handle();
            assertStatus(() -> devVfs.link(nul, target, "null"), Nfs3Status.NFS3ERR_XDEV);
            assertThat(Files.exists(dir.resolve("null"), LinkOption.NOFOLLOW_LINKS)).isFalse();
        } finally {
            Files.deleteIfExists(dir.resolve("null"));
            Files.delete(dir);
        }
    }

    /** A FIFO is linked without being opened (forcing it to disk would wait for a writer). */
    @Test
    @Timeout(value = 20, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aFifoIsLinkedWithoutOpeningIt() throws Exception {
        Path fifo = export.resolve("fifo");
        Process p;
        try {
            p = new ProcessBuilder("mkfifo", fifo.toString()).start();
        } catch (java.io.IOException e) {
            assumeThat(false).as("mkfifo: " + e).isTrue();
            return;
        }
        assumeThat(p.waitFor()).isZero();
        FileHandle f = vfs.lookup(root, "fifo").handle();
        vfs.link(f, sub, "fifo2");
        assertThat(vfs.getattr(f).type()).isEqualTo(FileType.FIFO);
        assertThat(vfs.getattr(f).nlink()).isEqualTo(2);
    }
}
