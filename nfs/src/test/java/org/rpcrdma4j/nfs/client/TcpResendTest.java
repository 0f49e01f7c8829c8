package org.rpcrdma4j.nfs.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.dcache.oncrpc4j.xdr.XdrVoid;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.nfs.xdr.Nfs3;

/**
 * A call whose connection is lost before its reply is sent again on a new connection with the xid it had, so that
 * the server's duplicate request cache can answer it with the reply of its first execution, whichever way the
 * connection ended; once the transport closes, it fails instead.
 */
@Timeout(60)
class TcpResendTest {

    /**
     * A server that reads one call on its first connection and ends that connection without answering (reset, or
     * an orderly close), and answers every call on later connections with an empty accepted reply.
     */
    private static final class DroppingServer implements AutoCloseable {
        final ServerSocket socket = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
        final List<Integer> xids = new CopyOnWriteArrayList<>();
        final Thread thread;

        DroppingServer(boolean reset) throws IOException {
            thread = new Thread(() -> serve(reset), "dropping-server");
            thread.setDaemon(true);
            thread.start();
        }

        private void serve(boolean reset) {
            try {
                for (int connection = 0; ; connection++) {
                    Socket s = socket.accept();
                    DataInputStream in = new DataInputStream(s.getInputStream());
                    if (connection == 0) {
                        xids.add(readCall(in));
                        if (reset) {
                            s.setSoLinger(true, 0);
                        }
                        s.close();
                        continue;
                    }
                    Thread answer = new Thread(() -> answer(s, in));
                    answer.setDaemon(true);
                    answer.start();
                }
            } catch (IOException e) {
                // closed
            }
        }

        private void answer(Socket s, DataInputStream in) {
            try (s) {
                DataOutputStream out = new DataOutputStream(s.getOutputStream());
                while (true) {
                    int xid = readCall(in);
                    xids.add(xid);
                    out.writeInt(0x80000000 | 24);
                    out.writeInt(xid);
                    out.writeInt(1); // REPLY
                    out.writeInt(0); // MSG_ACCEPTED
                    out.writeInt(0); // verifier: AUTH_NONE
                    out.writeInt(0);
                    out.writeInt(0); // SUCCESS
                    out.flush();
                }
            } catch (IOException e) {
                // the client went
            }
        }

        private static int readCall(DataInputStream in) throws IOException {
            int mark = in.readInt();
            byte[] record = new byte[mark & 0x7fffffff];
            in.readFully(record);
            return ((record[0] & 0xff) << 24) | ((record[1] & 0xff) << 16) | ((record[2] & 0xff) << 8)
                    | (record[3] & 0xff);
        }

        InetSocketAddress address() {
            return new InetSocketAddress(socket.getInetAddress(), socket.getLocalPort());
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    private static void assertSentAgainWithItsXid(boolean reset) throws Exception {
        try (DroppingServer server = new DroppingServer(reset);
             TcpDataTransport t = TcpDataTransport.connect(server.address(),
                     NfsClientConfig.defaults().withCallTimeout(Duration.ofSeconds(40)))) {
            t.call(Nfs3.PROGRAM, 3, 0, XdrVoid.XDR_VOID, XdrVoid.XDR_VOID).get(40, TimeUnit.SECONDS);

            assertThat(server.xids).hasSize(2);
            assertThat(server.xids.get(1)).as("the xid of the call sent again").isEqualTo(server.xids.get(0));
        }
    }

    @Test
    void aCallWhoseConnectionIsResetIsSentAgainWithItsXid() throws Exception {
        assertSentAgainWithItsXid(true);
    }

    @Test
    void aCallWhoseConnectionIsClosedIsSentAgainWithItsXid() throws Exception {
        assertSentAgainWithItsXid(false);
    }

    /**
     * close() shuts the retries down after a call whose connection failed found the transport open: that call, whose
     * xid close() no longer sees, fails instead of waiting for good, and so does the other call of the connection.
     */
    @Test
    void callsWhoseConnectionFailsAsTheTransportClosesFail() throws Exception {
        ScheduledExecutorService retries = Executors.newSingleThreadScheduledExecutor();
        retries.shutdown(); // what close() has done by then
        try (ServerSocket server = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
             TcpDataTransport t = TcpDataTransport.connect(
                     new InetSocketAddress(server.getInetAddress(), server.getLocalPort()),
                     NfsClientConfig.defaults().withCallTimeout(Duration.ofSeconds(40)), retries)) {
            Socket accepted = server.accept();
            List<CompletableFuture<XdrVoid>> calls;
            try {
                calls = List.of(t.call(Nfs3.PROGRAM, 3, 0, XdrVoid.XDR_VOID, XdrVoid.XDR_VOID),
                        t.call(Nfs3.PROGRAM, 3, 0, XdrVoid.XDR_VOID, XdrVoid.XDR_VOID));
                DataInputStream in = new DataInputStream(accepted.getInputStream());
                DroppingServer.readCall(in);
                DroppingServer.readCall(in);
            } finally {
                accepted.close();
            }
            for (CompletableFuture<XdrVoid> call : calls) {
                assertThatThrownBy(() -> call.get(40, TimeUnit.SECONDS)).cause()
                        .isInstanceOf(RpcConnectionException.class).hasMessageContaining("is closed");
            }
        }
    }
}
