package org.rpcrdma4j.nfs.vfs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rpcrdma4j.nfs.CreateMode;
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
                        NfsObject o = vfs.create(vfs.root(), name, CreateMode.UNCHECKED,
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
}
