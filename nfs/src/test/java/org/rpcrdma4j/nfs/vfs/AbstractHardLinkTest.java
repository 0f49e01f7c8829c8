package org.rpcrdma4j.nfs.vfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rpcrdma4j.nfs.vfs.LocalVfsConfinementTest.assertStatus;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.nfs.CreateMode;
import org.rpcrdma4j.nfs.FileAttributes;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.FileType;
import org.rpcrdma4j.nfs.Nfs3Status;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.nfs.SetAttributes;
import org.rpcrdma4j.nfs.StableHow;

/**
 * Hard links of one {@link Vfs}: a second name reaches the same file (its handle, data and attributes, its link
 * count), a file lives while it has a name and its handle keeps working whichever name goes, and what Linux's server
 * refuses is refused with its status.
 */
abstract class AbstractHardLinkTest {
    protected Vfs vfs;
    protected FileHandle root;
    protected FileHandle sub;

    /** A fresh, empty VFS. */
    protected abstract Vfs newVfs() throws Exception;

    /** The link count {@link Vfs#linkMax()} should give. */
    protected abstract int expectedLinkMax();

    @BeforeEach
    void setUp() throws Exception {
        vfs = newVfs();
        root = vfs.root();
        sub = vfs.mkdir(root, "sub", SetAttributes.NONE).handle();
    }

    @AfterEach
    void tearDown() {
        vfs.close();
    }

    protected FileHandle file(FileHandle dir, String name, String content) throws NfsException {
        FileHandle fh = vfs.create(dir, name, CreateMode.GUARDED, SetAttributes.NONE, 0).handle();
        vfs.write(fh, 0, ByteBuffer.wrap(content.getBytes(StandardCharsets.UTF_8)), StableHow.FILE_SYNC);
        return fh;
    }

    protected String content(FileHandle fh) throws NfsException {
        ByteBuffer b = ByteBuffer.allocate(1 << 16);
        vfs.read(fh, 0, b);
        return new String(b.array(), 0, b.position(), StandardCharsets.UTF_8);
    }

    @Test
    void aLinkIsAnotherNameOfTheSameFile() throws Exception {
        FileHandle a = file(root, "a", "hello");
        FileAttributes before = vfs.getattr(a);
        assertThat(before.nlink()).isEqualTo(1);
        vfs.link(a, sub, "b");

        FileHandle b = vfs.lookup(sub, "b").handle();
        assertThat(b).as("one file, one handle").isEqualTo(a);
        FileAttributes after = vfs.getattr(b);
        assertThat(after.fileid()).isEqualTo(before.fileid());
        assertThat(after.nlink()).isEqualTo(2);
        assertThat(vfs.lookup(root, "a").attributes().nlink()).isEqualTo(2);
        assertThat(content(b)).isEqualTo("hello");
        assertThat(vfs.linkMax()).isEqualTo(expectedLinkMax());
    }

    @Test
    void dataWrittenThroughEitherNameIsReadThroughTheOther() throws Exception {
        FileHandle a = file(root, "a", "first");
        vfs.link(a, sub, "b");
        FileHandle b = vfs.lookup(sub, "b").handle();
        vfs.write(b, 0, ByteBuffer.wrap("SECOND".getBytes(StandardCharsets.UTF_8)), StableHow.FILE_SYNC);
        assertThat(content(vfs.lookup(root, "a").handle())).isEqualTo("SECOND");
        vfs.write(vfs.lookup(root, "a").handle(), 6, ByteBuffer.wrap("+third".getBytes(StandardCharsets.UTF_8)),
                StableHow.FILE_SYNC);
        assertThat(content(vfs.lookup(sub, "b").handle())).isEqualTo("SECOND+third");
        vfs.setattr(b, SetAttributes.NONE.withMode(0600), null);
        assertThat(vfs.lookup(root, "a").attributes().mode()).isEqualTo(0600);
    }

    @Test
    void removingOneNameKeepsTheFileUnderTheOtherUntilTheLastGoes() throws Exception {
        FileHandle a = file(root, "a", "kept");
        vfs.link(a, sub, "b");
        vfs.remove(root, "a");
        assertStatus(() -> vfs.lookup(root, "a"), Nfs3Status.NFS3ERR_NOENT);
        FileHandle b = vfs.lookup(sub, "b").handle();
        assertThat(content(b)).isEqualTo("kept");
        assertThat(vfs.getattr(b).nlink()).isEqualTo(1);

        vfs.remove(sub, "b");
        assertStatus(() -> vfs.getattr(b), Nfs3Status.NFS3ERR_STALE);
    }

    /** The handle the file was made with goes on working after the name it was made under is removed. */
    @Test
    void aHandleKeepsWorkingWhenTheNameItCameByIsRemoved() throws Exception {
        FileHandle a = file(root, "a", "by handle");
        vfs.link(a, sub, "b");
        vfs.remove(root, "a");
        assertThat(content(a)).isEqualTo("by handle");
        vfs.write(a, 0, ByteBuffer.wrap("BY".getBytes(StandardCharsets.UTF_8)), StableHow.FILE_SYNC);
        assertThat(content(vfs.lookup(sub, "b").handle())).isEqualTo("BY handle");

        // and the other way round: the handle looked up through the link, the link removed
        FileHandle c = file(root, "c", "other way");
        vfs.link(c, sub, "d");
        FileHandle d = vfs.lookup(sub, "d").handle();
        vfs.remove(sub, "d");
        assertThat(content(d)).isEqualTo("other way");
        assertThat(vfs.getattr(d).nlink()).isEqualTo(1);
    }

