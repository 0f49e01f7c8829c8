package org.rpcrdma4j.nfs.vfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rpcrdma4j.nfs.vfs.LocalVfsConfinementTest.assertStatus;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rpcrdma4j.nfs.CreateMode;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.Nfs3Status;
import org.rpcrdma4j.nfs.SetAttributes;
import org.rpcrdma4j.nfs.StableHow;

/** What {@link LocalVfs} puts on disk before it answers, and what its write verifier promises. */
class LocalVfsDurabilityTest {
    @TempDir
    Path temp;

    private Path export;
    private LocalVfs vfs;

    @BeforeEach
    void setUp() throws Exception {
        export = Files.createDirectories(temp.resolve("export"));
        vfs = LocalVfs.open(export, "a secret handle key of 32 bytes!".getBytes(StandardCharsets.US_ASCII));
    }

    /** NFS's calls but an UNSTABLE WRITE are stable when they return: the directories they change are forced too. */
    @Test
    void callsThatChangeNamesForceTheirDirectoriesToDisk() throws Exception {
        long before = vfs.metadataSyncs();
        FileHandle d = vfs.mkdir(vfs.root(), "d", SetAttributes.NONE).handle();
        assertThat(vfs.metadataSyncs() - before).as("mkdir: the new directory and its parent").isEqualTo(2);
        before = vfs.metadataSyncs();
        vfs.create(d, "f", CreateMode.GUARDED, SetAttributes.NONE, 0);
        assertThat(vfs.metadataSyncs() - before).as("create: the new file and its directory").isEqualTo(2);
        before = vfs.metadataSyncs();
        vfs.symlink(d, "l", "f", SetAttributes.NONE);
        assertThat(vfs.metadataSyncs() - before).as("symlink: its directory").isEqualTo(1);
        before = vfs.metadataSyncs();
        vfs.rename(d, "f", vfs.root(), "g");
        assertThat(vfs.metadataSyncs() - before).as("rename across directories: both").isEqualTo(2);
        before = vfs.metadataSyncs();
        vfs.rename(vfs.root(), "g", vfs.root(), "h");
        assertThat(vfs.metadataSyncs() - before).as("rename within one directory: it").isEqualTo(1);
        before = vfs.metadataSyncs();
        vfs.remove(vfs.root(), "h");
        vfs.remove(d, "l");
        vfs.rmdir(vfs.root(), "d");
        assertThat(vfs.metadataSyncs() - before).as("remove, remove, rmdir").isEqualTo(3);
        assertThat(Files.list(export)).isEmpty();
    }

    /** SETATTR of a file's or a directory's owner, mode or times forces it to disk before it returns. */
    @Test
    void attributeChangesAreForcedToDisk() throws Exception {
        FileHandle f = vfs.create(vfs.root(), "f", CreateMode.GUARDED, SetAttributes.NONE, 0).handle();
        FileHandle d = vfs.mkdir(vfs.root(), "d", SetAttributes.NONE).handle();
        long before = vfs.metadataSyncs();
        vfs.setattr(f, SetAttributes.NONE.withMode(0640), null);
        vfs.setattr(d, SetAttributes.NONE.withMode(0750), null);
        assertThat(vfs.metadataSyncs() - before).as("a file's and a directory's mode").isEqualTo(2);
    }

    /**
     * The verifier changes only when unstable data may have been lost: a WRITE or COMMIT refused before it touched a
     * file (a removed file, a directory, a bad handle) leaves it as it was, so no client can make the others write
     * their data again.
     */
    @Test
    void aWriteOrCommitRefusedBeforeItTouchedAFileKeepsTheWriteVerifier() throws Exception {
        long verifier = vfs.writeVerifier();
        FileHandle f = vfs.create(vfs.root(), "f", CreateMode.GUARDED, SetAttributes.NONE, 0).handle();
        FileHandle d = vfs.mkdir(vfs.root(), "d", SetAttributes.NONE).handle();
        vfs.remove(vfs.root(), "f");
        ByteBuffer one = ByteBuffer.wrap(new byte[] {1});
        assertStatus(() -> vfs.write(f, 0, one.duplicate(), StableHow.UNSTABLE), Nfs3Status.NFS3ERR_STALE);
        assertStatus(() -> vfs.write(d, 0, one.duplicate(), StableHow.UNSTABLE), Nfs3Status.NFS3ERR_ISDIR);
        assertStatus(() -> vfs.commit(d, 0, 0), Nfs3Status.NFS3ERR_ISDIR);
        assertStatus(() -> vfs.write(FileHandle.of(new byte[26]), 0, one.duplicate(),
                StableHow.UNSTABLE), Nfs3Status.NFS3ERR_BADHANDLE);
        assertThat(vfs.writeVerifier()).isEqualTo(verifier);
    }

    /** A directory or new object that cannot be opened or forced is left to the file system; the call stands. */
    @Test
    void forcingIsBestEffortAndCountsOnlyWhatItForced() throws Exception {
        AtomicLong forced = new AtomicLong();
        try (MetadataSync sync = new MetadataSync(forced)) {
            sync.add(export.resolve("no such directory"));
            sync.add(export);
            sync.force();
        }
        assertThat(forced.get()).isEqualTo(1);
    }
}
