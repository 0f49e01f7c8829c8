package org.rpcrdma4j.nfs.vfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rpcrdma4j.nfs.Nfs3Status;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.nfs.vfs.LocalHandleIndex.FileKey;

/**
 * The handle index's walks of the tree are rationed: a handle of no file (a forged one) cannot make the server walk
 * a large export again and again.
 */
class LocalHandleIndexTest {
    @TempDir
    Path root;

    /** A clock that moves 1 ms each time it is read, and as far as a test moves it. */
    private final AtomicLong now = new AtomicLong();

    private long tick() {
        return now.addAndGet(1_000_000L);
    }

    @Test
    void afterAWalkTheNextWaitsForFourTimesItsLengthAndHandlesItCannotPlaceMeanwhileAreJukebox() throws Exception {
        Files.createDirectories(root.resolve("a/b"));
        Files.writeString(root.resolve("a/b/f"), "x");
        LocalHandleIndex index = new LocalHandleIndex(root, LocalHandleIndex.keyOf(root), this::tick);
        FileKey f = LocalHandleIndex.keyOf(root.resolve("a/b/f"));
        FileKey nowhere = new FileKey(f.dev(), Long.MAX_VALUE - 7);

        assertThat(index.rebuild(nowhere)).as("the first walk: not in the tree").isNull();
        assertThat(index.walks()).isEqualTo(1);
        assertThat(index.pathOf(f)).as("every identity recorded").isEqualTo(root.resolve("a/b/f"));
        // the walk read the clock twice: 1 ms long, so the next may start 4 ms after it ended
        assertThatThrownBy(() -> index.rebuild(new FileKey(f.dev(), Long.MAX_VALUE - 8)))
                .isInstanceOfSatisfying(NfsException.class,
                        e -> assertThat(e.status()).isEqualTo(Nfs3Status.NFS3ERR_JUKEBOX));
        assertThat(index.walks()).isEqualTo(1);
        assertThat(index.rebuild(f)).as("a file the index knows needs no walk").isEqualTo(root.resolve("a/b/f"));

        now.addAndGet(4_000_000L);
        Files.writeString(root.resolve("a/g"), "y");
        FileKey g = LocalHandleIndex.keyOf(root.resolve("a/g"));
        assertThat(index.rebuild(g)).as("time enough has passed: a new walk finds it").isEqualTo(root.resolve("a/g"));
        assertThat(index.walks()).isEqualTo(2);
    }

    @Test
    void aFileRemovedThroughTheIndexIsGoneWithoutAWalkUntilItsNumberComesBack() throws Exception {
        Files.writeString(root.resolve("f"), "x");
        LocalHandleIndex index = new LocalHandleIndex(root, LocalHandleIndex.keyOf(root), this::tick);
        FileKey f = LocalHandleIndex.keyOf(root.resolve("f"));
        index.record(f, index.rootKey(), "f");
        index.forget(f, false);
        assertThat(index.rebuild(f)).as("another name may remain: found by a walk").isEqualTo(root.resolve("f"));
        assertThat(index.walks()).isEqualTo(1);
        index.forget(f, true);
        assertThat(index.rebuild(f)).isNull();
        assertThat(index.rebuild(f)).isNull();
        assertThat(index.walks()).as("known to be gone: no walk").isEqualTo(1);
        index.record(f, index.rootKey(), "f"); // the number given to a new file
        assertThat(index.rebuild(f)).isEqualTo(root.resolve("f"));
    }

    @Test
    void shortWalksAreNeverRationed() throws Exception {
        Files.writeString(root.resolve("f"), "x");
        LocalHandleIndex index = new LocalHandleIndex(root, LocalHandleIndex.keyOf(root), now::get); // no time passes
        FileKey f = LocalHandleIndex.keyOf(root.resolve("f"));
        for (int i = 1; i <= 3; i++) {
            assertThat(index.rebuild(new FileKey(f.dev(), Long.MAX_VALUE - i))).isNull();
        }
        assertThat(index.walks()).isEqualTo(3);
    }
}
