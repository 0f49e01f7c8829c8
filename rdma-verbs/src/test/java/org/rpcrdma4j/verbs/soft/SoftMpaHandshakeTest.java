package org.rpcrdma4j.verbs.soft;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.verbs.AcceptParameters;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.ConnectParameters;
import org.rpcrdma4j.verbs.ConnectionEventType;
import org.rpcrdma4j.verbs.ConnectionInfo;
import org.rpcrdma4j.verbs.ConnectionRequest;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.RdmaListener;
import org.rpcrdma4j.verbs.RdmaProviders;
import org.rpcrdma4j.verbs.RegisteredMemory;
import org.rpcrdma4j.verbs.WcStatus;
import org.rpcrdma4j.verbs.WorkCompletion;
import org.rpcrdma4j.verbs.conformance.VerbsFixture;
import org.rpcrdma4j.verbs.soft.wire.Ddp;
import org.rpcrdma4j.verbs.soft.wire.MpaFrame;
import org.rpcrdma4j.verbs.soft.wire.Rdmap;

/**
 * The MPA handshake against a hand-driven peer: the exact bytes the device sends as initiator and responder, what
 * it accepts, what it refuses, and that a listener survives junk and bare connects.
 */
@Timeout(60)
class SoftMpaHandshakeTest extends VerbsFixture {
    private static final HexFormat HEX = HexFormat.of();

    @Override
    protected RdmaDevice newDevice() throws Exception {
        return RdmaProviders.select("soft").open(Map.of("handshakeTimeoutMs", "400", "confirmPlacement", "true"));
    }

    @Override
    protected RdmaDevice newPeerDevice() {
        return device;
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void initiatorSendsItsRequestAtOnceThenTheReadyToReceiveFrame() throws Exception {
        Endpoint client = endpoint(device, Sizes.defaults());
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<ConnectionInfo> connected = device.connectionManager().connect(client.qp,
                    (InetSocketAddress) server.getLocalSocketAddress(), new ConnectParameters(ascii("abc"), 7, 5),
                    client.events);
            try (RawPeer peer = new RawPeer(server.accept())) {
                RawPeer.Frame request = peer.readFrame(false);
                assertThat(request.header().flags()).isEqualTo(MpaFrame.FLAG_ENHANCED);
                assertThat(request.header().revision()).isEqualTo(2);
                assertThat(HEX.formatHex(request.privateData())).isEqualTo("00070005" + "616263");
                assertThat(peer.quietFor(200)).as("nothing before the reply").isTrue();
                peer.write(MpaFrame.encode(true, MpaFrame.FLAG_ENHANCED, 2,
                        MpaFrame.enhancedPrivateData(3, 4, ascii("xy"))));
                ConnectionInfo info = connected.get(WAIT.toSeconds(), TimeUnit.SECONDS);
                assertThat(info.privateData()).isEqualTo(ascii("xy"));
                assertThat(info.ord()).as("our ORD is at most the peer's IRD").isEqualTo(3);
                assertThat(info.ird()).isEqualTo(4);
                assertThat(HEX.formatHex(peer.readFpdu())).as("zero-length RDMA Write to STag 1")
                        .isEqualTo("c140" + "00000001" + "0000000000000000");

                RegisteredMemory src = register(client.pd, 64, Access.LOCAL_WRITE);
                src.buffer().put(0, ascii("hello"));
                client.qp.postSend(send(1, src, 0, 5));
                assertThat(HEX.formatHex(peer.readFpdu())).isEqualTo("4143" + "00000000" + "00000000" + "00000001"
                        + "00000000" + "68656c6c6f");
                byte[] probe = peer.readFpdu();
                assertThat(HEX.formatHex(probe)).as("zero-length Read Request confirming placement")
                        .isEqualTo("4141" + "00000000" + "00000001" + "00000001" + "00000000" + "00000001"
                                + "0000000000000000" + "00000000" + "00000001" + "0000000000000000");
                assertThat(drain(client.sendCq)).as("no completion before the peer confirmed").isEmpty();
                peer.answerZeroLengthRead(probe);
                assertThat(await(client.sendCq).status).isEqualTo(WcStatus.SUCCESS);
            }
        }
    }

