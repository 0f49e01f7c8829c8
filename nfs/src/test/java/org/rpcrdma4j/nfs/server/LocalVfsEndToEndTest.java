package org.rpcrdma4j.nfs.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.FileType;
import org.rpcrdma4j.nfs.NfsTime;
import org.rpcrdma4j.nfs.SetAttributes;
import org.rpcrdma4j.nfs.vfs.LocalVfs;
import org.rpcrdma4j.nfs.vfs.Vfs;

class LocalVfsEndToEndTest extends AbstractNfsEndToEndTest {
    @Override
    protected Vfs newVfs(Path dir) throws IOException {
        return LocalVfs.open(dir);
    }

    /** mknod(2) of a device needs root. */
    @Override
    protected boolean makesDevices() {
        return new com.sun.security.auth.module.UnixSystem().getUid() == 0;
    }

    /**
     * What MKNOD makes is a FIFO on the host, and a FIFO made on the host takes a new mode and times through the
     * server (which must not open it: that would wait for a writer).
     */
    @Test
    void fifosAreTheHostsOwn(TestInfo info) throws Exception {
        String d = dir(info);
        FileHandle dh = nfs.resolve(d);
        Path host = temp.resolve("export" + d);
        nfs.mknod(dh, "made", FileType.FIFO, 0, 0);
        assertThat(hostMode(host.resolve("made")) & 0170000).as("S_IFIFO").isEqualTo(0010000);

        Process mkfifo = new ProcessBuilder("mkfifo", host.resolve("local").toString()).inheritIO().start();
        assertThat(mkfifo.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(mkfifo.exitValue()).isZero();
        FileHandle local = nfs.lookup(dh, "local").handle();
        NfsTime then = new NfsTime(1_234_567_890L, 5);
        nfs.setattr(local, SetAttributes.NONE.withMode(0604).withMtime(SetAttributes.TimeSetting.client(then)));
        assertThat(hostMode(host.resolve("local")) & 07777).isEqualTo(0604);
        assertThat(Files.getLastModifiedTime(host.resolve("local"), LinkOption.NOFOLLOW_LINKS))
                .isEqualTo(FileTime.from(Instant.ofEpochSecond(1_234_567_890L, 5)));
    }

    private static int hostMode(Path p) throws IOException {
        return (Integer) Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS);
    }
}
