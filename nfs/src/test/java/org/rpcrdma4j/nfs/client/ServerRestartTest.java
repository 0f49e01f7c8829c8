package org.rpcrdma4j.nfs.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.Nfs3Status;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.nfs.StableHow;
import org.rpcrdma4j.nfs.server.NfsServer;
import org.rpcrdma4j.nfs.testing.Bytes;
import org.rpcrdma4j.nfs.vfs.LocalVfs;
import org.rpcrdma4j.nfs.vfs.MemoryVfs;
import org.rpcrdma4j.nfs.vfs.Vfs;

/**
 * Restarts of the embedded server under a mounted client: the client reconnects, LocalVfs handles stay valid, and
 * unstable data the restart lost is detected by the changed write verifier and written again.
 */
@Timeout(60)
class ServerRestartTest {
    @TempDir
    Path dir;

    private NfsServer server;
    private NfsClient client;

    @AfterEach
    void stop() throws IOException {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private void start(Vfs vfs, int port) throws IOException {
        for (int attempt = 0; ; attempt++) {
            try {
                server = NfsServer.builder().bindAddress("127.0.0.1").port(port).export("/export", vfs).build()
                        .start();
                return;
            } catch (java.net.BindException e) {
                if (port == 0 || attempt >= 100) { // the old listener's socket may close a moment after stop
                    throw e;
                }
                try {
                    Thread.sleep(50);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    private void restart(Vfs vfs) throws IOException {
        int port = server.port();
        server.close();
        start(vfs, port);
    }

    private void mount() throws IOException {
        client = NfsClient.mount("tcp://127.0.0.1:" + server.port() + "/export");
    }

    @Test
    void localHandlesSurviveARestartOnTheSameDirectory() throws IOException {
        start(LocalVfs.open(dir), 0);
        mount();
        client.mkdir("/a");
        client.mkdir("/a/b");
        FileHandle fh = client.createFile("/a/b/f");
        client.write(fh, 0, Unpooled.wrappedBuffer("hello".getBytes()), StableHow.FILE_SYNC);

        restart(LocalVfs.open(dir)); // a new instance: empty handle index, new write verifier
        assertThat(client.getattr(fh).size()).isEqualTo(5);
        assertThat(client.readAll("/a/b/f")).isEqualTo("hello".getBytes());
        // and a handle made before the restart for an object renamed by someone else in between
        Files.move(dir.resolve("a/b"), dir.resolve("moved"));
        restart(LocalVfs.open(dir));
        assertThat(client.getattr(fh).size()).isEqualTo(5);
        Files.delete(dir.resolve("moved/f"));
        restart(LocalVfs.open(dir));
        assertThatThrownBy(() -> client.getattr(fh)).isInstanceOfSatisfying(NfsException.class,
                e -> assertThat(e.status()).isEqualTo(Nfs3Status.NFS3ERR_STALE));
    }

    @Test
    void memoryHandlesAreStaleAfterARestart() throws IOException {
        start(new MemoryVfs(), 0);
        mount();
        FileHandle fh = client.createFile("/f");
        restart(new MemoryVfs());
        assertThatThrownBy(() -> client.getattr(fh)).isInstanceOfSatisfying(NfsException.class,
                e -> assertThat(e.status()).isEqualTo(Nfs3Status.NFS3ERR_STALE));
    }

    /** The server "crashes": its unstable data never reached the disk, so the file is left as it was before. */
    private void crashLosingUnstableData(Path file, int size) throws IOException {
        int port = server.port();
        server.close();
        Files.write(file, new byte[size]); // what stable storage held: the file's size was set, no data
        start(LocalVfs.open(dir), port);
    }

    private static UnstableWriter.Source from(byte[] data) {
        return (offset, length, dst) -> dst.writeBytes(data, (int) offset, length);
    }

    @Test
    void dataLostBetweenWriteAndCommitIsResent() throws IOException {
        start(LocalVfs.open(dir), 0);
        mount();
        byte[] data = Bytes.random(3 * 1024 * 1024 + 123, 3);
        FileHandle fh = client.createFile("/f");
        UnstableWriter writer = client.unstableWriter(fh, from(data));
        int chunk = 256 * 1024;
        int ranges = 0;
        for (int off = 0; off < data.length; off += chunk) {
            writer.write(off, Math.min(chunk, data.length - off));
            ranges++;
        }
        writer.flush();
        crashLosingUnstableData(dir.resolve("f"), data.length);

        long verifier = writer.commit();
        assertThat(writer.resends()).isEqualTo(ranges);
        assertThat(verifier).isEqualTo(((LocalVfs) server.exports().byPath("/export").vfs()).writeVerifier());
        assertThat(Files.readAllBytes(dir.resolve("f"))).isEqualTo(data);
    }

    @Test
    void aVerifierChangeBetweenWritesResendsOnlyWhatWasLost() throws IOException {
        start(LocalVfs.open(dir), 0);
        mount();
        byte[] data = Bytes.random(2 * 1024 * 1024, 4);
        int half = data.length / 2;
        FileHandle fh = client.createFile("/f");
        UnstableWriter writer = client.unstableWriter(fh, from(data));
        writer.write(0, half);
        writer.flush();
        crashLosingUnstableData(dir.resolve("f"), 0);
        writer.write(half, data.length - half); // goes to the restarted server (after a reconnect)
        writer.commit();
        assertThat(writer.resends()).isEqualTo(1);
        assertThat(Files.readAllBytes(dir.resolve("f"))).isEqualTo(data);
    }

    @Test
    void anUploadAcrossNoRestartResendsNothing() throws IOException {
        start(LocalVfs.open(dir), 0);
        mount();
        Path src = dir.resolve("../src-" + System.nanoTime());
        Bytes.writeRandomFile(src, 5_000_000, 9);
        client.upload(src, "/up");
        assertThat(Files.readAllBytes(dir.resolve("up"))).isEqualTo(Files.readAllBytes(src));
        Files.delete(src);
    }
}
