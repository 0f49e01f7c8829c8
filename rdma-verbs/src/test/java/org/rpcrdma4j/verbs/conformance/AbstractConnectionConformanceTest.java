package org.rpcrdma4j.verbs.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.verbs.AcceptParameters;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.ConnectException;
import org.rpcrdma4j.verbs.ConnectParameters;
import org.rpcrdma4j.verbs.ConnectionEventType;
import org.rpcrdma4j.verbs.ConnectionInfo;
import org.rpcrdma4j.verbs.ConnectionRequest;
import org.rpcrdma4j.verbs.QpState;
import org.rpcrdma4j.verbs.RdmaListener;
import org.rpcrdma4j.verbs.RegisteredMemory;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.WcStatus;
import org.rpcrdma4j.verbs.WorkCompletion;

/**
 * Connection management: private data and read depths both ways, reject, refused/unreachable/timed-out connects,
 * orderly and abrupt disconnects from either side (DISCONNECTED exactly once, everything flushed), and many
 * connections at once.
 */
@Timeout(120)
public abstract class AbstractConnectionConformanceTest extends VerbsFixture {
    private static final int REMOTE = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ;

    /**
     * An address nothing answers: in the IPv6 discard-only prefix (RFC 6666), so there is either no route or the
     * SYNs go unanswered until the resolve timeout. (Documentation prefixes like 192.0.2.0/24 are real networks in
     * some sandboxes.)
     */
    protected InetSocketAddress unreachableAddress() {
        return new InetSocketAddress("100::1", 20049);
    }

    /**
     * The host of the plain TCP ports the refused and silent-peer tests aim at: the loopback address by default; a
     * device that reaches only the addresses of its interfaces (any RDMA device) names one of those.
     */
    protected InetAddress tcpPeerHost() {
        return InetAddress.getLoopbackAddress();
    }

    /**
     * Whether private data arrives padded: over InfiniBand and RoCE the connection manager hands over the whole
     * private-data space of its message, the bytes sent followed by zeros.
     */
    protected boolean privateDataPadded() {
        return false;
    }

    /** Asserts that {@code sent} arrived as {@code received} (followed by zeros where {@link #privateDataPadded()}). */
    protected void assertPrivateData(byte[] received, byte[] sent) {
        if (!privateDataPadded()) {
            assertThat(received).isEqualTo(sent);
            return;
        }
        assertThat(received.length).as("padded private data").isGreaterThanOrEqualTo(sent.length);
        assertThat(java.util.Arrays.copyOf(received, sent.length)).isEqualTo(sent);
        assertThat(java.util.Arrays.copyOfRange(received, sent.length, received.length)).as("the padding")
                .containsOnly((byte) 0);
    }

    @Test
    void privateDataAndReadDepthsTravelBothWays() throws Exception {
        assumeTrue(privateDataTravels(), "the provider delivers no private data");
        Endpoint client = endpoint(device, Sizes.defaults());
        Endpoint server = endpoint(peerDevice, Sizes.defaults());
        byte[] hello = "hello from the client".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        byte[] welcome = new byte[device.attributes().maxPrivateData()];
        for (int i = 0; i < welcome.length; i++) {
            welcome[i] = (byte) (i * 7);
        }
        CompletableFuture<ConnectionRequest> requested = new CompletableFuture<>();
        RdmaListener listener = own(peerDevice.connectionManager().listen(listenAddress(), requested::complete));
        CompletableFuture<ConnectionInfo> connected = device.connectionManager().connect(client.qp,
                listener.localAddress(), new ConnectParameters(hello, 5, 3), client.events);
        ConnectionRequest request = requested.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertPrivateData(request.privateData(), hello);
        if (iwarp()) {
            assertThat(request.responderResources()).isEqualTo(5);
            assertThat(request.initiatorDepth()).isEqualTo(3);
        }
        assertThat(request.localAddress().getPort()).isEqualTo(listener.localAddress().getPort());
        request.accept(server.qp, new AcceptParameters(welcome, 4, 2), server.events);
        ConnectionInfo info = connected.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertPrivateData(info.privateData(), welcome);
        assertThat(info.ord()).isBetween(1, 3);
        assertThat(info.remoteAddress().getPort()).isEqualTo(listener.localAddress().getPort());
        server.events.await(ConnectionEventType.ESTABLISHED);
        ConnectionInfo serverInfo = server.qp.connectionInfo();
        assertPrivateData(serverInfo.privateData(), hello);
        assertThat(serverInfo.ord()).isBetween(1, 2);
        assertThat(client.qp.state()).isEqualTo(QpState.RTS);
        assertThat(server.qp.state()).isEqualTo(QpState.RTS);
    }

