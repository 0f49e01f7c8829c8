package org.rpcrdma4j.nfs.vfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rpcrdma4j.nfs.vfs.LocalVfsConfinementTest.assertStatus;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.Nfs3Status;
import org.rpcrdma4j.nfs.StableHow;

/** {@link AbstractHardLinkTest} on {@link MemoryVfs}: one copy of the data whatever the names, and a bound on them. */
class MemoryVfsHardLinkTest extends AbstractHardLinkTest {
    @Override
    protected Vfs newVfs() {
        return new MemoryVfs(16L << 20);
    }

    @Override
    protected int expectedLinkMax() {
        return MemoryVfs.MAX_LINKS;
    }

    @Test
    void theDataIsCountedOnceAndFreedWithTheLastName() throws Exception {
        FileHandle a = file(root, "a", "");
        vfs.write(a, 0, ByteBuffer.allocate(1 << 20), StableHow.FILE_SYNC);
        long free = vfs.fsstat(root).freeBytes();
        vfs.link(a, sub, "b");
        vfs.link(a, root, "c");
        assertThat(vfs.fsstat(root).freeBytes()).isEqualTo(free);
        vfs.remove(root, "a");
        vfs.remove(root, "c");
        assertThat(vfs.fsstat(root).freeBytes()).as("one name left").isEqualTo(free);
        vfs.remove(sub, "b");
        assertThat(vfs.fsstat(root).freeBytes()).isGreaterThanOrEqualTo(free + (1 << 20));
    }

    @Test
    void aFileHasAtMostMaxLinksNames() throws Exception {
        FileHandle a = file(root, "a", "x");
        for (int i = 1; i < MemoryVfs.MAX_LINKS; i++) {
            vfs.link(a, sub, "l" + i);
        }
        assertThat(vfs.getattr(a).nlink()).isEqualTo(MemoryVfs.MAX_LINKS);
        assertStatus(() -> vfs.link(a, sub, "one-more"), Nfs3Status.NFS3ERR_MLINK);
        vfs.remove(sub, "l1");
        vfs.link(a, sub, "one-more");
    }

    /** Another instance's handle names nothing here: a link is never made across instances. */
    @Test
    void aHandleOfAnotherInstanceIsStale() throws Exception {
        try (MemoryVfs other = new MemoryVfs(1 << 20)) {
            FileHandle elsewhere = other.create(other.root(), "f", org.rpcrdma4j.nfs.CreateMode.GUARDED,
                    org.rpcrdma4j.nfs.SetAttributes.NONE, 0).handle();
            assertStatus(() -> vfs.link(elsewhere, root, "f"), Nfs3Status.NFS3ERR_STALE);
        }
    }
}
