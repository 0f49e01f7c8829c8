package org.rpcrdma4j.nfs.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.nfs.vfs.MemoryVfs;

/**
 * When {@link NfsServer#close()} returns its ports are free: a connection is refused at once, and another server may
 * bind them. oncrpc4j's own stop returns before NIO has closed a listening socket its selector still holds.
 */
@Timeout(120)
class NfsServerCloseTest {
    private static final int CYCLES = 30;

    @Test
    void closeReturnsWithItsPortsFree() throws Exception {
        InetAddress loopback = InetAddress.getByName("127.0.0.1");
        try (MemoryVfs vfs = new MemoryVfs(1 << 20)) {
            for (int i = 0; i < CYCLES; i++) {
                NfsServer server = NfsServer.builder().bindAddress("127.0.0.1").port(0).portmap(0)
                        .export("/m", vfs).build().start();
                int port = server.port();
                int portmap = server.portmapPort();
                try (Socket client = new Socket(loopback, port)) {
                    assertThat(client.isConnected()).isTrue();
                    server.close();
                }
                assertThat(accepts(port)).as("cycle %d: NFS port %d refuses connections", i, port).isFalse();
                assertThat(accepts(portmap)).as("cycle %d: portmap port %d refuses connections", i, portmap)
                        .isFalse();
                try (ServerSocket again = new ServerSocket()) {
                    again.setReuseAddress(true);
                    again.bind(new InetSocketAddress(loopback, port));
                }
            }
        }
    }

    /**
     * A portmapper whose UDP port is taken fails the start, and leaves nothing listening: oncrpc4j has bound its TCP
     * port by then, which the failed start must close too.
     */
    @Test
    void aFailedStartLeavesNoListener() throws Exception {
        try (MemoryVfs vfs = new MemoryVfs(1 << 20);
             DatagramSocket taken = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0))) {
            int port = taken.getLocalPort();
            NfsServer server = NfsServer.builder().bindAddress("127.0.0.1").port(0).portmap(port).export("/m", vfs)
                    .build();
            assertThatThrownBy(server::start).isInstanceOf(IOException.class);
            assertThat(accepts(port)).as("the portmapper's TCP port %d", port).isFalse();
        }
    }

    private static boolean accepts(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
            return true;
        } catch (IOException refused) {
            return false;
        }
    }
}
