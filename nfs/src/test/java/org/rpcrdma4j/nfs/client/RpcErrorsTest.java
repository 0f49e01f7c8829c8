package org.rpcrdma4j.nfs.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.dcache.oncrpc4j.xdr.XdrVoid;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.nfs.server.NfsServer;
import org.rpcrdma4j.nfs.vfs.MemoryVfs;
import org.rpcrdma4j.nfs.xdr.GetattrRes;
import org.rpcrdma4j.nfs.xdr.MountStatus;
import org.rpcrdma4j.nfs.xdr.Nfs3;
import org.rpcrdma4j.nfs.xdr.WriteRes;

/** RPC-level failures become their own exception types; hostile arguments get GARBAGE_ARGS, never a crash. */
@Timeout(60)
class RpcErrorsTest {
    private static NfsServer server;
    private static TcpDataTransport transport;

    @BeforeAll
    static void start() throws IOException {
        server = NfsServer.builder().bindAddress("127.0.0.1").port(0).export("/m", new MemoryVfs(1 << 20)).build()
                .start();
        transport = TcpDataTransport.connect(server.address(), NfsClientConfig.defaults());
    }

    @AfterAll
    static void stop() throws IOException {
        transport.close();
        server.close();
    }

    /** Arguments written word by word, whatever they mean. */
    private static XdrAble raw(int... words) {
        return new XdrAble() {
            @Override
            public void xdrDecode(XdrDecodingStream xdr) {
                throw new UnsupportedOperationException();
            }

            @Override
            public void xdrEncode(XdrEncodingStream xdr) {
                for (int w : words) {
                    xdr.xdrEncodeInt(w);
                }
            }
        };
    }

