package org.rpcrdma4j.nfs.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.rpcrdma4j.nfs.client.v4.GatedVfs;
import org.rpcrdma4j.nfs.server.NfsServer;
import org.rpcrdma4j.nfs.vfs.MemoryVfs;
import org.rpcrdma4j.nfs.vfs.ReadResult;

/**
 * The NFSv3 client's copies of a file end with {@link EmptyReadException} at a READ within the file that returns no
 * data and no end of file, as the NFSv4.1 client's do: nothing can be read past it, and nothing is made up.
 */
@Timeout(60)
class EmptyReadTest {
    @TempDir
    Path tmp;

    private final GatedVfs vfs = new GatedVfs(new MemoryVfs(16 << 20));
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

    @Test
    void aReadOfNothingBeforeTheEndFailsReadAllAndDownloadTyped() throws Exception {
        server = NfsServer.builder().bindAddress("127.0.0.1").port(0).export("/export", vfs).build().start();
        client = NfsClient.mount("tcp://127.0.0.1:" + server.port() + "/export?vers=3");
        int chunk = NfsClientConfig.defaults().chunkSize();
        byte[] data = new byte[3 * chunk - 100];
        Arrays.fill(data, (byte) 7);
        Path source = tmp.resolve("source");
        Files.write(source, data);
        client.upload(source, "/short");

        vfs.readsAt.put((long) chunk, new ReadResult(0, false));
        assertThatThrownBy(() -> client.readAll("/short"))
                .isInstanceOfSatisfying(EmptyReadException.class, e -> assertThat(e.offset()).isEqualTo(chunk));
        vfs.readsAt.put((long) chunk, new ReadResult(0, false));
        assertThatThrownBy(() -> client.download("/short", tmp.resolve("copy")))
                .isInstanceOfSatisfying(EmptyReadException.class, e -> assertThat(e.offset()).isEqualTo(chunk));

        assertThat(client.readAll("/short")).isEqualTo(data);
    }
}
