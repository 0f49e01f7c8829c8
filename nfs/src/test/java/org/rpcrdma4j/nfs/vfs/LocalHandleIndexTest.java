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
 * The handle index walks the tree only when it must: a handle of no file (a forged one, or one of a file removed) is
 * stale without a walk once the tree has been walked, and walks for files moved on the server are rationed.
 */
class LocalHandleIndexTest {
    @TempDir
    Path root;

    /** A clock that moves 1 ms each time it is read, and as far as a test moves it. */
    private final AtomicLong now = new AtomicLong();

    private long tick() {
        return now.addAndGet(1_000_000L);
    }

    private LocalHandleIndex index(java.util.function.LongSupplier clock) throws Exception {
        return new LocalHandleIndex(root, LocalHandleIndex.keyOf(root), clock);
    }

    @Test
    void afterAWalkAHandleOfNoFileIsStaleWithoutAnotherWalk() throws Exception {
        Files.createDirectories(root.resolve("a/b"));
        Files.writeString(root.resolve("a/b/f"), "x");
        LocalHandleIndex index = index(this::tick);
        FileKey f = LocalHandleIndex.keyOf(root.resolve("a/b/f"));

        assertThat(index.rebuild(new FileKey(f.dev(), Long.MAX_VALUE - 7))).as("the first walk").isNull();
        assertThat(index.walks()).isEqualTo(1);
        assertThat(index.pathOf(f)).as("every identity recorded").isEqualTo(root.resolve("a/b/f"));
        for (int i = 0; i < 100; i++) {
            assertThat(index.rebuild(new FileKey(f.dev(), Long.MAX_VALUE - 100 - i))).isNull();
        }
        assertThat(index.walks()).as("made-up handles cost no walk").isEqualTo(1);
    }

    @Test
    void aFileMovedOnTheServerIsFoundByAWalkAndWalksWaitFourTimesTheLastOnesLength() throws Exception {
        Files.createDirectories(root.resolve("a/b"));
        Files.writeString(root.resolve("a/b/f"), "x");
        Files.writeString(root.resolve("a/b/g"), "y");
        LocalHandleIndex index = index(this::tick);
        FileKey f = LocalHandleIndex.keyOf(root.resolve("a/b/f"));
        FileKey g = LocalHandleIndex.keyOf(root.resolve("a/b/g"));
        index.rebuild(new FileKey(f.dev(), Long.MAX_VALUE)); // a walk of 1 ms (the clock is read twice)

        Files.move(root.resolve("a/b/f"), root.resolve("a/f2"));
        Files.move(root.resolve("a/b/g"), root.resolve("g2"));
        assertThatThrownBy(() -> index.rebuild(f)).as("4 ms have not passed since the walk")
                .isInstanceOfSatisfying(NfsException.class,
                        e -> assertThat(e.status()).isEqualTo(Nfs3Status.NFS3ERR_JUKEBOX));
        now.addAndGet(4_000_000L);
        assertThat(index.rebuild(f)).isEqualTo(root.resolve("a/f2"));
        assertThat(index.pathOf(g)).as("the same walk found the other").isEqualTo(root.resolve("g2"));
        assertThat(index.walks()).isEqualTo(2);

        Files.delete(root.resolve("g2"));
        now.addAndGet(10_000_000L);
        assertThat(index.rebuild(g)).as("removed on the server: a walk does not find it").isNull();
        now.addAndGet(10_000_000L);
        assertThat(index.rebuild(g)).as("nor a second").isNull();
        assertThat(index.walks()).isEqualTo(4);
        assertThat(index.rebuild(g)).as("missed twice: stale from then on without a walk").isNull();
        assertThat(index.walks()).isEqualTo(4);
    }

    /**
     * A directory moved out of the tree while a walk runs, and back, is not lost: a walk that misses a file only
     * marks it, and the next walk finds it again.
     */
    @Test
    void aFileOneWalkMissesIsFoundByTheNext() throws Exception {
        Files.createDirectories(root.resolve("d"));
        Files.writeString(root.resolve("d/f"), "x");
        Path away = Files.createTempDirectory("away");
        LocalHandleIndex index = index(now::get);
        FileKey f = LocalHandleIndex.keyOf(root.resolve("d/f"));
        index.rebuild(new FileKey(f.dev(), Long.MAX_VALUE));
        assertThat(index.pathOf(f)).isEqualTo(root.resolve("d/f"));

        Files.move(root.resolve("d"), away.resolve("d")); // out of the tree while the next walk runs
        assertThat(index.rebuild(new FileKey(f.dev(), Long.MAX_VALUE - 1))).isNull();
        Files.move(away.resolve("d"), root.resolve("d2"));
        assertThat(index.rebuild(f)).as("back, elsewhere: found").isEqualTo(root.resolve("d2/f"));
    }

    @Test
    void aFileRemovedByItsLastNameIsStaleAndByAnotherNameIsFoundUnderTheOne() throws Exception {
        Files.writeString(root.resolve("f"), "x");
        Files.createLink(root.resolve("h"), root.resolve("f"));
        LocalHandleIndex index = index(now::get); // no time passes: walks are never held back
        FileKey f = LocalHandleIndex.keyOf(root.resolve("f"));
        index.rebuild(new FileKey(f.dev(), Long.MAX_VALUE));
        index.record(f, index.rootKey(), "f");

        Files.delete(root.resolve("f"));
        index.forget(f, false);
        assertThat(index.pathOf(f)).as("its other name is not known").isNull();
        assertThat(index.rebuild(f)).isEqualTo(root.resolve("h"));
        Files.delete(root.resolve("h"));
        index.forget(f, true);
        long walks = index.walks();
        assertThat(index.rebuild(f)).isNull();
        assertThat(index.walks()).isEqualTo(walks);
    }

    @Test
    void shortWalksAreNeverRationed() throws Exception {
        Files.writeString(root.resolve("f"), "x");
        LocalHandleIndex index = index(now::get);
        FileKey f = LocalHandleIndex.keyOf(root.resolve("f"));
        index.rebuild(new FileKey(f.dev(), Long.MAX_VALUE));
        for (int i = 0; i < 3; i++) {
            Path from = root.resolve(i == 0 ? "f" : "f" + (i - 1));
            Files.move(from, root.resolve("f" + i));
            assertThat(index.rebuild(f)).isEqualTo(root.resolve("f" + i));
        }
        assertThat(index.walks()).isEqualTo(4);
    }
}