    @Test
    void rejectCarriesPrivateData() throws Exception {
        Endpoint client = endpoint(device, Sizes.defaults());
        byte[] why = {1, 2, 3, 4, 5};
        RdmaListener listener = own(peerDevice.connectionManager().listen(listenAddress(), r -> r.reject(why)));
        CompletableFuture<ConnectionInfo> connected = device.connectionManager().connect(client.qp,
                listener.localAddress(), new ConnectParameters(new byte[0], 1, 1), client.events);
        assertThatThrownBy(() -> connected.get(WAIT.toSeconds(), TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause().isInstanceOfSatisfying(ConnectException.class, e -> {
                    assertThat(e.type()).isEqualTo(ConnectionEventType.REJECTED);
                    if (privateDataTravels()) {
                        assertPrivateData(e.privateData(), why);
                    }
                });
        assertThat(client.qp.state()).isNotEqualTo(QpState.RTS);
    }

    @Test
    void connectToAPortNobodyListensOnIsRefused() throws Exception {
        Endpoint client = endpoint(device, Sizes.defaults());
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, tcpPeerHost())) {
            port = s.getLocalPort();
        }
        CompletableFuture<ConnectionInfo> connected = device.connectionManager().connect(client.qp,
                new InetSocketAddress(tcpPeerHost(), port),
                new ConnectParameters(new byte[0], 1, 1), client.events);
        assertConnectFails(connected, ConnectionEventType.REJECTED);
    }

    @Test
    void connectToAnUnreachableAddressFailsWithinTheResolveTimeout() throws Exception {
        Endpoint client = endpoint(device, Sizes.defaults());
        CompletableFuture<ConnectionInfo> connected = device.connectionManager().connect(client.qp,
                unreachableAddress(), new ConnectParameters(new byte[0], 1, 1, Duration.ofMillis(500),
                        Duration.ofMillis(500)), client.events);
        assertConnectFails(connected, ConnectionEventType.UNREACHABLE);
    }

