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
        LocalHandleIndex index = index(now::get); // no time passes: walks are never held back
        FileKey f = LocalHandleIndex.keyOf(root.resolve("f"));
        index.rebuild(new FileKey(f.dev(), Long.MAX_VALUE));
        Files.createLink(root.resolve("h"), root.resolve("f")); // on the server itself: the index does not know it

        Files.delete(root.resolve("f"));
        index.forget(f, index.rootKey(), "f", false);
        assertThat(index.pathOf(f)).as("its other name is not known").isNull();
        assertThat(index.locate(f, p -> true)).isNull();
        assertThat(index.rebuild(f)).isEqualTo(root.resolve("h"));
        Files.delete(root.resolve("h"));
        index.forget(f, index.rootKey(), "h", true);
        long walks = index.walks();
        assertThat(index.rebuild(f)).isNull();
        assertThat(index.walks()).isEqualTo(walks);
    }

    /**
     * The names of a file the index has seen are all kept: when the one a handle went through goes, the file is found
     * under another without a walk, and a removal of a name the index does not hold first changes nothing.
     */
    @Test
    void aFileKeepsItsPlaceUnderItsOtherKnownNamesWithoutAWalk() throws Exception {
        Files.createDirectories(root.resolve("d"));
        Files.writeString(root.resolve("f"), "x");
        Files.createLink(root.resolve("d/g"), root.resolve("f"));
        LocalHandleIndex index = index(now::get);
        FileKey f = LocalHandleIndex.keyOf(root.resolve("f"));
        FileKey d = LocalHandleIndex.keyOf(root.resolve("d"));
        index.record(d, index.rootKey(), "d");
        index.record(f, d, "g");
        index.record(f, index.rootKey(), "f");
        assertThat(index.pathOf(f)).as("the name seen last").isEqualTo(root.resolve("f"));

        Files.delete(root.resolve("d/g"));
        index.forget(f, d, "g", false);
        assertThat(index.pathOf(f)).isEqualTo(root.resolve("f"));
        Files.createLink(root.resolve("d/g"), root.resolve("f"));
        index.record(f, d, "g");
        Files.delete(root.resolve("f"));
        index.forget(f, index.rootKey(), "f", false);
        assertThat(index.pathOf(f)).isEqualTo(root.resolve("d/g"));

        // a name that no longer leads to the file is passed over, the one that does comes first
        index.record(f, index.rootKey(), "stale");
        assertThat(index.locate(f, p -> f.equals(LocalHandleIndex.keyOrNull(p)))).isEqualTo(root.resolve("d/g"));
        assertThat(index.pathOf(f)).isEqualTo(root.resolve("d/g"));
        assertThat(index.walks()).isZero();
    }

    @Test
    void aRenameReplacesTheNameItMoves() throws Exception {
        Files.writeString(root.resolve("f"), "x");
        LocalHandleIndex index = index(now::get);
        FileKey f = LocalHandleIndex.keyOf(root.resolve("f"));
        index.record(f, index.rootKey(), "f");
        Files.move(root.resolve("f"), root.resolve("g"));
        index.renamed(f, index.rootKey(), "f", index.rootKey(), "g");
        index.forget(f, index.rootKey(), "g", false);
        assertThat(index.pathOf(f)).as("f went with the rename: no name is left to try").isNull();
    }

    @Test
    void atMostMaxNamesAreKeptTheLatestFirst() throws Exception {
        Files.writeString(root.resolve("f"), "x");
        LocalHandleIndex index = index(now::get);
        FileKey f = LocalHandleIndex.keyOf(root.resolve("f"));
        for (int i = 0; i < LocalHandleIndex.MAX_NAMES + 3; i++) {
            index.record(f, index.rootKey(), "n" + i);
        }
        java.util.List<Path> tried = new java.util.ArrayList<>();
        assertThat(index.locate(f, p -> !tried.add(p))).isNull();
        assertThat(tried).hasSize(LocalHandleIndex.MAX_NAMES).first().isEqualTo(root.resolve("n"
                + (LocalHandleIndex.MAX_NAMES + 2)));
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
