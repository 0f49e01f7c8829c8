package org.rpcrdma4j.nfs.vfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rpcrdma4j.nfs.vfs.LocalVfsConfinementTest.assertStatus;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rpcrdma4j.nfs.CreateMode;
import org.rpcrdma4j.nfs.Nfs3Status;
import org.rpcrdma4j.nfs.NfsObject;
import org.rpcrdma4j.nfs.SetAttributes;

/** {@link LocalVfs}'s CREATE in its three modes, alone and raced. */
class LocalVfsCreateTest {
    @TempDir
    Path export;

    private LocalVfs vfs;

    @BeforeEach
    void setUp() throws Exception {
        vfs = LocalVfs.open(export);
    }

    @AfterEach
    void tearDown() {
        vfs.close();
    }

    /**
     * UNCHECKED CREATEs of one name at once all succeed and name one file, whichever makes it: one that finds the file
     * made between its look and its own create treats it as it treats a file that was there.
     */
    @Test
    void uncheckedCreatesOfOneNameAtOnceAllSucceed() throws Exception {
        int threads = 4;
        CyclicBarrier start = new CyclicBarrier(threads);
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<Long> fileids = new ConcurrentLinkedQueue<>();
        for (int round = 0; round < 400; round++) {
            String name = "same-" + round;
            List<Thread> running = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Thread th = new Thread(() -> {
                    try {
                        start.await();
                        Created o = vfs.create(vfs.root(), name, CreateMode.UNCHECKED,
                                SetAttributes.NONE.withSize(0), 0);
                        fileids.add(o.attributes().fileid());
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                });
                th.start();
                running.add(th);
            }
            for (Thread th : running) {
                th.join();
            }
            assertThat(failures).as("round %d", round).isEmpty();
            assertThat(fileids).as("one file").hasSize(threads).containsOnly(
                    (Long) Files.getAttribute(export.resolve(name), "unix:ino"));
            fileids.clear();
        }
    }

    /**
     * The verifier of an EXCLUSIVE CREATE is kept in the file's times, 31 bits of each half (as Linux's server keeps
     * it), so a file system whose times end in 2038 keeps it, and a resend of the CREATE finds its file there.
     */
    @Test
    void anExclusiveVerifierIsKeptInTimesBefore2038AndAResendFindsItsFile() throws Exception {
        long verifier = 0xC000_0005_8000_0001L; // the top bit of both halves set
        Created made = vfs.create(vfs.root(), "x", CreateMode.EXCLUSIVE, SetAttributes.NONE, verifier);
        Path x = export.resolve("x");
        FileTime atime = (FileTime) Files.getAttribute(x, "lastAccessTime", LinkOption.NOFOLLOW_LINKS);
        FileTime mtime = (FileTime) Files.getAttribute(x, "lastModifiedTime", LinkOption.NOFOLLOW_LINKS);
        assertThat(atime.to(TimeUnit.SECONDS)).isEqualTo(0x4000_0005L);
        assertThat(mtime.to(TimeUnit.SECONDS)).isEqualTo(0x0000_0001L);
        assertThat(made.attributes().atime().seconds()).isLessThan(Integer.MAX_VALUE);

        // as a file system without times past 2038 would keep them: nothing changes for the 31-bit halves
        Files.getFileAttributeView(x, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                .setTimes(clamped(mtime), clamped(atime), null);
        assertThat(vfs.create(vfs.root(), "x", CreateMode.EXCLUSIVE, SetAttributes.NONE, verifier).handle())
                .as("the resend").isEqualTo(made.handle());
        assertStatus(() -> vfs.create(vfs.root(), "x", CreateMode.EXCLUSIVE, SetAttributes.NONE, verifier + 1),
                Nfs3Status.NFS3ERR_EXIST);
        assertStatus(() -> vfs.create(vfs.root(), "x", CreateMode.EXCLUSIVE, SetAttributes.NONE, 0),
                Nfs3Status.NFS3ERR_EXIST);
    }

    private static FileTime clamped(FileTime t) {
        return FileTime.from(Math.min(t.to(TimeUnit.SECONDS), Integer.MAX_VALUE), TimeUnit.SECONDS);
    }
}