    @Test
    void connectTimesOutWhenThePeerNeverAnswersTheHandshake() throws Exception {
        assumeTrue(iwarp(), "a silent TCP listener is a meaningful peer only for iWARP");
        Endpoint client = endpoint(device, Sizes.defaults());
        try (ServerSocket silent = new ServerSocket(0, 1, tcpPeerHost())) {
            silent.setSoTimeout((int) WAIT.toMillis()); // hang guard: accept() ignores interrupts
            CompletableFuture<ConnectionInfo> connected = device.connectionManager().connect(client.qp,
                    new InetSocketAddress(tcpPeerHost(), silent.getLocalPort()),
                    new ConnectParameters(new byte[0], 1, 1, Duration.ofSeconds(5), Duration.ofMillis(300)),
                    client.events);
            Socket accepted;
            try {
                accepted = silent.accept();
            } catch (java.net.SocketTimeoutException e) {
                throw new AssertionError("the connect never reached the listener; it ended with "
                        + connected.handle((info, failure) -> info != null ? info : failure).getNow(null), e);
            }
            try (accepted) {
                accepted.setSoTimeout((int) WAIT.toMillis());
                assertConnectFails(connected, ConnectionEventType.CONNECT_ERROR);
                assertThat(accepted.getInputStream().readNBytes(16)).as("the MPA Request was sent at once")
                        .isEqualTo("MPA ID Req Frame".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            }
        }
    }

    private static void assertConnectFails(CompletableFuture<ConnectionInfo> connected, ConnectionEventType type) {
        assertThatThrownBy(() -> connected.get(WAIT.toSeconds(), TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause().isInstanceOfSatisfying(ConnectException.class, e -> assertThat(e.type()).isEqualTo(type));
    }

    @Test
    void queuePairConnectsOnlyOnce() throws Exception {
        Connection c = connect();
        CompletableFuture<ConnectionInfo> again = device.connectionManager().connect(c.client().qp,
                c.server().info.localAddress(), new ConnectParameters(new byte[0], 1, 1), c.client().events);
        assertConnectFails(again, ConnectionEventType.CONNECT_ERROR);
        assertThat(c.client().qp.state()).isEqualTo(QpState.RTS);
    }

    @Test
    void disconnectByTheClientFlushesBothSides() throws Exception {
        disconnectFlushesBothSides(true);
    }

    @Test
    void disconnectByTheServerFlushesBothSides() throws Exception {
        disconnectFlushesBothSides(false);
    }

    private void disconnectFlushesBothSides(boolean byClient) throws Exception {
        Connection c = connect();
        RegisteredMemory a = register(c.client().pd, 4096, REMOTE);
        RegisteredMemory b = register(c.server().pd, 4096, REMOTE);
        c.client().qp.postRecv(recv(1, a, 0, 1024));
        c.server().qp.postRecv(recv(2, b, 0, 1024));
        c.client().qp.postSend(write(3, a, 0, 64, b.rkey(), b.address(0)));
        assertThat(await(c.client().sendCq).status).isEqualTo(WcStatus.SUCCESS);
        Endpoint active = byClient ? c.client() : c.server();
        active.qp.disconnect();
        active.qp.disconnect();
        assertThat(awaitWrId(c.client().recvCq, 1).status).isEqualTo(WcStatus.WR_FLUSH_ERR);
        assertThat(awaitWrId(c.server().recvCq, 2).status).isEqualTo(WcStatus.WR_FLUSH_ERR);
        assertBroken(c);
    }

    @Test
    void closingAQueuePairDisconnectsThePeer() throws Exception {
        Connection c = connect();
        RegisteredMemory b = register(c.server().pd, 4096, REMOTE);
        c.server().qp.postRecv(recv(2, b, 0, 1024));
        c.client().qp.close();
        assertThat(c.client().qp.state()).isEqualTo(QpState.CLOSED);
        c.server().events.await(ConnectionEventType.DISCONNECTED);
        assertThat(awaitWrId(c.server().recvCq, 2).status).isEqualTo(WcStatus.WR_FLUSH_ERR);
        assertThatThrownBy(() -> c.client().qp.postSend(send(5, b, 0, 1)))
                .as("a closed queue pair takes no requests").isInstanceOf(VerbsException.class);
    }

    @Test
    void peerDeviceGoingAwayBreaksTheConnection() throws Exception {
        assumeTrue(peerDevice != device, "needs a separate peer device");
        Connection c = connect();
        RegisteredMemory a = register(c.client().pd, 4096, REMOTE);
        c.client().qp.postRecv(recv(1, a, 0, 64));
        peerDevice.close();
        c.server().events.await(ConnectionEventType.DEVICE_REMOVAL);
        c.client().events.await(ConnectionEventType.DISCONNECTED);
        assertThat(awaitWrId(c.client().recvCq, 1).status).isEqualTo(WcStatus.WR_FLUSH_ERR);
        c.client().qp.postSend(send(2, a, 0, 8));
        assertThat(awaitWrId(c.client().sendCq, 2).status).isEqualTo(WcStatus.WR_FLUSH_ERR);
        assertThat(c.client().events.count(ConnectionEventType.DISCONNECTED)).isEqualTo(1);
        assertThat(peerDevice.resourceCounts().isEmpty()).as("a closed device releases everything").isTrue();
    }

    @Test
    void closedListenerTakesNoMoreConnections() throws Exception {
        Endpoint client = endpoint(device, Sizes.defaults());
        RdmaListener listener = peerDevice.connectionManager().listen(listenAddress(), r -> r.reject(null));
        InetSocketAddress address = listener.localAddress();
        listener.close();
        CompletableFuture<ConnectionInfo> connected = device.connectionManager().connect(client.qp, address,
                new ConnectParameters(new byte[0], 1, 1), client.events);
        assertConnectFails(connected, ConnectionEventType.REJECTED);
    }

    @Test
    void manyQueuePairsInParallel() throws Exception {
        int n = 64;
        int size = 64 * 1024;
        Sizes sizes = new Sizes(8, 8, 2, 0, 32);
        LinkedBlockingQueue<ConnectionRequest> requests = new LinkedBlockingQueue<>();
        RdmaListener listener = own(peerDevice.connectionManager().listen(listenAddress(), requests::add));
        List<Endpoint> clients = new ArrayList<>();
        List<CompletableFuture<ConnectionInfo>> futures = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Endpoint client = endpoint(device, sizes);
            clients.add(client);
            futures.add(device.connectionManager().connect(client.qp, listener.localAddress(),
                    new ConnectParameters(new byte[] {(byte) i}, 4, 4), client.events));
        }
        List<Endpoint> accepted = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ConnectionRequest request = requests.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(request).as("connection request " + i).isNotNull();
            Endpoint server = endpoint(peerDevice, sizes);
            accepted.add(server);
            byte[] echo = privateDataTravels() ? java.util.Arrays.copyOf(request.privateData(), 1) : new byte[0];
            request.accept(server.qp, new AcceptParameters(echo, 4, 4), server.events);
        }
        for (int i = 0; i < n; i++) {
            ConnectionInfo info = futures.get(i).get(WAIT.toSeconds(), TimeUnit.SECONDS);
            if (privateDataTravels()) {
                assertPrivateData(info.privateData(), new byte[] {(byte) i});
            }
        }
        // pair each client with the server endpoint that accepted it: by the connection's addresses
        Endpoint[] servers = new Endpoint[n];
        for (Endpoint server : accepted) {
            server.events.await(ConnectionEventType.ESTABLISHED);
            java.net.InetSocketAddress peer = server.qp.connectionInfo().remoteAddress();
            for (int i = 0; i < n; i++) {
                if (clients.get(i).qp.connectionInfo().localAddress().equals(peer)) {
                    assertThat(servers[i]).as("one server endpoint per client").isNull();
                    servers[i] = server;
                }
            }
        }
        assertThat(servers).as("every client paired with its server endpoint").doesNotContainNull();
        List<RegisteredMemory> sources = new ArrayList<>();
        List<RegisteredMemory> sinks = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            RegisteredMemory src = register(clients.get(i).pd, size, REMOTE);
            RegisteredMemory sink = register(servers[i].pd, size + 64, REMOTE);
            fill(src.buffer(), 1000 + i);
            sources.add(src);
            sinks.add(sink);
            servers[i].qp.postRecv(recv(i, sink, size, 64));
        }
        for (int i = 0; i < n; i++) {
            SendWorkRequest w = write(i, sources.get(i), 0, size, sinks.get(i).rkey(), sinks.get(i).address(0));
            w.flags = 0;
            clients.get(i).qp.postSend(chain(w, send(1000 + i, sources.get(i), 0, 64)));
        }
        for (int i = 0; i < n; i++) {
            WorkCompletion r = await(servers[i].recvCq);
            assertThat(r.status).isEqualTo(WcStatus.SUCCESS);
            assertThat(bytes(sinks.get(i).buffer(), 0, size)).as("connection " + i)
                    .isEqualTo(bytes(sources.get(i).buffer(), 0, size));
            assertThat(await(clients.get(i).sendCq).wrId).isEqualTo(1000 + i);
        }
    }

    @Test
    void eventsAreDeliveredOncePerConnection() throws Exception {
        Connection c = connect();
        c.client().qp.disconnect();
        c.server().events.await(ConnectionEventType.DISCONNECTED);
        c.client().events.await(ConnectionEventType.DISCONNECTED);
        c.server().qp.disconnect();
        c.client().qp.close();
        c.server().qp.close();
        List<ConnectionEventType> clientSeen = c.client().events.seen();
        List<ConnectionEventType> serverSeen = c.server().events.seen();
        assertThat(clientSeen).filteredOn(t -> t == ConnectionEventType.DISCONNECTED).hasSize(1);
        assertThat(serverSeen).containsExactly(ConnectionEventType.ESTABLISHED, ConnectionEventType.DISCONNECTED);
    }
}