    @Test
    void aNameThatIsTakenIsExist() throws Exception {
        FileHandle a = file(root, "a", "x");
        file(sub, "taken", "y");
        vfs.mkdir(sub, "dir", SetAttributes.NONE);
        assertStatus(() -> vfs.link(a, sub, "taken"), Nfs3Status.NFS3ERR_EXIST);
        assertStatus(() -> vfs.link(a, sub, "dir"), Nfs3Status.NFS3ERR_EXIST);
        assertStatus(() -> vfs.link(a, root, "a"), Nfs3Status.NFS3ERR_EXIST);
        assertStatus(() -> vfs.link(a, sub, "."), Nfs3Status.NFS3ERR_EXIST);
        assertStatus(() -> vfs.link(a, sub, ".."), Nfs3Status.NFS3ERR_EXIST);
        assertThat(content(vfs.lookup(sub, "taken").handle())).isEqualTo("y");
        assertThat(vfs.getattr(a).nlink()).isEqualTo(1);
    }

    @Test
    void namesAreCheckedAsForOtherNewNames() throws Exception {
        FileHandle a = file(root, "a", "x");
        assertStatus(() -> vfs.link(a, sub, ""), Nfs3Status.NFS3ERR_NOENT);
        assertStatus(() -> vfs.link(a, sub, "x/y"), Nfs3Status.NFS3ERR_INVAL);
        assertStatus(() -> vfs.link(a, sub, "x\0y"), Nfs3Status.NFS3ERR_INVAL);
        assertStatus(() -> vfs.link(a, sub, "n".repeat(256)), Nfs3Status.NFS3ERR_NAMETOOLONG);
        vfs.link(a, sub, "n".repeat(255));
        assertThat(vfs.getattr(a).nlink()).isEqualTo(2);
    }

    /** As Linux's server answers (nfsd_link): a directory is NFS3ERR_ISDIR; the target must be a directory. */
    @Test
    void aDirectoryIsRefusedAndTheTargetMustBeADirectory() throws Exception {
        FileHandle a = file(root, "a", "x");
        assertStatus(() -> vfs.link(sub, root, "again"), Nfs3Status.NFS3ERR_ISDIR);
        assertStatus(() -> vfs.link(root, sub, "root"), Nfs3Status.NFS3ERR_ISDIR);
        assertStatus(() -> vfs.link(a, a, "in-a-file"), Nfs3Status.NFS3ERR_NOTDIR);
        assertStatus(() -> vfs.lookup(root, "again"), Nfs3Status.NFS3ERR_NOENT);
        assertThat(vfs.getattr(sub).nlink()).isEqualTo(2);
    }

    @Test
    void aRemovedFileCannotBeLinked() throws Exception {
        FileHandle a = file(root, "a", "x");
        vfs.remove(root, "a");
        assertStatus(() -> vfs.link(a, sub, "b"), Nfs3Status.NFS3ERR_STALE);
    }

    /** A symbolic link is linked itself, never what it points to. */
    @Test
    void aSymbolicLinkIsLinkedAsItIs() throws Exception {
        FileHandle s = vfs.symlink(root, "s", "/etc/passwd", SetAttributes.NONE).handle();
        vfs.link(s, sub, "t");
        FileHandle t = vfs.lookup(sub, "t").handle();
        assertThat(vfs.getattr(t).type()).isEqualTo(FileType.SYMLINK);
        assertThat(vfs.getattr(t).nlink()).isEqualTo(2);
        assertThat(vfs.readlink(t)).isEqualTo("/etc/passwd");
    }

    /** rename(2) of one name of a file onto another of its names leaves both. */
    @Test
    void renamingOneNameOntoAnotherOfTheSameFileChangesNothing() throws Exception {
        FileHandle a = file(root, "a", "x");
        vfs.link(a, sub, "b");
        vfs.rename(root, "a", sub, "b");
        assertThat(vfs.lookup(root, "a").handle()).isEqualTo(a);
        assertThat(vfs.lookup(sub, "b").handle()).isEqualTo(a);
        assertThat(vfs.getattr(a).nlink()).isEqualTo(2);
    }

    /** A rename over one name of a file takes that name only. */
    @Test
    void renamingOverOneNameKeepsTheFileUnderItsOther() throws Exception {
        FileHandle a = file(root, "a", "linked");
        vfs.link(a, sub, "b");
        file(root, "new", "new");
        vfs.rename(root, "new", root, "a");
        assertThat(content(vfs.lookup(root, "a").handle())).isEqualTo("new");
        assertThat(content(a)).isEqualTo("linked");
        assertThat(vfs.getattr(a).nlink()).isEqualTo(1);
    }

    @Test
    void theDirectoryChanges() throws Exception {
        FileHandle a = file(root, "a", "x");
        FileAttributes before = vfs.getattr(sub);
        Thread.sleep(5);
        vfs.link(a, sub, "b");
        assertThat(vfs.getattr(sub).mtime()).isNotEqualTo(before.mtime());
        assertThat(vfs.readdir(sub, 0, 0, 10).entries()).extracting(e -> e.name()).contains("b");
    }
}