    /**
     * Linux siw sometimes answers a zero-length placement probe with a Read Response carrying stale bytes. The device
     * drops them, takes the response as the confirmation and keeps the connection: no Terminate, the Send completes,
     * and the next message from the peer lands where it should.
     */
    @Test
    void aProbeAnsweredWithBytesStillConfirmsPlacementAndTheConnectionLives() throws Exception {
        for (boolean withCrc : new boolean[] {false, true}) {
            try (RdmaDevice d = RdmaProviders.select("soft").open(Map.of("crc", Boolean.toString(withCrc),
                    "wakeResponder", "false", "confirmPlacement", "true"))) {
                Endpoint client = endpoint(d, Sizes.defaults());
                try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                    CompletableFuture<ConnectionInfo> connected = d.connectionManager().connect(client.qp,
                            (InetSocketAddress) server.getLocalSocketAddress(), new ConnectParameters(new byte[0], 1, 1),
                            client.events);
                    try (RawPeer peer = new RawPeer(server.accept())) {
                        peer.readFrame(false);
                        peer.write(MpaFrame.encode(true, MpaFrame.FLAG_ENHANCED | (withCrc ? MpaFrame.FLAG_CRC : 0),
                                2, MpaFrame.enhancedPrivateData(1, 1, new byte[0])));
                        peer.crc = withCrc;
                        connected.get(WAIT.toSeconds(), TimeUnit.SECONDS);
                        assertThat(RawPeer.opcode(peer.readFpdu())).as("ready-to-receive").isEqualTo(Rdmap.WRITE);
                        RegisteredMemory mem = register(client.pd, 64, Access.LOCAL_WRITE);
                        client.qp.postRecv(recv(7, mem, 32, 32));
                        mem.buffer().put(0, ascii("ping"));
                        client.qp.postSend(send(1, mem, 0, 4));
                        assertThat(RawPeer.opcode(peer.readFpdu())).isEqualTo(Rdmap.SEND);
                        byte[] probe = peer.readFpdu();
                        assertThat(RawPeer.opcode(probe)).isEqualTo(Rdmap.READ_REQUEST);
                        java.nio.ByteBuffer p = java.nio.ByteBuffer.wrap(probe);
                        assertThat(p.getInt(Rdmap.OFFSET_READ_SIZE)).as("a zero-length probe").isZero();
                        byte[] stale = HEX.parseHex("90d3c3010000000100000080000000000000000000000000");
                        peer.sendFpdu(RawPeer.tagged(true, Rdmap.READ_RESPONSE, p.getInt(Rdmap.OFFSET_SINK_STAG),
                                p.getLong(Rdmap.OFFSET_SINK_TO), stale));
                        WorkCompletion sent = await(client.sendCq);
                        assertThat(sent.status).isEqualTo(WcStatus.SUCCESS);
                        peer.sendFpdu(RawPeer.untagged(true, Rdmap.SEND, 0, Ddp.QN_SEND, 1, 0, ascii("pong")));
                        WorkCompletion received = await(client.recvCq);
                        assertThat(received.status).isEqualTo(WcStatus.SUCCESS);
                        assertThat(bytes(mem.buffer(), 32, 4)).isEqualTo(ascii("pong"));
                        assertThat(bytes(mem.buffer(), 4, 24)).as("the stale bytes were placed nowhere")
                                .containsOnly(0);
                        assertThat(peer.quietFor(300)).as("no Terminate").isTrue();
                    }
                }
            }
        }
    }

    @Test
    void withoutTheReadyToReceiveFrameTheInitiatorsFirstFpduIsItsFirstRequest() throws Exception {
        try (RdmaDevice quiet = RdmaProviders.select("soft").open(Map.of("readyToReceive", "false",
                "confirmPlacement", "false"))) {
            Endpoint client = endpoint(quiet, Sizes.defaults());
            try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                CompletableFuture<ConnectionInfo> connected = quiet.connectionManager().connect(client.qp,
                        (InetSocketAddress) server.getLocalSocketAddress(), new ConnectParameters(new byte[0], 1, 1),
                        client.events);
                try (RawPeer peer = new RawPeer(server.accept())) {
                    peer.readFrame(false);
                    peer.write(MpaFrame.encode(true, MpaFrame.FLAG_ENHANCED, 2, MpaFrame.enhancedPrivateData(1, 1,
                            new byte[0])));
                    connected.get(WAIT.toSeconds(), TimeUnit.SECONDS);
                    RegisteredMemory src = register(client.pd, 64, Access.LOCAL_WRITE);
                    client.qp.postSend(send(1, src, 0, 3));
                    assertThat(RawPeer.opcode(peer.readFpdu())).isEqualTo(Rdmap.SEND);
                }
            }
        }
    }

    /**
     * Linux siw as responder sends its MPA Reply before it takes the socket over; FPDUs arriving in between stay unread
     * until more data comes. The peer here plays that: it reads the initiator's first request but does not answer
     * until something more arrives. The initiator, still without any FPDU from the responder, sends a zero-length
     * Write after a short wait; once the responder has spoken, no more.
     */
    @Test
    void anInitiatorWakesAResponderThatMissedItsFirstRequest() throws Exception {
        Endpoint client = endpoint(device, Sizes.defaults());
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<ConnectionInfo> connected = device.connectionManager().connect(client.qp,
                    (InetSocketAddress) server.getLocalSocketAddress(), new ConnectParameters(new byte[0], 1, 0),
                    client.events);
            try (RawPeer peer = new RawPeer(server.accept())) {
                peer.readFrame(false);
                peer.write(MpaFrame.encode(true, MpaFrame.FLAG_ENHANCED, 2,
                        MpaFrame.enhancedPrivateData(0, 1, new byte[0])));
                connected.get(WAIT.toSeconds(), TimeUnit.SECONDS);
                String zeroLengthWrite = "c140" + "00000001" + "0000000000000000";
                assertThat(HEX.formatHex(peer.readFpdu())).as("ready-to-receive").isEqualTo(zeroLengthWrite);
                RegisteredMemory mem = register(client.pd, 64, Access.LOCAL_WRITE);
                client.qp.postRecv(recv(7, mem, 32, 32));
                mem.buffer().put(0, ascii("ping"));
                client.qp.postSend(send(1, mem, 0, 4));
                assertThat(RawPeer.opcode(peer.readFpdu())).as("the first request").isEqualTo(Rdmap.SEND);
                // the "responder" missed it; what comes next wakes it
                assertThat(HEX.formatHex(peer.readFpdu())).as("the wake-up").isEqualTo(zeroLengthWrite);
                peer.sendFpdu(RawPeer.untagged(true, Rdmap.SEND, 0, Ddp.QN_SEND, 1, 0, ascii("pong")));
                WorkCompletion wc = await(client.recvCq);
                assertThat(wc.status).isEqualTo(WcStatus.SUCCESS);
                assertThat(bytes(mem.buffer(), 32, 4)).isEqualTo(ascii("pong"));
                assertThat(peer.quietFor(400)).as("no wake-up once the responder has spoken").isTrue();
            }
        }
    }

    @Test
    void withoutWakeResponderTheInitiatorWaitsQuietlyForItsAnswer() throws Exception {
        try (RdmaDevice patient = RdmaProviders.select("soft").open(Map.of("wakeResponder", "false",
                "confirmPlacement", "true"))) {
            Endpoint client = endpoint(patient, Sizes.defaults());
            try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                CompletableFuture<ConnectionInfo> connected = patient.connectionManager().connect(client.qp,
                        (InetSocketAddress) server.getLocalSocketAddress(), new ConnectParameters(new byte[0], 1, 0),
                        client.events);
                try (RawPeer peer = new RawPeer(server.accept())) {
                    peer.readFrame(false);
                    peer.write(MpaFrame.encode(true, MpaFrame.FLAG_ENHANCED, 2,
                            MpaFrame.enhancedPrivateData(0, 1, new byte[0])));
                    connected.get(WAIT.toSeconds(), TimeUnit.SECONDS);
                    assertThat(RawPeer.opcode(peer.readFpdu())).as("ready-to-receive").isEqualTo(Rdmap.WRITE);
                    RegisteredMemory mem = register(client.pd, 64, Access.LOCAL_WRITE);
                    client.qp.postSend(send(1, mem, 0, 4));
                    assertThat(RawPeer.opcode(peer.readFpdu())).isEqualTo(Rdmap.SEND);
                    assertThat(peer.quietFor(400)).isTrue();
                }
            }
        }
    }

    @Test
    void crcIsRequestedWhenConfigured() throws Exception {
        try (RdmaDevice crcDevice = RdmaProviders.select("soft").open(Map.of("crc", "true", "mpaRevision", "1",
                "confirmPlacement", "true"))) {
            Endpoint client = endpoint(crcDevice, Sizes.defaults());
            try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                CompletableFuture<ConnectionInfo> connected = crcDevice.connectionManager().connect(client.qp,
                        (InetSocketAddress) server.getLocalSocketAddress(), new ConnectParameters(ascii("q"), 1, 1),
                        client.events);
                try (RawPeer peer = new RawPeer(server.accept())) {
                    RawPeer.Frame request = peer.readFrame(false);
                    assertThat(request.header().flags()).isEqualTo(MpaFrame.FLAG_CRC);
                    assertThat(request.header().revision()).isEqualTo(1);
                    assertThat(request.privateData()).isEqualTo(ascii("q"));
                    peer.write(MpaFrame.encode(true, MpaFrame.FLAG_CRC, 1, new byte[0]));
                    connected.get(WAIT.toSeconds(), TimeUnit.SECONDS);
                    peer.crc = true;
                    assertThat(peer.readFpdu()).hasSize(Ddp.TAGGED_HEADER_LENGTH);
                }
            }
        }
    }

    @Test
    void responderHoldsItsSendsUntilTheInitiatorsFirstFpdu() throws Exception {
        Endpoint server = endpoint(device, Sizes.defaults());
        RdmaListener listener = own(device.connectionManager().listen(listenAddress(),
                request -> accept(request, server, ascii("ok"), 2, 2)));
        try (RawPeer peer = RawPeer.connect(listener.localAddress())) {
            peer.write(MpaFrame.encode(false, MpaFrame.FLAG_ENHANCED, 2,
                    MpaFrame.enhancedPrivateData(2, 6, ascii("hi"))));
            RawPeer.Frame reply = peer.readFrame(true);
            assertThat(reply.header().flags()).isEqualTo(MpaFrame.FLAG_ENHANCED);
            assertThat(reply.header().revision()).isEqualTo(2);
            assertThat(HEX.formatHex(reply.privateData())).isEqualTo("00020002" + "6f6b");
            server.events.await(ConnectionEventType.ESTABLISHED);
            assertThat(server.qp.connectionInfo().privateData()).isEqualTo(ascii("hi"));
            RegisteredMemory src = register(server.pd, 64, Access.LOCAL_WRITE);
            src.buffer().put(0, ascii("data"));
            server.qp.postSend(send(1, src, 0, 4));
            assertThat(peer.quietFor(300)).isTrue();
            peer.sendFpdu(RawPeer.tagged(true, Rdmap.WRITE, 1, 0, new byte[0]));
            byte[] sendFpdu = peer.readFpdu();
            assertThat(RawPeer.opcode(sendFpdu)).isEqualTo(Rdmap.SEND);
            assertThat(HEX.formatHex(sendFpdu)).endsWith("64617461");
            peer.answerZeroLengthRead(peer.readFpdu());
            assertThat(await(server.sendCq).status).isEqualTo(WcStatus.SUCCESS);
        }
    }

    private static void accept(ConnectionRequest request, Endpoint server, byte[] pd, int ird, int ord) {
        try {
            request.accept(server.qp, new AcceptParameters(pd, ird, ord), server.events);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void peerToPeerRequestIsEchoedAndAReadReadyToReceiveIsAnswered() throws Exception {
        Endpoint server = endpoint(device, Sizes.defaults());
        RdmaListener listener = own(device.connectionManager().listen(listenAddress(),
                request -> accept(request, server, new byte[0], 4, 4)));
        try (RawPeer peer = RawPeer.connect(listener.localAddress())) {
            peer.write(MpaFrame.encode(false, MpaFrame.FLAG_ENHANCED, 2,
                    MpaFrame.enhancedPrivateData(MpaFrame.IRD_PEER_TO_PEER | 2, MpaFrame.ORD_READ_RTR | 2,
                            new byte[0])));
            RawPeer.Frame reply = peer.readFrame(true);
            ByteBuffer pd = ByteBuffer.wrap(reply.privateData());
            assertThat(pd.getShort(0) & 0xFFFF).isEqualTo(MpaFrame.IRD_PEER_TO_PEER | 4);
            assertThat(pd.getShort(2) & 0xFFFF).as("Read RTR chosen, ORD capped by our IRD of 2")
                    .isEqualTo(MpaFrame.ORD_READ_RTR | 2);
            peer.sendFpdu(RawPeer.readRequest(1, 1, 0, 0, 1, 0));
            assertThat(HEX.formatHex(peer.readFpdu())).as("zero-length Read Response")
                    .isEqualTo("c142" + "00000001" + "0000000000000000");
        }
    }

    @Test
    void revisionOneRequestIsAcceptedWithoutIrdOrd() throws Exception {
        Endpoint server = endpoint(device, Sizes.defaults());
        CompletableFuture<ConnectionRequest> seen = new CompletableFuture<>();
        RdmaListener listener = own(device.connectionManager().listen(listenAddress(), request -> {
            seen.complete(request);
            accept(request, server, ascii("def"), 2, 2);
        }));
        try (RawPeer peer = RawPeer.connect(listener.localAddress())) {
            peer.write(MpaFrame.encode(false, 0, 1, ascii("abc")));
            RawPeer.Frame reply = peer.readFrame(true);
            assertThat(reply.header().revision()).isEqualTo(1);
            assertThat(reply.header().flags()).isZero();
            assertThat(reply.privateData()).isEqualTo(ascii("def"));
            ConnectionRequest request = seen.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(request.privateData()).isEqualTo(ascii("abc"));
            assertThat(request.responderResources()).isZero();
            assertThat(request.initiatorDepth()).isZero();
            RegisteredMemory inbox = register(server.pd, 64, Access.LOCAL_WRITE);
            server.events.await(ConnectionEventType.ESTABLISHED);
            server.qp.postRecv(recv(1, inbox, 0, 64));
            peer.sendFpdu(RawPeer.untagged(true, Rdmap.SEND, 0, Ddp.QN_SEND, 1, 0, ascii("rev1")));
            assertThat(await(server.recvCq).byteLen).isEqualTo(4);
            assertThat(bytes(inbox.buffer(), 0, 4)).isEqualTo(ascii("rev1"));
        }
    }

    @Test
    void markersAreRejected() throws Exception {
        Endpoint server = endpoint(device, Sizes.defaults());
        RdmaListener listener = own(device.connectionManager().listen(listenAddress(),
                request -> accept(request, server, new byte[0], 1, 1)));
        try (RawPeer peer = RawPeer.connect(listener.localAddress())) {
            peer.write(MpaFrame.encode(false, MpaFrame.FLAG_MARKERS | MpaFrame.FLAG_ENHANCED, 2,
                    MpaFrame.enhancedPrivateData(1, 1, new byte[0])));
            RawPeer.Frame reply = peer.readFrame(true);
            assertThat(reply.header().rejected()).isTrue();
            assertThat(reply.header().markers()).isFalse();
            assertThat(reply.privateData()).isEmpty();
            assertThat(peer.closedByPeer()).isTrue();
        }
    }

    @Test
    void listenerSurvivesJunkBareConnectsAndSilence() throws Exception {
        Endpoint server = endpoint(device, Sizes.defaults());
        RdmaListener listener = own(device.connectionManager().listen(listenAddress(),
                request -> accept(request, server, new byte[0], 1, 1)));
        try (RawPeer junk = RawPeer.connect(listener.localAddress())) {
            junk.write(ascii("GET / HTTP/1.0\r\nHost: nfs\r\n\r\n"));
            assertThat(junk.closedByPeer()).as("junk closes that socket").isTrue();
        }
        RawPeer.connect(listener.localAddress()).close();
        try (RawPeer silent = RawPeer.connect(listener.localAddress())) {
            assertThat(silent.closedByPeer()).as("silence ends at the handshake timeout").isTrue();
        }
        try (RawPeer partial = RawPeer.connect(listener.localAddress())) {
            partial.write(ascii("MPA ID Req Fr"));
            assertThat(partial.closedByPeer()).isTrue();
        }
        Endpoint client = endpoint(device, Sizes.defaults());
        ConnectionInfo info = device.connectionManager().connect(client.qp, listener.localAddress(),
                new ConnectParameters(new byte[0], 1, 1), client.events).get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(info).as("the listener still works").isNotNull();
    }

    @Test
    void requestNeitherAcceptedNorRejectedTimesOut() throws Exception {
        RdmaListener listener = own(device.connectionManager().listen(listenAddress(), request -> {
        }));
        try (RawPeer peer = RawPeer.connect(listener.localAddress())) {
            peer.write(MpaFrame.encode(false, MpaFrame.FLAG_ENHANCED, 2, MpaFrame.enhancedPrivateData(1, 1,
                    new byte[0])));
            assertThat(peer.closedByPeer()).isTrue();
        }
    }
}
