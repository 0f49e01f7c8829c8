package org.rpcrdma4j.verbs.soft;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.rpcrdma4j.verbs.AcceptParameters;
import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.ConnectParameters;
import org.rpcrdma4j.verbs.ConnectionEventType;
import org.rpcrdma4j.verbs.ConnectionInfo;
import org.rpcrdma4j.verbs.FastRegMemoryRegion;
import org.rpcrdma4j.verbs.Opcode;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.RdmaListener;
import org.rpcrdma4j.verbs.RdmaProviders;
import org.rpcrdma4j.verbs.RegisteredMemory;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.WcStatus;
import org.rpcrdma4j.verbs.WorkCompletion;
import org.rpcrdma4j.verbs.conformance.VerbsFixture;
import org.rpcrdma4j.verbs.soft.wire.Ddp;
import org.rpcrdma4j.verbs.soft.wire.Fpdu;
import org.rpcrdma4j.verbs.soft.wire.MpaFrame;
import org.rpcrdma4j.verbs.soft.wire.Rdmap;
import org.rpcrdma4j.verbs.soft.wire.Terminate;

/**
 * What the device does with FPDUs a hand-driven peer sends: odd segmentations, CRC, every sequence and protection
 * violation (with the Terminate it must answer), the IRD, a Terminate laid out as siw lays it out, and a connection
 * that ends inside an FPDU.
 */
@Timeout(60)
class SoftFpduHandlingTest extends VerbsFixture {
    private static final HexFormat HEX = HexFormat.of();
    private static final int REMOTE = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ;
    private static final long IOVA = 0x0000_7F00_5678_0000L;

    @Override
    protected RdmaDevice newDevice() throws Exception {
        return RdmaProviders.select("soft").open(Map.of("confirmPlacement", "true"));
    }

    @Override
    protected RdmaDevice newPeerDevice() {
        return device;
    }

    /** The device as responder to a raw initiator. */
    private final class Responder implements AutoCloseable {
        final Endpoint server;
        final RawPeer peer;

        Responder(boolean crc, int ird) throws Exception {
            this(device, crc, ird);
        }

