package org.rpcrdma4j.nfs.vfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rpcrdma4j.nfs.vfs.LocalVfsConfinementTest.assertStatus;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.nfs.CreateMode;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.Nfs3Status;
import org.rpcrdma4j.nfs.SetAttributes;

/** An EXCLUSIVE CREATE of {@link MemoryVfs} succeeds again only for its own resend. */
class MemoryVfsExclusiveCreateTest {
    private final MemoryVfs vfs = new MemoryVfs();

    @Test
    void aVerifierOfZeroMatchesNoFileThatWasNotCreatedExclusively() throws Exception {
        vfs.create(vfs.root(), "unchecked", CreateMode.UNCHECKED, SetAttributes.NONE, 0);
        vfs.create(vfs.root(), "guarded", CreateMode.GUARDED, SetAttributes.NONE, 0);
        for (String name : new String[] {"unchecked", "guarded"}) {
            assertStatus(() -> vfs.create(vfs.root(), name, CreateMode.EXCLUSIVE, SetAttributes.NONE, 0),
                    Nfs3Status.NFS3ERR_EXIST);
        }
    }

    @Test
    void aResendWithTheSameVerifierGetsTheSameFileAndAnotherVerifierDoesNot() throws Exception {
        for (long verifier : new long[] {0, 0x1234_5678_9abc_def0L}) {
            String name = "x" + verifier;
            FileHandle made = vfs.create(vfs.root(), name, CreateMode.EXCLUSIVE, SetAttributes.NONE, verifier)
                    .handle();
            assertThat(vfs.create(vfs.root(), name, CreateMode.EXCLUSIVE, SetAttributes.NONE, verifier).handle())
                    .isEqualTo(made);
            assertStatus(() -> vfs.create(vfs.root(), name, CreateMode.EXCLUSIVE, SetAttributes.NONE, verifier + 1),
                    Nfs3Status.NFS3ERR_EXIST);
        }
    }
}
