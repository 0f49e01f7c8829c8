package org.rpcrdma4j.nfs.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.nfs.CreateMode;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.SetAttributes;
import org.rpcrdma4j.nfs.vfs.MemoryVfs;

/** {@link DirectoryChanges}' holds: one change of a directory at a time, directories apart, no hold left behind. */
@Timeout(60)
class DirectoryChangesTest {
    private final MemoryVfs vfs = new MemoryVfs();
    private final Export export = Export.of("/e", vfs, false);
    private final ExportTable table = new ExportTable(List.of(export));
    private final DirectoryChanges changes = table.directoryChanges();

    private ExportTable.Target dir(String name) throws Exception {
        FileHandle fh = name == null ? vfs.root() : vfs.mkdir(vfs.root(), name, SetAttributes.NONE).handle();
        return table.resolve(export.wrap(fh), InetAddress.getLoopbackAddress());
    }

    /** Starts a change of {@code dir} that stays inside its hold until {@code leave} counts down. */
    private CompletableFuture<Void> heldOpen(ExportTable.Target dir, CountDownLatch inside, CountDownLatch leave) {
        return CompletableFuture.runAsync(() -> {
            try {
                changes.change(dir, new DirectoryChanges.Seen(), () -> {
                    inside.countDown();
                    leave.await();
                });
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    @Test
    void aDirectoryChangesOnceAtATimeAndOthersDoNotWait() throws Exception {
        ExportTable.Target a = dir("a");
        ExportTable.Target b = dir("b");
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch leave = new CountDownLatch(1);
        CompletableFuture<Void> first = heldOpen(a, inside, leave);
        assertThat(inside.await(10, TimeUnit.SECONDS)).isTrue();

        DirectoryChanges.Seen other = new DirectoryChanges.Seen();
        changes.change(b, other, () -> vfs.create(b.fh(), "x", CreateMode.GUARDED, SetAttributes.NONE, 0));
        assertThat(other.complete()).as("another directory does not wait").isTrue();
        assertThat(other.after().ctime()).isNotEqualTo(other.before().ctime());

        DirectoryChanges.Seen second = new DirectoryChanges.Seen();
        CompletableFuture<Void> same = CompletableFuture.runAsync(() -> {
            try {
                changes.change(a, second, () -> vfs.create(a.fh(), "y", CreateMode.GUARDED, SetAttributes.NONE, 0));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        assertThatThrownBy(() -> same.get(300, TimeUnit.MILLISECONDS))
                .as("the same directory waits").isInstanceOf(TimeoutException.class);
        leave.countDown();
        first.get(10, TimeUnit.SECONDS);
        same.get(10, TimeUnit.SECONDS);
        assertThat(second.before()).isNotNull();
        assertThat(changes.held()).as("no hold left behind").isZero();
    }

    /** RENAMEs between two directories both ways at once: each takes both holds in one order, so none waits forever. */
    @Test
    void renamesBothWaysAtOnceDoNotDeadlock() throws Exception {
        ExportTable.Target a = dir("a");
        ExportTable.Target b = dir("b");
        vfs.create(a.fh(), "fa", CreateMode.GUARDED, SetAttributes.NONE, 0);
        vfs.create(b.fh(), "fb", CreateMode.GUARDED, SetAttributes.NONE, 0);
        CompletableFuture<Void> ab = CompletableFuture.runAsync(() -> shuttle(a, b, "fa"));
        CompletableFuture<Void> ba = CompletableFuture.runAsync(() -> shuttle(b, a, "fb"));
        ab.get(30, TimeUnit.SECONDS);
        ba.get(30, TimeUnit.SECONDS);
        assertThat(vfs.lookup(a.fh(), "fa")).isNotNull();
        assertThat(vfs.lookup(b.fh(), "fb")).isNotNull();
        assertThat(changes.held()).isZero();

        // within one directory: its hold taken twice, and let go of twice
        DirectoryChanges.Seen from = new DirectoryChanges.Seen();
        DirectoryChanges.Seen to = new DirectoryChanges.Seen();
        changes.change(a, from, a, to, () -> vfs.rename(a.fh(), "fa", a.fh(), "fa2"));
        assertThat(from.complete()).isTrue();
        assertThat(to.after()).isEqualTo(from.after());
        assertThat(vfs.lookup(a.fh(), "fa2")).isNotNull();
        assertThat(changes.held()).isZero();
    }

    /** Moves {@code name} from {@code from} to {@code to} and back, 2,000 times. */
    private void shuttle(ExportTable.Target from, ExportTable.Target to, String name) {
        try {
            for (int i = 0; i < 2000; i++) {
                changes.change(from, new DirectoryChanges.Seen(), to, new DirectoryChanges.Seen(),
                        () -> vfs.rename(from.fh(), name, to.fh(), name));
                changes.change(to, new DirectoryChanges.Seen(), from, new DirectoryChanges.Seen(),
                        () -> vfs.rename(to.fh(), name, from.fh(), name));
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