        Responder(RdmaDevice on, boolean crc, int ird) throws Exception {
            server = endpoint(on, Sizes.defaults());
            RdmaListener listener = own(on.connectionManager().listen(listenAddress(), request -> {
                try {
                    request.accept(server.qp, new AcceptParameters(new byte[0], ird, 4), server.events);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }));
            peer = RawPeer.connect(listener.localAddress());
            peer.write(MpaFrame.encode(false, MpaFrame.FLAG_ENHANCED | (crc ? MpaFrame.FLAG_CRC : 0), 2,
                    MpaFrame.enhancedPrivateData(0, 8, new byte[0])));
            RawPeer.Frame reply = peer.readFrame(true);
            assertThat(reply.header().crc()).isEqualTo(crc);
            peer.crc = crc;
            server.events.await(ConnectionEventType.ESTABLISHED);
        }

        @Override
        public void close() throws java.io.IOException {
            peer.close();
        }
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    @Test
    void oddSegmentationsAndTinyTcpWritesAreReassembled() throws Exception {
        try (Responder r = new Responder(false, 4)) {
            RegisteredMemory sink = register(r.server.pd, 3000, REMOTE);
            RegisteredMemory inbox = register(r.server.pd, 5000, Access.LOCAL_WRITE);
            r.server.qp.postRecv(recv(1, inbox, 0, 5000));
            byte[] data = new byte[5000];
            fill(ByteBuffer.wrap(data), 51);
            long to = sink.address(0);
            int[] writeCuts = {0, 1, 1000, 3000};
            for (int i = 0; i + 1 < writeCuts.length; i++) {
                r.peer.sendFpdu(RawPeer.tagged(i + 2 == writeCuts.length, Rdmap.WRITE, sink.rkey(), to + writeCuts[i],
                        Arrays.copyOfRange(data, writeCuts[i], writeCuts[i + 1])), 7);
            }
            int[] sendCuts = {0, 1, 3, 6, 1003, 5000};
            for (int i = 0; i + 1 < sendCuts.length; i++) {
                r.peer.sendFpdu(RawPeer.untagged(i + 2 == sendCuts.length, Rdmap.SEND, 0, Ddp.QN_SEND, 1,
                        sendCuts[i], Arrays.copyOfRange(data, sendCuts[i], sendCuts[i + 1])), 7);
            }
            WorkCompletion wc = await(r.server.recvCq);
            assertThat(wc.status).isEqualTo(WcStatus.SUCCESS);
            assertThat(wc.byteLen).isEqualTo(5000);
            assertThat(bytes(inbox.buffer(), 0, 5000)).isEqualTo(data);
            assertThat(bytes(sink.buffer(), 0, 3000)).isEqualTo(Arrays.copyOf(data, 3000));
        }
    }

    /**
     * After an untagged segment the device reads 20 bytes of the next FPDU with its tail (a whole untagged header);
     * when the next FPDU is tagged, the 4 bytes beyond its 16-byte header are its payload, pad or CRC. Sends and
     * Writes of 0 to 7 and 100 bytes alternate in one TCP write, so every such split occurs; the bytes must land.
     */
    @ParameterizedTest(name = "crc={0}")
    @org.junit.jupiter.params.provider.ValueSource(booleans = {false, true})
    void taggedSegmentsRightAfterSendsArePlacedWhateverTheirLength(boolean crc) throws Exception {
        try (Responder r = new Responder(crc, 4)) {
            int[] lengths = {0, 1, 2, 3, 4, 5, 6, 7, 100};
            RegisteredMemory sink = register(r.server.pd, 256, REMOTE);
            RegisteredMemory inbox = register(r.server.pd, 16 * (lengths.length + 1), Access.LOCAL_WRITE);
            for (int i = 0; i <= lengths.length; i++) {
                r.server.qp.postRecv(recv(i + 1, inbox, 16 * i, 16));
            }
            byte[] expectedSink = new byte[256];
            ByteArrayOutputStream stream = new ByteArrayOutputStream();
            int at = 0;
            for (int i = 0; i < lengths.length; i++) {
                stream.writeBytes(RawPeer.fpdu(RawPeer.untagged(true, Rdmap.SEND, 0, Ddp.QN_SEND, i + 1, 0,
                        new byte[] {(byte) i, (byte) (i + 1), (byte) (i + 2)}), crc));
                byte[] payload = new byte[lengths[i]];
                for (int j = 0; j < payload.length; j++) {
                    payload[j] = (byte) (31 * i + j + 1);
                }
                System.arraycopy(payload, 0, expectedSink, at, payload.length);
                stream.writeBytes(RawPeer.fpdu(RawPeer.tagged(true, Rdmap.WRITE, sink.rkey(), sink.address(at),
                        payload), crc));
                at += payload.length;
            }
            stream.writeBytes(RawPeer.fpdu(RawPeer.untagged(true, Rdmap.SEND, 0, Ddp.QN_SEND, lengths.length + 1, 0,
                    new byte[] {9}), crc));
            r.peer.write(stream.toByteArray());
            for (int i = 0; i <= lengths.length; i++) {
                WorkCompletion wc = await(r.server.recvCq);
                assertThat(wc.status).as("receive %d", i).isEqualTo(WcStatus.SUCCESS);
                assertThat(wc.wrId).isEqualTo(i + 1);
                assertThat(wc.byteLen).isEqualTo(i < lengths.length ? 3 : 1);
            }
            for (int i = 0; i < lengths.length; i++) {
                assertThat(bytes(inbox.buffer(), 16 * i, 3)).isEqualTo(new byte[] {(byte) i, (byte) (i + 1),
                    (byte) (i + 2)});
            }
            assertThat(bytes(sink.buffer(), 0, 256)).isEqualTo(expectedSink);
            assertThat(r.server.qp.state()).isEqualTo(org.rpcrdma4j.verbs.QpState.RTS);
        }
    }

    /**
     * A header read afresh (nothing of it came with the previous segment's tail) is read 20 bytes at a time; for a
     * tagged FPDU the 4 bytes beyond its header are payload, pad or CRC. Each Write here reaches an idle socket (the
     * Send after it is awaited before the next Write goes out).
     */
    @ParameterizedTest(name = "crc={0}")
    @org.junit.jupiter.params.provider.ValueSource(booleans = {false, true})
    void taggedSegmentsReadAfreshArePlacedWhateverTheirLength(boolean crc) throws Exception {
        try (Responder r = new Responder(crc, 4)) {
            int[] lengths = {0, 1, 2, 3, 4, 5, 6, 7, 100};
            RegisteredMemory sink = register(r.server.pd, 256, REMOTE);
            RegisteredMemory inbox = register(r.server.pd, 16, Access.LOCAL_WRITE);
            byte[] expectedSink = new byte[256];
            int at = 0;
            for (int i = 0; i < lengths.length; i++) {
                r.server.qp.postRecv(recv(i + 1, inbox, 0, 16));
                byte[] payload = new byte[lengths[i]];
                for (int j = 0; j < payload.length; j++) {
                    payload[j] = (byte) (17 * i + j + 1);
                }
                System.arraycopy(payload, 0, expectedSink, at, payload.length);
                r.peer.sendFpdu(RawPeer.tagged(true, Rdmap.WRITE, sink.rkey(), sink.address(at), payload));
                r.peer.sendFpdu(RawPeer.untagged(true, Rdmap.SEND, 0, Ddp.QN_SEND, i + 1, 0, new byte[] {(byte) i}));
                WorkCompletion wc = await(r.server.recvCq);
                assertThat(wc.status).as("receive %d", i).isEqualTo(WcStatus.SUCCESS);
                assertThat(wc.byteLen).isEqualTo(1);
                at += payload.length;
                assertThat(bytes(sink.buffer(), 0, 256)).isEqualTo(expectedSink);
            }
        }
    }

    @Test
    void largestSegmentTheLengthFieldAllows() throws Exception {
        try (Responder r = new Responder(true, 4)) {
            int payload = Fpdu.MAX_ULPDU_LENGTH - Ddp.TAGGED_HEADER_LENGTH;
            RegisteredMemory sink = register(r.server.pd, payload, REMOTE);
            RegisteredMemory inbox = register(r.server.pd, 64, Access.LOCAL_WRITE);
            r.server.qp.postRecv(recv(1, inbox, 0, 64));
            byte[] data = new byte[payload];
            fill(ByteBuffer.wrap(data), 52);
            r.peer.sendFpdu(RawPeer.tagged(true, Rdmap.WRITE, sink.rkey(), sink.address(0), data));
            r.peer.sendFpdu(RawPeer.untagged(true, Rdmap.SEND, 0, Ddp.QN_SEND, 1, 0, new byte[3]));
            assertThat(await(r.server.recvCq).status).isEqualTo(WcStatus.SUCCESS);
            assertThat(bytes(sink.buffer(), 0, payload)).isEqualTo(data);
        }
    }

    @Test
    void crcMismatchIsTerminatedWithAnLlpCrcError() throws Exception {
        try (Responder r = new Responder(true, 4)) {
            RegisteredMemory inbox = register(r.server.pd, 64, Access.LOCAL_WRITE);
            r.server.qp.postRecv(recv(1, inbox, 0, 64));
            r.server.qp.postRecv(recv(2, inbox, 0, 64));
            r.peer.sendFpdu(RawPeer.untagged(true, Rdmap.SEND, 0, Ddp.QN_SEND, 1, 0, new byte[] {1, 2, 3}));
            assertThat(await(r.server.recvCq).status).isEqualTo(WcStatus.SUCCESS);
            byte[] bad = RawPeer.fpdu(RawPeer.untagged(true, Rdmap.SEND, 0, Ddp.QN_SEND, 2, 0, new byte[] {4}), true);
            bad[bad.length - 1] ^= 0x40;
            r.peer.write(bad);
            byte[] terminate = r.peer.readFpdu();
            assertThat(HEX.formatHex(terminate)).isEqualTo("4147" + "00000000" + "00000002" + "00000001"
                    + "00000000" + "20020000");
            assertThat(awaitWrId(r.server.recvCq, 2).status).isEqualTo(WcStatus.WR_FLUSH_ERR);
            r.server.events.await(ConnectionEventType.DISCONNECTED);
            assertThat(r.peer.closedByPeer()).isTrue();
        }
    }

    /** A violation: the FPDU to send and the Terminate control word the device must answer with. */
    record Violation(String name, Function<Integer, byte[]> ulpdu, int controlWord, boolean quotes) {
        @Override
        public String toString() {
            return name;
        }
    }

    static java.util.stream.Stream<Arguments> violations() {
        int md = Terminate.FLAG_M | Terminate.FLAG_D;
        return java.util.stream.Stream.of(
                new Violation("Send with MSN 2 first", stag -> RawPeer.untagged(true, Rdmap.SEND, 0, Ddp.QN_SEND, 2, 0,
                        new byte[4]), 0x1203_0000 | md, true),
                new Violation("Send starting at MO 8", stag -> RawPeer.untagged(true, Rdmap.SEND, 0, Ddp.QN_SEND, 1, 8,
                        new byte[4]), 0x1204_0000 | md, true),
                new Violation("Send on queue 1", stag -> RawPeer.untagged(true, Rdmap.SEND, 0, 1, 1, 0, new byte[4]),
                        0x1201_0000 | md, true),
                new Violation("tagged Send", stag -> RawPeer.tagged(true, Rdmap.SEND, stag, 0, new byte[4]),
                        0x0206_0000 | md, true),
                new Violation("opcode 10 (atomics)", stag -> RawPeer.untagged(true, 10, 0, 0, 1, 0, new byte[4]),
                        0x0206_0000 | md, true),
                new Violation("DDP version 0", stag -> {
                    byte[] u = RawPeer.untagged(true, Rdmap.SEND, 0, Ddp.QN_SEND, 1, 0, new byte[4]);
                    u[0] = (byte) Ddp.FLAG_LAST;
                    return u;
                }, 0x1206_0000, false),
                new Violation("RDMAP version 2", stag -> {
                    byte[] u = RawPeer.untagged(true, Rdmap.SEND, 0, Ddp.QN_SEND, 1, 0, new byte[4]);
                    u[1] = (byte) (0x80 | Rdmap.SEND);
                    return u;
                }, 0x0205_0000, false),
                new Violation("Write to an unknown STag", stag -> RawPeer.tagged(true, Rdmap.WRITE, stag + 0x100, 0,
                        new byte[4]), 0x1100_0000 | md, true),
                new Violation("Write past the end", stag -> RawPeer.tagged(true, Rdmap.WRITE, stag, Long.MIN_VALUE,
                        new byte[4]), 0x1101_0000 | md, true),
                new Violation("Send with no receive posted", stag -> RawPeer.untagged(true, Rdmap.SEND, 0,
                        Ddp.QN_SEND, 1, 0, new byte[4]), 0x1202_0000 | md, true),
                new Violation("Read Response nobody asked for", stag -> RawPeer.tagged(true, Rdmap.READ_RESPONSE,
                        stag, 0, new byte[4]), 0x0206_0000 | md, true),
                new Violation("Read Request of a region without REMOTE_READ", stag -> RawPeer.readRequest(1, 1, 0, 4,
                        stag, 0), 0x0102_0000 | md | Terminate.FLAG_R, true))
                .map(Arguments::of);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("violations")
    void violationIsAnsweredWithTheRightTerminate(Violation v) throws Exception {
        try (Responder r = new Responder(false, 4)) {
            RegisteredMemory region = register(r.server.pd, 4096, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            byte[] ulpdu = v.ulpdu().apply(region.rkey());
            if (v.name().startsWith("Write past")) {
                ulpdu = RawPeer.tagged(true, Rdmap.WRITE, region.rkey(), region.address(4094), new byte[4]);
            }
            if (v.name().startsWith("Read Request")) {
                ulpdu = RawPeer.readRequest(1, 1, 0, 4, region.rkey(), region.address(0));
            }
            r.peer.sendFpdu(ulpdu);
            byte[] terminate = r.peer.readFpdu();
            ByteBuffer t = ByteBuffer.wrap(terminate);
            assertThat(RawPeer.opcode(terminate)).isEqualTo(Rdmap.TERMINATE);
            assertThat(t.getInt(Ddp.OFFSET_QN)).isEqualTo(Ddp.QN_TERMINATE);
            assertThat(t.getInt(Ddp.OFFSET_MSN)).isEqualTo(1);
            assertThat(Integer.toHexString(t.getInt(Terminate.OFFSET_CONTROL)))
                    .isEqualTo(Integer.toHexString(v.controlWord()));
            if (v.quotes()) {
                assertThat(t.getShort(Terminate.OFFSET_SEGMENT_LENGTH) & 0xFFFF).isEqualTo(ulpdu.length);
                int quoted = terminate.length - Terminate.OFFSET_TERMINATED_HEADER;
                int expected = (ulpdu[0] & Ddp.FLAG_TAGGED) != 0 ? Ddp.TAGGED_HEADER_LENGTH
                        : (v.controlWord() & Terminate.FLAG_R) != 0 ? Rdmap.READ_REQUEST_ULPDU_LENGTH
                        : Ddp.UNTAGGED_HEADER_LENGTH;
                assertThat(quoted).isEqualTo(expected);
                assertThat(Arrays.copyOfRange(terminate, Terminate.OFFSET_TERMINATED_HEADER, terminate.length))
                        .isEqualTo(Arrays.copyOf(ulpdu, expected));
            } else {
                assertThat(terminate).hasSize(Terminate.OFFSET_CONTROL + 4);
            }
            r.server.events.await(ConnectionEventType.DISCONNECTED);
            assertThat(r.peer.closedByPeer()).isTrue();
            assertThat(bytes(region.buffer(), 0, 4096)).containsOnly(0);
        }
    }

    @Test
    void readRequestsBeyondTheIrdAreTerminated() throws Exception {
        try (Responder r = new Responder(false, 1)) {
            RegisteredMemory source = register(r.server.pd, 1 << 20, REMOTE);
            r.peer.write(concat(RawPeer.fpdu(RawPeer.readRequest(1, 0x100, 0, 1 << 20, source.rkey(),
                    source.address(0)), false), RawPeer.fpdu(RawPeer.readRequest(2, 0x100, 0, 4, source.rkey(),
                    source.address(0)), false)));
            byte[] fpdu;
            do {
                fpdu = r.peer.readFpdu();
            } while (RawPeer.opcode(fpdu) == Rdmap.READ_RESPONSE);
            assertThat(RawPeer.opcode(fpdu)).isEqualTo(Rdmap.TERMINATE);
            assertThat(Integer.toHexString(ByteBuffer.wrap(fpdu).getInt(Terminate.OFFSET_CONTROL)))
                    .isEqualTo(Integer.toHexString(0x0207_0000 | Terminate.FLAG_M | Terminate.FLAG_D));
            r.server.events.await(ConnectionEventType.DISCONNECTED);
        }
    }

    /**
     * Read Requests that arrive together (several in one read of the header buffer, the last one cut by its end) are
     * each answered with the bytes asked for, in order.
     */
    @ParameterizedTest(name = "crc={0}")
    @org.junit.jupiter.params.provider.ValueSource(booleans = {false, true})
    void readRequestsArrivingTogetherAreAllAnswered(boolean crc) throws Exception {
        int requests = 8;
        try (Responder r = new Responder(crc, requests)) {
            RegisteredMemory source = register(r.server.pd, 4096, REMOTE);
            byte[] data = new byte[4096];
            fill(ByteBuffer.wrap(data), 53);
            source.buffer().put(0, data);
            ByteArrayOutputStream stream = new ByteArrayOutputStream();
            for (int i = 0; i < requests; i++) {
                stream.writeBytes(RawPeer.fpdu(RawPeer.readRequest(i + 1, 0x200 + i, 1000L * i, 10 + 300 * i,
                        source.rkey(), source.address(100 * i)), crc));
            }
            r.peer.write(stream.toByteArray());
            for (int i = 0; i < requests; i++) {
                ByteBuffer response = ByteBuffer.wrap(r.peer.readFpdu());
                assertThat(RawPeer.opcode(response.array())).as("response %d", i).isEqualTo(Rdmap.READ_RESPONSE);
                assertThat(response.getInt(Ddp.OFFSET_STAG)).isEqualTo(0x200 + i);
                assertThat(response.getLong(Ddp.OFFSET_TAGGED_OFFSET)).isEqualTo(1000L * i);
                assertThat(Arrays.copyOfRange(response.array(), Ddp.TAGGED_HEADER_LENGTH, response.capacity()))
                        .isEqualTo(Arrays.copyOfRange(data, 100 * i, 100 * i + 10 + 300 * i));
            }
            assertThat(r.server.qp.state()).isEqualTo(org.rpcrdma4j.verbs.QpState.RTS);
        }
    }

    /**
     * Sends that arrive together (one TCP write, so one read of the device) reach an armed receive queue's listener
     * in one call, which finds all their completions; the device does not call it once per FPDU. A listener that
     * re-arms its queue after each poll would otherwise be called three times here.
     */
    @Test
    void completionsOfOneReadReachTheListenerInOneCall() throws Exception {
        try (Responder r = new Responder(false, 4)) {
            RegisteredMemory inbox = register(r.server.pd, 3 * 64, Access.LOCAL_WRITE);
            for (int i = 0; i < 3; i++) {
                r.server.qp.postRecv(recv(i + 1, inbox, 64 * i, 64));
            }
            List<Integer> polledPerCall = new CopyOnWriteArrayList<>();
            CountDownLatch all = new CountDownLatch(3);
            WorkCompletion[] batch = {new WorkCompletion(), new WorkCompletion(), new WorkCompletion()};
            CompletionQueue cq = r.server.recvCq;
            cq.setListener(q -> {
                int n = q.poll(batch);
                polledPerCall.add(n);
                for (int i = 0; i < n; i++) {
                    if (batch[i].status == WcStatus.SUCCESS) {
                        all.countDown();
                    }
                }
                q.requestNotify();
            });
            cq.requestNotify();
            ByteArrayOutputStream stream = new ByteArrayOutputStream();
            for (int i = 0; i < 3; i++) {
                byte[] payload = new byte[20 + i];
                Arrays.fill(payload, (byte) (i + 1));
                stream.writeBytes(RawPeer.fpdu(RawPeer.untagged(true, Rdmap.SEND, 0, Ddp.QN_SEND, i + 1, 0, payload),
                        false));
            }
            r.peer.write(stream.toByteArray());
            assertThat(all.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
            assertThat(polledPerCall).containsExactly(3);
            for (int i = 0; i < 3; i++) {
                byte[] expected = new byte[20 + i];
                Arrays.fill(expected, (byte) (i + 1));
                assertThat(bytes(inbox.buffer(), 64 * i, 20 + i)).isEqualTo(expected);
            }
        }
    }

    /**
     * Sends a completion listener posts while the device calls it (an RPC server answering the calls one read
     * brought) leave together, in one gathering write once the listener has returned, not one write each; the peer
     * gets every reply, in order.
     */
    @Test
    void sendsAListenerPostsLeaveInOneWrite() throws Exception {
        try (Responder r = new Responder(false, 4)) {
            int calls = 4;
            RegisteredMemory inbox = register(r.server.pd, calls * 64, Access.LOCAL_WRITE);
            RegisteredMemory outbox = register(r.server.pd, calls * 64, Access.LOCAL_WRITE);
            for (int i = 0; i < calls; i++) {
                r.server.qp.postRecv(recv(i, inbox, 64 * i, 64));
                for (int j = 0; j < 32; j++) {
                    outbox.buffer().put(64 * i + j, (byte) (0x40 + i));
                }
            }
            SendWorkRequest[] replies = new SendWorkRequest[calls];
            WorkCompletion[] batch = new WorkCompletion[calls];
            for (int i = 0; i < calls; i++) {
                replies[i] = send(100 + i, outbox, 64 * i, 32);
                replies[i].flags = 0; // unsignaled: no placement probe to answer
                batch[i] = new WorkCompletion();
            }
            AtomicInteger answered = new AtomicInteger();
            AtomicReference<Exception> failed = new AtomicReference<>();
            CompletionQueue cq = r.server.recvCq;
            cq.setListener(q -> {
                int n;
                while ((n = q.poll(batch)) > 0) {
                    for (int i = 0; i < n; i++) {
                        try {
                            r.server.qp.postSend(replies[(int) batch[i].wrId]);
                            answered.incrementAndGet();
                        } catch (Exception e) {
                            failed.set(e);
                        }
                    }
                }
                q.requestNotify();
            });
            cq.requestNotify();
            org.rpcrdma4j.verbs.soft.internal.SoftQp qp = (org.rpcrdma4j.verbs.soft.internal.SoftQp) r.server.qp;
            long writesBefore = qp.gatheringWrites();
            ByteArrayOutputStream stream = new ByteArrayOutputStream();
            for (int i = 0; i < calls; i++) {
                stream.writeBytes(RawPeer.fpdu(RawPeer.untagged(true, Rdmap.SEND, 0, Ddp.QN_SEND, i + 1, 0,
                        new byte[] {(byte) i}), false));
            }
            r.peer.write(stream.toByteArray()); // one TCP write: one read of the device
            for (int i = 0; i < calls; i++) {
                byte[] reply = r.peer.readFpdu();
                assertThat(RawPeer.opcode(reply)).isEqualTo(Rdmap.SEND);
                byte[] expected = new byte[32];
                Arrays.fill(expected, (byte) (0x40 + i));
                assertThat(Arrays.copyOfRange(reply, reply.length - 32, reply.length)).as("reply %d", i)
                        .isEqualTo(expected);
            }
            assertThat(failed.get()).isNull();
            assertThat(answered.get()).isEqualTo(calls);
            assertThat(qp.gatheringWrites() - writesBefore).as("gathering writes for the %d replies", calls)
                    .isEqualTo(1);
        }
    }

    /**
     * A listener called while the device reads (here for a Send that came right before an RDMA Write) may post a Send
     * from the very region the Write lands in: the transmitter then uses the region's buffer object, which the
     * receiver aims at the Write's place before each read. The listener runs before that aiming, so the Write's
     * bytes land where they belong and the stream stays in step.
     */
    @Test
    void listenerPostingFromTheRegionAWriteLandsInDoesNotDisturbTheWrite() throws Exception {
        try (Responder r = new Responder(false, 4)) {
            RegisteredMemory target = register(r.server.pd, 64 * 1024, REMOTE);
            RegisteredMemory inbox = register(r.server.pd, 128, Access.LOCAL_WRITE);
            r.server.qp.postRecv(recv(1, inbox, 0, 64));
            r.server.qp.postRecv(recv(2, inbox, 64, 64));
            AtomicInteger received = new AtomicInteger();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            WorkCompletion[] batch = {new WorkCompletion(), new WorkCompletion()};
            CompletionQueue cq = r.server.recvCq;
            cq.setListener(q -> {
                try {
                    int n = q.poll(batch);
                    if (n > 0 && received.getAndAdd(n) == 0) {
                        r.server.qp.postSend(send(9, target, 0, 100));
                    }
                    q.requestNotify();
                } catch (Exception | Error e) {
                    failure.set(e);
                }
            });
            cq.requestNotify();
            byte[] data = new byte[30_000];
            fill(ByteBuffer.wrap(data), 61);
            r.peer.write(concat(
                    RawPeer.fpdu(RawPeer.untagged(true, Rdmap.SEND, 0, Ddp.QN_SEND, 1, 0, new byte[20]), false),
                    RawPeer.fpdu(RawPeer.tagged(true, Rdmap.WRITE, target.rkey(), target.address(1000), data), false),
                    RawPeer.fpdu(RawPeer.untagged(true, Rdmap.SEND, 0, Ddp.QN_SEND, 2, 0, new byte[20]), false)));
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (received.get() < 2 && failure.get() == null && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            assertThat(failure.get()).isNull();
            assertThat(received.get()).isEqualTo(2);
            assertThat(bytes(target.buffer(), 1000, data.length)).isEqualTo(data);
            assertThat(r.server.qp.state()).isEqualTo(org.rpcrdma4j.verbs.QpState.RTS);
            byte[] sent = r.peer.readFpdu();
            assertThat(RawPeer.opcode(sent)).isEqualTo(Rdmap.SEND);
        }
    }

    /**
     * A Read Response from fast-registered pages is cut into segments that end on page boundaries (all but the last),
     * each within a page of the largest: then one gathering write can carry many of them (a segment starting in the
     * page where the previous one ended would need that page's buffer twice). The bytes arrive whole.
     */
    @Test
    void readResponseFromFastRegisteredPagesIsSegmentedOnPageBoundaries() throws Exception {
        readResponseFromPages(device, SoftIwarpOptions.DEFAULT_MAX_ULPDU);
    }

    /**
     * Where segments are about a page long, they are not cut: a cut would only add small segments (4000, 96, 4000,
     * 96, ...), since each segment lies in one or two pages anyway.
     */
    @Test
    void segmentsAboutAPageLongAreNotCut() throws Exception {
        RdmaDevice small = own(RdmaProviders.select("soft").open(Map.of("maxUlpdu", "4000",
                "confirmPlacement", "true")));
        readResponseFromPages(small, 4000);
    }

    private void readResponseFromPages(RdmaDevice on, int maxUlpdu) throws Exception {
        int fbo = 100;
        int length = 200_000;
        try (Responder r = new Responder(on, false, 4)) {
            ByteBuffer memory = pages(64);
            fill(memory, 61);
            FastRegMemoryRegion mr = own(r.server.pd.allocFastRegMr(64));
            r.peer.sendFpdu(RawPeer.tagged(true, Rdmap.WRITE, 1, 0, new byte[0])); // the responder may start
            r.server.qp.postSend(fastRegister(1, mr, pageList(memory, fbo, length, IOVA + fbo), REMOTE));
            assertThat(await(r.server.sendCq).status).isEqualTo(WcStatus.SUCCESS);
            r.peer.sendFpdu(RawPeer.readRequest(1, 0x300, 0x5000, length, mr.rkey(), IOVA + fbo));
            assertThat(pageCutSegments(r.peer, Rdmap.READ_RESPONSE, 0x5000, fbo, length, maxUlpdu, Set.of()))
                    .isEqualTo(bytes(memory, fbo, length));
        }
    }

    /**
     * The same for an RDMA Write whose SGEs name fast-registered pages: a segment spans two of them; a segment whose
     * page boundary would lie in an earlier SGE ends where its last SGE starts instead; an empty SGE is passed over.
     */
    @ParameterizedTest(name = "SGEs {0}")
    @MethodSource("sgeLayouts")
    void writeFromFastRegisteredPagesIsSegmentedOnPageBoundaries(List<Integer> sges) throws Exception {
        int fbo = 100;
        int length = 200_000;
        try (Initiator i = new Initiator()) {
            ByteBuffer memory = pages(64);
            fill(memory, 62);
            FastRegMemoryRegion mr = own(i.client.pd.allocFastRegMr(64));
            i.client.qp.postSend(fastRegister(1, mr, pageList(memory, fbo, length, IOVA + fbo), Access.LOCAL_WRITE));
            assertThat(await(i.client.sendCq).status).isEqualTo(WcStatus.SUCCESS);
            SendWorkRequest write = new SendWorkRequest(sges.size() + 1);
            write.wrId = 2;
            write.opcode = Opcode.RDMA_WRITE;
            write.flags = SendWorkRequest.SIGNALED;
            Set<Integer> sgeEnds = new java.util.HashSet<>();
            int at = 0;
            for (int len : sges) {
                write.addSge().set(IOVA + fbo + at, len, mr.lkey());
                at += len;
                sgeEnds.add(at);
            }
            write.addSge().set(IOVA + fbo + at, length - at, mr.lkey());
            write.rkey = 0x00123400;
            write.remoteAddress = 0x8000;
            i.client.qp.postSend(write);
            assertThat(pageCutSegments(i.peer, Rdmap.WRITE, 0x8000, fbo, length, SoftIwarpOptions.DEFAULT_MAX_ULPDU,
                    sgeEnds)).isEqualTo(bytes(memory, fbo, length));
            answerProbeThenCompletes(i, 2);
        }
    }

    /** The lengths of the SGEs before the last one (which takes the rest of the 200,000 bytes). */
    static java.util.stream.Stream<List<Integer>> sgeLayouts() {
        return java.util.stream.Stream.of(
                List.of(70_000), // the second segment spans both SGEs
                List.of(65_494), // the first segment's page boundary lies in the first SGE: it ends with that SGE
                List.of(65_436, 0), // the first SGE ends on a page boundary; an empty SGE follows it
                List.of(10, 0, 5)); // small and empty SGEs before the page boundary
    }

    /**
     * Reads the tagged segments of one message of {@code length} bytes taken from pages starting {@code fbo} bytes
     * into the first, with segments of at most {@code largest} bytes; checks each one's place. With segments longer
     * than two pages, every segment but the last ends on a page boundary of the source (or at the end of one of its
     * SGEs, {@code sgeEnds}) within a page of the largest; with shorter ones, none is less than half the largest.
     * Returns the payload.
     */
    private static byte[] pageCutSegments(RawPeer peer, int opcode, long to, int fbo, int length, int largest,
                                          Set<Integer> sgeEnds) throws Exception {
        ByteArrayOutputStream data = new ByteArrayOutputStream();
        for (int segment = 0;; segment++) {
            ByteBuffer s = ByteBuffer.wrap(peer.readFpdu());
            assertThat(RawPeer.opcode(s.array())).isEqualTo(opcode);
            assertThat(s.getLong(Ddp.OFFSET_TAGGED_OFFSET)).isEqualTo(to + data.size());
            int payload = s.capacity() - Ddp.TAGGED_HEADER_LENGTH;
            data.write(s.array(), Ddp.TAGGED_HEADER_LENGTH, payload);
            if ((s.get(Ddp.OFFSET_DDP_CONTROL) & Ddp.FLAG_LAST) != 0) {
                break;
            }
            if (largest < 2 * 4096) {
                assertThat(payload).as("segment %d", segment).isBetween(largest / 2 + 1, largest);
            } else if (sgeEnds.contains(data.size())) {
                assertThat(payload).as("segment %d, ending with an SGE", segment).isBetween(1, largest);
            } else {
                assertThat(payload).as("segment %d", segment).isBetween(largest - 4095, largest);
                assertThat((fbo + data.size()) % 4096).as("segment %d ends on a page boundary", segment).isZero();
            }
        }
        assertThat(data.size()).isEqualTo(length);
        return data.toByteArray();
    }

    /** The device as initiator to a raw responder. */
    private final class Initiator implements AutoCloseable {
        final Endpoint client;
        final RawPeer peer;
        final ServerSocket server;

        Initiator() throws Exception {
            this(device);
        }

        Initiator(RdmaDevice on) throws Exception {
            client = endpoint(on, Sizes.defaults());
            server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
            CompletableFuture<ConnectionInfo> connected = on.connectionManager().connect(client.qp,
                    (InetSocketAddress) server.getLocalSocketAddress(), new ConnectParameters(new byte[0], 4, 4),
                    client.events);
            peer = new RawPeer(server.accept());
            peer.readFrame(false);
            peer.write(MpaFrame.encode(true, MpaFrame.FLAG_ENHANCED, 2, MpaFrame.enhancedPrivateData(4, 4,
                    new byte[0])));
            connected.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(RawPeer.opcode(peer.readFpdu())).isEqualTo(Rdmap.WRITE);
        }

        @Override
        public void close() throws java.io.IOException {
            peer.close();
            server.close();
        }
    }

    /**
     * No placement probe goes out while an RDMA Read of the consumer's is outstanding, nor behind a Send With
     * Invalidate of the STag the Read came from until the peer sends something other than a Read Response. Linux siw
     * answers a zero-length Read Request that arrives while it is still transmitting from its Read Response queue,
     * where it takes the length and STag of the work request it served before: the Read's response, whose STag the
     * Send With Invalidate of an NFS reply may have invalidated by then (it ends the connection with a Terminate).
     * Such a Send also waits for a probe still outstanding, which the peer may not have served yet. Meanwhile Sends
     * complete once written; the peer's next message ends that, and a signaled Send is confirmed by a probe again.
     */
    @Test
    void noProbeWhereThePeerMayServeItFromAnInvalidatedReadSource() throws Exception {
        try (Initiator i = new Initiator()) {
            RegisteredMemory sink = register(i.client.pd, 64, REMOTE);
            RegisteredMemory src = register(i.client.pd, 64, REMOTE);
            RegisteredMemory inbox = register(i.client.pd, 64, Access.LOCAL_WRITE);
            i.client.qp.postRecv(recv(9, inbox, 0, 64));
            i.client.qp.postSend(read(1, sink, 0, 16, 0x00556600, 0x1000));
            byte[] request = i.peer.readFpdu();
            assertThat(RawPeer.opcode(request)).isEqualTo(Rdmap.READ_REQUEST);
            SendWorkRequest send = send(2, src, 0, 32);
            send.flags = SendWorkRequest.SIGNALED;
            i.client.qp.postSend(send);
            assertThat(RawPeer.opcode(i.peer.readFpdu())).isEqualTo(Rdmap.SEND);
            // a probe would have gone in the same gathering write as the Send
            assertThat(i.peer.buffered()).as("bytes after the Send while the Read is outstanding").isZero();
            ByteBuffer r = ByteBuffer.wrap(request);
            byte[] data = new byte[16];
            fill(ByteBuffer.wrap(data), 71);
            i.peer.sendFpdu(RawPeer.tagged(true, Rdmap.READ_RESPONSE, r.getInt(Rdmap.OFFSET_SINK_STAG),
                    r.getLong(Rdmap.OFFSET_SINK_TO), data));
            WorkCompletion read = await(i.client.sendCq);
            assertThat(read.wrId).isEqualTo(1);
            assertThat(read.status).isEqualTo(WcStatus.SUCCESS);
            assertThat(bytes(sink.buffer(), 0, 16)).isEqualTo(data);
            byte[] probe = i.peer.readFpdu();
            assertThat(RawPeer.opcode(probe)).as("the probe for the Send, after the Read").isEqualTo(Rdmap.READ_REQUEST);

            SendWorkRequest reply = send(3, src, 0, 32);
            reply.opcode = org.rpcrdma4j.verbs.Opcode.SEND_WITH_INV;
            reply.invalidateStag = 0x00556600;
            i.client.qp.postSend(reply);
            assertThat(i.peer.quietFor(200)).as("the Send With Invalidate waits for the outstanding probe").isTrue();
            i.peer.answerZeroLengthRead(probe);
            WorkCompletion confirmed = await(i.client.sendCq);
            assertThat(confirmed.wrId).isEqualTo(2);
            assertThat(RawPeer.opcode(i.peer.readFpdu())).isEqualTo(Rdmap.SEND_INVALIDATE);
            WorkCompletion invalidating = await(i.client.sendCq);
            assertThat(invalidating.wrId).as("completed once written, with no probe").isEqualTo(3);
            assertThat(invalidating.status).isEqualTo(WcStatus.SUCCESS);
            assertThat(i.peer.buffered()).as("bytes after the Send With Invalidate of the Read's STag").isZero();
            i.client.qp.postSend(send(4, src, 0, 32));
            assertThat(RawPeer.opcode(i.peer.readFpdu())).isEqualTo(Rdmap.SEND);
            assertThat(await(i.client.sendCq).wrId).as("completed once written, with no probe").isEqualTo(4);
            assertThat(i.peer.buffered()).isZero();

            i.peer.sendFpdu(RawPeer.untagged(true, Rdmap.SEND, 0, Ddp.QN_SEND, 1, 0, new byte[] {7}));
            assertThat(await(i.client.recvCq).wrId).isEqualTo(9);
            i.client.qp.postSend(send(5, src, 0, 32));
            assertThat(RawPeer.opcode(i.peer.readFpdu())).isEqualTo(Rdmap.SEND);
            answerProbeThenCompletes(i, 5);
        }
    }

    /**
     * By default the device sends no placement probe: a signaled Send and a signaled RDMA Write complete once written,
     * and nothing follows them on the wire. Linux siw answers a zero-length Read Request from stale state, and its
     * transmit thread was seen to crash on one under random NFS I/O (docs/interop-linux.md).
     */
    @Test
    void byDefaultSignaledSendsAndWritesCompleteOnceWrittenWithNoProbe() throws Exception {
        // defaults but for the nudges of a silent responder, which this raw peer is
        RdmaDevice plain = own(RdmaProviders.select("soft").open(Map.of("wakeResponder", "false")));
        try (Initiator i = new Initiator(plain)) {
            RegisteredMemory src = register(i.client.pd, 64, REMOTE);
            i.client.qp.postSend(send(1, src, 0, 32));
            assertThat(RawPeer.opcode(i.peer.readFpdu())).isEqualTo(Rdmap.SEND);
            WorkCompletion sent = await(i.client.sendCq);
            assertThat(sent.wrId).isEqualTo(1);
            assertThat(sent.status).isEqualTo(WcStatus.SUCCESS);
            i.client.qp.postSend(write(2, src, 0, 48, 0x00445500, 0x2000));
            assertThat(RawPeer.opcode(i.peer.readFpdu())).isEqualTo(Rdmap.WRITE);
            WorkCompletion written = await(i.client.sendCq);
            assertThat(written.wrId).isEqualTo(2);
            assertThat(written.status).isEqualTo(WcStatus.SUCCESS);
            assertThat(i.peer.quietFor(300)).as("no zero-length Read Request behind them").isTrue();
        }
    }

    /**
     * Reads the placement probe the initiator sent (a zero-length Read Request), answers it, and checks that the next
     * send completion is {@code wrId}'s success.
     */
    private void answerProbeThenCompletes(Initiator i, long wrId) throws Exception {
        byte[] probe = i.peer.readFpdu();
        assertThat(RawPeer.opcode(probe)).isEqualTo(Rdmap.READ_REQUEST);
        assertThat(ByteBuffer.wrap(probe).getInt(Rdmap.OFFSET_READ_SIZE)).isZero();
        i.peer.answerZeroLengthRead(probe);
        WorkCompletion wc = await(i.client.sendCq);
        assertThat(wc.wrId).isEqualTo(wrId);
        assertThat(wc.status).isEqualTo(WcStatus.SUCCESS);
    }

    @Test
    void unsignaledSendsGoWithoutAProbeUntilASignaledOneFollows() throws Exception {
        try (Initiator i = new Initiator()) {
            RegisteredMemory src = register(i.client.pd, 64, REMOTE);
            for (int id = 1; id <= 2; id++) {
                SendWorkRequest quiet = send(id, src, 0, 32);
                quiet.flags = 0;
                i.client.qp.postSend(quiet);
                assertThat(RawPeer.opcode(i.peer.readFpdu())).isEqualTo(Rdmap.SEND);
                // a probe goes in the same gathering write as the Send it follows
                assertThat(i.peer.buffered()).as("bytes after unsignaled Send " + id).isZero();
            }
            i.client.qp.postSend(send(3, src, 0, 32));
            assertThat(RawPeer.opcode(i.peer.readFpdu())).isEqualTo(Rdmap.SEND);
            WorkCompletion[] none = {new WorkCompletion()};
            assertThat(i.client.sendCq.poll(none)).as("completions before the probe is answered").isZero();
            answerProbeThenCompletes(i, 3); // the signaled Send only
            assertThat(i.client.sendCq.poll(none)).isZero();
        }
    }

    @Test
    void signaledRegistrationBehindAnUnsignaledSendIsConfirmedByAProbe() throws Exception {
        try (Initiator i = new Initiator()) {
            RegisteredMemory src = register(i.client.pd, 64, REMOTE);
            SendWorkRequest quiet = send(1, src, 0, 32);
            quiet.flags = 0;
            i.client.qp.postSend(quiet);
            assertThat(RawPeer.opcode(i.peer.readFpdu())).isEqualTo(Rdmap.SEND);
            assertThat(i.peer.buffered()).isZero();
            // completions are reported in posting order: the REG_MR's waits for the Send's placement
            ByteBuffer memory = pages(1);
            FastRegMemoryRegion mr = own(i.client.pd.allocFastRegMr(1));
            i.client.qp.postSend(fastRegister(2, mr, pageList(memory, 0, 4096, IOVA), Access.LOCAL_WRITE));
            answerProbeThenCompletes(i, 2);
        }
    }

    @Test
    void terminateLaidOutAsSiwDoesFailsTheWriteItQuotes() throws Exception {
        try (Initiator i = new Initiator()) {
            RegisteredMemory src = register(i.client.pd, 64, REMOTE);
            i.client.qp.postSend(write(1, src, 0, 64, 0x00123400, 0x8000));
            byte[] write = i.peer.readFpdu();
            assertThat(RawPeer.opcode(write)).isEqualTo(Rdmap.WRITE);
            assertThat(RawPeer.opcode(i.peer.readFpdu())).isEqualTo(Rdmap.READ_REQUEST);
            ByteBuffer body = ByteBuffer.allocate(4 + 2 + Ddp.TAGGED_HEADER_LENGTH);
            body.put((byte) 0x11).put((byte) Terminate.DDP_TAGGED_INVALID_STAG).put((byte) 0x03).put((byte) 0);
            body.putShort((short) write.length).put(write, 0, Ddp.TAGGED_HEADER_LENGTH);
            i.peer.sendFpdu(RawPeer.untagged(true, Rdmap.TERMINATE, 0, Ddp.QN_TERMINATE, 1, 0, body.array()));
            WorkCompletion wc = await(i.client.sendCq);
            assertThat(wc.wrId).isEqualTo(1);
            assertThat(wc.status).isEqualTo(WcStatus.REM_ACCESS_ERR);
            assertThat(Terminate.isReceived(wc.vendorError)).isTrue();
            assertThat(Terminate.layerOf(wc.vendorError)).isEqualTo(Terminate.LAYER_DDP);
            assertThat(Terminate.etypeOf(wc.vendorError)).isEqualTo(Terminate.DDP_TAGGED_BUFFER);
            assertThat(Terminate.codeOf(wc.vendorError)).isEqualTo(Terminate.DDP_TAGGED_INVALID_STAG);
            i.client.events.await(ConnectionEventType.DISCONNECTED);
        }
    }

    @Test
    void connectionEndingInsideAnFpduDisconnects() throws Exception {
        try (Initiator i = new Initiator()) {
            RegisteredMemory inbox = register(i.client.pd, 64, Access.LOCAL_WRITE);
            i.client.qp.postRecv(recv(1, inbox, 0, 64));
            byte[] fpdu = RawPeer.fpdu(RawPeer.untagged(true, Rdmap.SEND, 0, Ddp.QN_SEND, 1, 0, new byte[40]), false);
            i.peer.write(Arrays.copyOf(fpdu, 30));
            i.peer.socket.shutdownOutput();
            i.client.events.await(ConnectionEventType.DISCONNECTED);
            assertThat(await(i.client.recvCq).status).isEqualTo(WcStatus.WR_FLUSH_ERR);
            assertThat(bytes(inbox.buffer(), 0, 64)).as("a half-received Send is not delivered").isNotNull();
        }
    }

    @Test
    void readResponseWithTheWrongSinkIsRefused() throws Exception {
        try (Initiator i = new Initiator()) {
            RegisteredMemory sink = register(i.client.pd, 64, REMOTE);
            i.client.qp.postSend(read(1, sink, 0, 64, 0x00ABCD00, 0));
            byte[] request = i.peer.readFpdu();
            assertThat(RawPeer.opcode(request)).isEqualTo(Rdmap.READ_REQUEST);
            assertThat(ByteBuffer.wrap(request).getInt(Rdmap.OFFSET_SINK_STAG)).isEqualTo(sink.lkey());
            i.peer.sendFpdu(RawPeer.tagged(true, Rdmap.READ_RESPONSE, sink.lkey() + 0x100, sink.address(0),
                    new byte[64]));
            byte[] terminate = i.peer.readFpdu();
            assertThat(Integer.toHexString(ByteBuffer.wrap(terminate).getInt(Terminate.OFFSET_CONTROL)))
                    .isEqualTo(Integer.toHexString(0x1100_0000 | Terminate.FLAG_M | Terminate.FLAG_D));
            assertThat(await(i.client.sendCq).status).isNotEqualTo(WcStatus.SUCCESS);
        }
    }
}