    private static Throwable failureOf(CompletableFuture<?> f) {
        assertThatThrownBy(f::get).isInstanceOf(ExecutionException.class);
        try {
            f.get();
            throw new AssertionError("no failure");
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    private static void assertNotAccepted(CompletableFuture<?> f, AcceptStatus status) {
        assertThat(failureOf(f)).isInstanceOfSatisfying(RpcNotAcceptedException.class,
                e -> assertThat(e.acceptStatus()).isEqualTo(status));
    }

    @Test
    void unknownProceduresVersionsAndPrograms() {
        assertNotAccepted(transport.call(Nfs3.PROGRAM, 3, 22, XdrVoid.XDR_VOID, XdrVoid.XDR_VOID),
                AcceptStatus.PROC_UNAVAIL);
        assertNotAccepted(transport.call(Nfs3.PROGRAM, 4, 7, XdrVoid.XDR_VOID, XdrVoid.XDR_VOID),
                AcceptStatus.PROC_UNAVAIL); // NFSv4 is served: NULL and COMPOUND only
        assertNotAccepted(transport.call(Nfs3.PROGRAM, 2, 0, XdrVoid.XDR_VOID, XdrVoid.XDR_VOID),
                AcceptStatus.PROG_MISMATCH);
        assertNotAccepted(transport.call(100099, 1, 0, XdrVoid.XDR_VOID, XdrVoid.XDR_VOID),
                AcceptStatus.PROG_UNAVAIL);
    }

    @Test
    void hostileArgumentsAreGarbage() throws Exception {
        List<XdrAble> hostile = new ArrayList<>();
        hostile.add(raw(65)); // a file handle longer than 64 bytes
        hostile.add(raw(-1)); // a file handle of 4 GiB
        hostile.add(raw(0, 0, 0, 16, 0, 0x7FFFFFFF)); // WRITE data of 2 GiB - 1 (length arithmetic overflows)
        hostile.add(raw(0, 0, 0, 16, 7, 0)); // WRITE with stable_how 7
        hostile.add(raw(0, 0, 0, 0x7FFFFFFF, 0, 0x7FFFFFFD)); // count and length near 2^31
        for (XdrAble args : hostile) {
            assertNotAccepted(transport.call(Nfs3.PROGRAM, 3, Nfs3.WRITE, args, new WriteRes()),
                    AcceptStatus.GARBAGE_ARGS);
        }
        assertNotAccepted(transport.call(Nfs3.PROGRAM, 3, Nfs3.LOOKUP, raw(0, 100_000), new GetattrRes()),
                AcceptStatus.GARBAGE_ARGS); // a name of 100 kB
        assertNotAccepted(transport.call(Nfs3.PROGRAM, 3, Nfs3.LOOKUP, raw(0, 2, 0xC3280000), new GetattrRes()),
                AcceptStatus.GARBAGE_ARGS); // a name that is not UTF-8
        assertNotAccepted(transport.call(Nfs3.PROGRAM, 3, Nfs3.GETATTR, raw(4), new GetattrRes()),
                AcceptStatus.GARBAGE_ARGS); // truncated
        assertNotAccepted(transport.call(Nfs3.PROGRAM, 3, Nfs3.READDIRPLUS, raw(0, 0, 0, 0, 0, -1),
                new GetattrRes()), AcceptStatus.GARBAGE_ARGS); // truncated after huge counts
        // the server is still fine
        transport.call(Nfs3.PROGRAM, 3, Nfs3.NULL, XdrVoid.XDR_VOID, XdrVoid.XDR_VOID).get();
    }

    @Test
    @SuppressWarnings("try") // the transport is closed inside its try on purpose: pending calls must then fail
    void aServerThatNeverAnswersTimesOut() throws Exception {
        try (ServerSocket silent = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            List<Socket> accepted = new ArrayList<>();
            Thread acceptor = new Thread(() -> {
                try {
                    accepted.add(silent.accept());
                } catch (IOException e) {
                    // closed
                }
            });
            acceptor.start();
            try (TcpDataTransport t = TcpDataTransport.connect(
                    new InetSocketAddress(silent.getInetAddress(), silent.getLocalPort()),
                    NfsClientConfig.defaults().withCallTimeout(Duration.ofMillis(300)))) {
                assertThat(failureOf(t.call(Nfs3.PROGRAM, 3, 0, XdrVoid.XDR_VOID, XdrVoid.XDR_VOID)))
                        .isInstanceOf(RpcTimeoutException.class);
                CompletableFuture<XdrVoid> pending = t.call(Nfs3.PROGRAM, 3, 0, XdrVoid.XDR_VOID, XdrVoid.XDR_VOID);
                t.close();
                assertThat(failureOf(pending)).isInstanceOf(RpcConnectionException.class);
            }
            acceptor.join();
            for (Socket s : accepted) {
                s.close();
            }
        }
    }

    @Test
    void nobodyListening() throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        assertThatThrownBy(() -> TcpDataTransport.connect(new InetSocketAddress("127.0.0.1", port),
                NfsClientConfig.defaults())).isInstanceOf(RpcConnectionException.class);
        assertThatThrownBy(() -> NfsClient.mount("tcp://127.0.0.1:" + port + "/m"))
                .isInstanceOf(RpcConnectionException.class);
    }

    @Test
    void mountingWhatIsNotExported() {
        assertThatThrownBy(() -> NfsClient.mount("tcp://127.0.0.1:" + server.port() + "/nope"))
                .isInstanceOfSatisfying(MountException.class,
                        e -> assertThat(e.status()).isEqualTo(MountStatus.MNT3ERR_ACCES));
    }

    @Test
    void mountProcedures() throws IOException {
        MountClient mount = new MountClient(transport);
        assertThat(mount.exports()).extracting(e -> e.path()).containsExactly("/m");
        mount.mount("/m/");
        assertThat(mount.dump()).extracting(m -> m.path()).contains("/m");
        mount.unmount("/m");
    }

    @Test
    void anUnknownSchemeNamesWhatIsMissing() {
        assertThatThrownBy(() -> NfsClient.mount("sctp://127.0.0.1:" + server.port() + "/m?mountport="
                + server.port())).isInstanceOf(IOException.class).hasMessageContaining("sctp");
    }

    @Test
    void rdmaToAPortThatSpeaksNoRdmaFailsWithinTheConnectTimeout() {
        // the NFS server's TCP port answers no MPA handshake: the RDMA connect must give up, not hang
        NfsClientConfig config = NfsClientConfig.defaults().withConnectTimeout(java.time.Duration.ofSeconds(1));
        assertThatThrownBy(() -> NfsClient.mount("rdma://127.0.0.1:" + server.port() + "/m?mountport="
                + server.port(), config)).isInstanceOf(IOException.class).hasMessageContaining("rdma");
    }
}
