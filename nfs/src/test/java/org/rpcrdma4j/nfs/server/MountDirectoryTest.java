package org.rpcrdma4j.nfs.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.nfs.DirEntry;
import org.rpcrdma4j.nfs.StableHow;
import org.rpcrdma4j.nfs.client.MountException;
import org.rpcrdma4j.nfs.client.NfsClient;
import org.rpcrdma4j.nfs.client.NfsMount;
import org.rpcrdma4j.nfs.client.NfsMounts;
import org.rpcrdma4j.nfs.vfs.MemoryVfs;
import org.rpcrdma4j.nfs.xdr.MountStatus;

/**
 * MNT as Linux's mountd answers it: a directory within an export is mounted (its handle, the export's rules), a path
 * no export holds is MNT3ERR_ACCES whether or not it exists, a missing directory within an export MNT3ERR_NOENT, a
 * file MNT3ERR_NOTDIR, and "." or ".." in the path MNT3ERR_ACCES. NFSv4 mounts such a directory too.
 */
@Timeout(60)
class MountDirectoryTest {
    private static NfsServer server;
    private static MemoryVfs vfs;

    @BeforeAll
    static void start() throws IOException {
        vfs = new MemoryVfs(1 << 20);
        server = NfsServer.builder().bindAddress("127.0.0.1").port(0).export("/m", vfs).build().start();
        try (NfsClient c = NfsClient.mount(url("/m"))) {
            c.mkdir("/d");
            c.mkdir("/d/e");
            write(c, "/d/e/f", "inside".getBytes(StandardCharsets.UTF_8));
        }
    }

    @AfterAll
    static void stop() throws IOException {
        server.close();
        vfs.close();
    }

    private static void write(NfsClient c, String path, byte[] data) throws IOException {
        c.write(c.createFile(path), 0, Unpooled.wrappedBuffer(data), StableHow.FILE_SYNC);
    }

    private static String url(String path) {
        return "tcp://127.0.0.1:" + server.port() + path;
    }

    @Test
    void aDirectoryWithinTheExportIsMountedAtThatDirectory() throws IOException {
        try (NfsClient c = NfsClient.mount(url("/m/d/e/"))) {
            assertThat(c.list("/")).extracting(DirEntry::name).containsExactly("f");
            assertThat(new String(c.readAll("/f"), StandardCharsets.UTF_8)).isEqualTo("inside");
            write(c, "/g", new byte[] {7});
        }
        try (NfsClient c = NfsClient.mount(url("/m"))) {
            assertThat(c.readAll("/d/e/g")).containsExactly(7);
        }
    }

    /** NFSv4 has no MOUNT: the client walks the server's namespace to the directory with LOOKUPs. */
    @Test
    void nfs4MountsADirectoryWithinTheExportToo() throws IOException {
        for (String version : new String[] {"4.1", "4.2"}) {
            try (NfsMount m = NfsMounts.mount(url("/m/d/e?vers=" + version))) {
                assertThat(m.version()).isEqualTo(version);
                assertThat(m.list("/")).as("NFSv%s", version).extracting(DirEntry::name).contains("f");
            }
        }
    }

    @Test
    void whatCannotBeMountedIsRefusedAsLinuxRefusesIt() {
        assertStatus("/nope", MountStatus.MNT3ERR_ACCES);
        assertStatus("/mx", MountStatus.MNT3ERR_ACCES);
        assertStatus("/m/nope", MountStatus.MNT3ERR_NOENT);
        assertStatus("/m/d/nope/e", MountStatus.MNT3ERR_NOENT);
        assertStatus("/m/d/e/f", MountStatus.MNT3ERR_NOTDIR);
        assertStatus("/m/d/..", MountStatus.MNT3ERR_ACCES);
        assertStatus("/m/./d", MountStatus.MNT3ERR_ACCES);
    }

    private static void assertStatus(String path, MountStatus status) {
        assertThatThrownBy(() -> NfsClient.mount(url(path))).as(path)
                .isInstanceOfSatisfying(MountException.class, e -> assertThat(e.status()).isEqualTo(status));
    }
}
