package org.rpcrdma4j.nfs.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.emc.ecs.nfsclient.nfs.io.Nfs3File;
import com.emc.ecs.nfsclient.nfs.io.NfsFileInputStream;
import com.emc.ecs.nfsclient.nfs.io.NfsFileOutputStream;
import com.emc.ecs.nfsclient.nfs.nfs3.Nfs3;
import com.emc.ecs.nfsclient.rpc.CredentialUnix;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.rpcrdma4j.nfs.testing.Bytes;
import org.rpcrdma4j.nfs.vfs.LocalVfs;
import org.rpcrdma4j.testsupport.RequiredPeer;

/**
 * An independent NFSv3 client (EMC's nfs-client for Java) against our embedded server over TCP: it mounts, makes
 * directories, writes, reads back, lists and removes, and the bytes on the server's disk are compared too.
 * <p>
 * That client always asks portmap on port 111 of the server's host for the MOUNT and NFS ports, so the server is
 * bound to a random loopback address (127.x.y.z: Linux routes all of 127/8 to the loopback device) with our minimal
 * portmapper on port 111 of that address; parallel builds on one machine do not collide. Binding port 111 needs
 * root (or a lowered {@code net.ipv4.ip_unprivileged_port_start}); where it is refused the test is skipped (in CI
 * it fails: {@link RequiredPeer}).
 */
@Timeout(120)
class EmcClientInteropTest {
    @TempDir
    Path dir;

    private NfsServer server;

    @AfterEach
    void stop() throws IOException {
        if (server != null) {
            server.close();
        }
    }

    private String startServer() throws IOException {
        IOException last = null;
        for (int attempt = 0; attempt < 5; attempt++) {
            ThreadLocalRandom r = ThreadLocalRandom.current();
            String host = "127." + r.nextInt(1, 255) + "." + r.nextInt(0, 256) + "." + r.nextInt(2, 255);
            NfsServer s = NfsServer.builder().bindAddress(host).port(0).portmap(111)
                    .export("/export", LocalVfs.open(dir)).build();
            try {
                s.start();
                server = s;
                return host;
            } catch (IOException e) {
                last = e;
            }
        }
        RequiredPeer.require("EMC's NFS client", "cannot bind a portmapper on port 111 of a loopback address: " + last);
        return null;
    }

    @Test
    void emcClientMountsWritesReadsListsAndRemoves() throws Exception {
        String host = startServer();
        Nfs3 nfs3 = new Nfs3(host, "/export", new CredentialUnix(0, 0, null), 3);
        assertThat(nfs3.getRootFileHandle()).isEqualTo(server.exports().byPath("/export").rootHandle()
                .toByteArray());

        Nfs3File d = nfs3.newFile("/interop");
        d.mkdirs();
        assertThat(d.isDirectory()).isTrue();

        byte[] data = Bytes.random(300_000, 11);
        Nfs3File f = nfs3.newFile("/interop/data.bin");
        try (OutputStream out = new NfsFileOutputStream(f)) {
            out.write(data);
        }
        assertThat(f.exists()).isTrue();
        assertThat(f.lengthEx()).isEqualTo(data.length);
        assertThat(Files.readAllBytes(dir.resolve("interop/data.bin"))).isEqualTo(data);

        ByteArrayOutputStream back = new ByteArrayOutputStream();
        try (InputStream in = new NfsFileInputStream(f)) {
            in.transferTo(back);
        }
        assertThat(back.toByteArray()).isEqualTo(data);

        Files.writeString(dir.resolve("interop/from-server.txt"), "written on the server");
        assertThat(d.list()).containsExactlyInAnyOrder("data.bin", "from-server.txt");

        Nfs3File renamed = nfs3.newFile("/interop/renamed.bin");
        assertThat(f.renameTo(renamed)).isTrue();
        assertThat(Files.exists(dir.resolve("interop/renamed.bin"))).isTrue();

        renamed.delete();
        nfs3.newFile("/interop/from-server.txt").delete();
        assertThat(d.list()).isEmpty();
        d.delete();
        assertThat(Files.exists(dir.resolve("interop"))).isFalse();
        assertThat(nfs3.newFile("/interop").exists()).isFalse();
    }
}
