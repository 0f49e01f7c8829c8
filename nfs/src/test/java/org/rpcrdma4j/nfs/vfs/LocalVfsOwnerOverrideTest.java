package org.rpcrdma4j.nfs.vfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rpcrdma4j.nfs.vfs.LocalVfsConfinementTest.assertStatus;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rpcrdma4j.nfs.CreateMode;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.Nfs3Status;
import org.rpcrdma4j.nfs.SetAttributes;
import org.rpcrdma4j.nfs.StableHow;

/**
 * {@link LocalVfs} lets a file's owner write to it whatever its mode, as Linux's server does. The tests run as root,
 * whom the kernel never refuses, so the files are opened through a stand-in for the kernel of an unprivileged server
 * user: it refuses an open whose bit the mode does not give that user, as open(2) would.
 */
class LocalVfsOwnerOverrideTest {
    @TempDir
    Path export;

    private LocalVfs vfs;
    private int serverUid;

    @BeforeEach
    void setUp() throws Exception {
        vfs = LocalVfs.open(export);
        serverUid = (Integer) Files.getAttribute(export, "unix:uid");
        vfs.files = new OwnerOverride(serverUid, LocalVfsOwnerOverrideTest::openAsUnprivileged);
    }

    @AfterEach
    void tearDown() {
        vfs.close();
    }

    /** open(2)'s check for a process of the export's owner without privileges (owner bits, else other bits). */
    private static FileChannel openAsUnprivileged(Path p, java.nio.file.StandardOpenOption how)
            throws java.io.IOException {
        Map<String, Object> a = Files.readAttributes(p, "unix:uid,mode", LinkOption.NOFOLLOW_LINKS);
        int uid = (Integer) Files.getAttribute(p.getParent(), "unix:uid");
        int mode = (Integer) a.get("mode");
        int bits = (Integer) a.get("uid") == uid ? mode >> 6 : mode;
        int need = how == java.nio.file.StandardOpenOption.WRITE ? 2 : 4;
        if ((bits & need) == 0) {
            throw new AccessDeniedException(p.toString());
        }
        return FileChannel.open(p, how, LinkOption.NOFOLLOW_LINKS);
    }

    private int modeOnDisk(String name) throws Exception {
        return (Integer) Files.getAttribute(export.resolve(name), "unix:mode", LinkOption.NOFOLLOW_LINKS) & 07777;
    }

    @Test
    void theOwnerWritesToAFileItCreatedReadOnly() throws Exception {
        FileHandle f = vfs.create(vfs.root(), "ro", CreateMode.GUARDED, SetAttributes.NONE.withMode(0444), 0)
                .handle();
        assertThat(modeOnDisk("ro")).isEqualTo(0444);
        byte[] data = "written by its owner".getBytes(StandardCharsets.US_ASCII);
        assertThat(vfs.write(f, 0, ByteBuffer.wrap(data), StableHow.FILE_SYNC).count()).isEqualTo(data.length);
        vfs.commit(f, 0, 0);
        assertThat(Files.readAllBytes(export.resolve("ro"))).isEqualTo(data);
        assertThat(modeOnDisk("ro")).as("the mode is put back").isEqualTo(0444);
        assertThat(vfs.getattr(f).mode()).isEqualTo(0444);

        assertThat(vfs.setattr(f, SetAttributes.NONE.withSize(5), null).size()).as("truncated by its owner")
                .isEqualTo(5);
        Created over = vfs.create(vfs.root(), "ro", CreateMode.UNCHECKED, SetAttributes.NONE.withSize(0), 0);
        assertThat(over.made()).as("UNCHECKED CREATE over it finds it").isFalse();
        assertThat(over.attributes().size()).as("and leaves it to the server's checked truncation").isEqualTo(5);
        assertThat(vfs.setattr(f, SetAttributes.NONE.withSize(0), null).size()).isZero();
        assertThat(modeOnDisk("ro")).isEqualTo(0444);
        ByteBuffer back = ByteBuffer.allocate(8);
        assertThat(vfs.read(f, 0, back).count()).as("read as ever").isZero();
    }

    @Test
    void aFileOfAnotherUserIsNotLetThrough() throws Exception {
        FileHandle f = vfs.create(vfs.root(), "theirs", CreateMode.GUARDED, SetAttributes.NONE.withMode(0644), 0)
                .handle();
        Files.setAttribute(export.resolve("theirs"), "unix:uid", serverUid + 4321, LinkOption.NOFOLLOW_LINKS);
        assertStatus(() -> vfs.write(f, 0, ByteBuffer.wrap(new byte[] {1}), StableHow.UNSTABLE),
                Nfs3Status.NFS3ERR_ACCES);
        assertThat(modeOnDisk("theirs")).isEqualTo(0644);
        assertThat(Files.size(export.resolve("theirs"))).isZero();
    }
}
