package org.rpcrdma4j.nfs.vfs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rpcrdma4j.nfs.CreateMode;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.SetAttributes;

/** {@link LocalVfs} keeps the whole mode a client sets, setuid, setgid and sticky included. */
class LocalVfsModeTest {
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

    private int modeOnDisk(String name) throws Exception {
        return (Integer) Files.getAttribute(export.resolve(name), "unix:mode", LinkOption.NOFOLLOW_LINKS) & 07777;
    }

    @Test
    void setattrKeepsSetuidSetgidAndSticky() throws Exception {
        FileHandle tmp = vfs.mkdir(vfs.root(), "tmp", SetAttributes.NONE).handle();
        FileHandle tool = vfs.create(vfs.root(), "tool", CreateMode.GUARDED, SetAttributes.NONE, 0).handle();
        FileHandle shared = vfs.create(vfs.root(), "shared", CreateMode.GUARDED, SetAttributes.NONE, 0).handle();

        assertThat(vfs.setattr(tmp, SetAttributes.NONE.withMode(01777), null).mode()).isEqualTo(01777);
        assertThat(vfs.setattr(tool, SetAttributes.NONE.withMode(04755), null).mode()).isEqualTo(04755);
        assertThat(vfs.setattr(shared, SetAttributes.NONE.withMode(02755), null).mode()).isEqualTo(02755);

        assertThat(vfs.getattr(tmp).mode()).isEqualTo(01777);
        assertThat(vfs.getattr(tool).mode()).isEqualTo(04755);
        assertThat(vfs.getattr(shared).mode()).isEqualTo(02755);
        assertThat(modeOnDisk("tmp")).isEqualTo(01777);
        assertThat(modeOnDisk("tool")).isEqualTo(04755);
        assertThat(modeOnDisk("shared")).isEqualTo(02755);

        assertThat(vfs.setattr(tool, SetAttributes.NONE.withMode(0640), null).mode()).as("bits taken away too")
                .isEqualTo(0640);
    }

    @Test
    void mkdirAndCreateKeepTheSpecialBitsTheyAreGiven() throws Exception {
        assertThat(vfs.mkdir(vfs.root(), "group", SetAttributes.NONE.withMode(02775)).attributes().mode())
                .isEqualTo(02775);
        assertThat(modeOnDisk("group")).isEqualTo(02775);
        assertThat(vfs.create(vfs.root(), "suid", CreateMode.UNCHECKED, SetAttributes.NONE.withMode(04711), 0)
                .attributes().mode()).isEqualTo(04711);
        assertThat(modeOnDisk("suid")).isEqualTo(04711);
    }
}
