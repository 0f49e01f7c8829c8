package org.rpcrdma4j.verbs.soft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.EOFException;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;

import org.rpcrdma4j.verbs.AcceptParameters;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.ConnectionEventType;
import org.rpcrdma4j.verbs.ConnectionListener;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.RdmaListener;
import org.rpcrdma4j.verbs.RdmaProviders;
import org.rpcrdma4j.verbs.RegisteredMemory;
import org.rpcrdma4j.verbs.conformance.VerbsFixture;
import org.rpcrdma4j.verbs.soft.wire.MpaFrame;
import org.rpcrdma4j.verbs.soft.wire.Rdmap;
import org.rpcrdma4j.verbs.soft.wire.Terminate;

/**
 * A device with one engine thread and small socket buffers, accepting connections from a {@link RawPeer} that
 * misbehaves as a test tells it to: for what the device must do whatever a peer on the network sends, or leaves
 * unread.
 */
abstract class HostilePeerFixture extends VerbsFixture {
    static final int REMOTE = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ;
    static final String DEVICE_NAME = "hostile";

    @Override
    protected RdmaDevice newDevice() throws Exception {
        return RdmaProviders.select("soft").open(deviceOptions());
    }

    Map<String, String> deviceOptions() {
        return Map.of("name", DEVICE_NAME, "engineThreads", "1", "socketBufferSize", "16384");
    }

    @Override
    protected RdmaDevice newPeerDevice() {
        return device;
    }

    /** The device as responder to a raw initiator that has sent its first FPDU (so the device may send). */
    final class Responder implements AutoCloseable {
        final Endpoint server;
        final RdmaListener listener;
        final RawPeer peer;

        /** @param peerReceiveBuffer the raw peer's SO_RCVBUF, or 0 for the system's */
        Responder(int peerReceiveBuffer) throws Exception {
            this(pd(device), peerReceiveBuffer);
        }

        /** A responder whose queue pair is in {@code pd}. */
        Responder(ProtectionDomain pd, int peerReceiveBuffer) throws Exception {
            this(pd, peerReceiveBuffer, UnaryOperator.identity());
        }

        /** A responder whose connection listener is {@code wrap} applied to {@link Endpoint#events}. */
        Responder(ProtectionDomain pd, int peerReceiveBuffer, UnaryOperator<ConnectionListener> wrap)
                throws Exception {
            server = endpoint(pd, Sizes.defaults());
            ConnectionListener events = wrap.apply(server.events);
            listener = own(device.connectionManager().listen(listenAddress(), request -> {
                try {
                    request.accept(server.qp, new AcceptParameters(new byte[0], 4, 4), events);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }));
            Socket s = new Socket();
            if (peerReceiveBuffer > 0) {
                s.setReceiveBufferSize(peerReceiveBuffer);
            }
            s.connect(listener.localAddress(), 10_000);
            peer = new RawPeer(s);
            peer.write(MpaFrame.encode(false, MpaFrame.FLAG_ENHANCED, 2,
                    MpaFrame.enhancedPrivateData(4, 4, new byte[0])));
            peer.readFrame(true);
            server.events.await(ConnectionEventType.ESTABLISHED);
            peer.sendFpdu(RawPeer.tagged(true, Rdmap.WRITE, 1, 0, new byte[0])); // the first FPDU: ungates the device
        }

        /**
         * Asks for a Read of {@code size} bytes the peer does not read, and returns once the response has started:
         * the device's output stays blocked (socket buffers of 16 KiB each way, FPDUs of 64 KiB).
         */
        RegisteredMemory blockOutput(int size) throws Exception {
            RegisteredMemory source = register(server.pd, size, REMOTE);
            peer.sendFpdu(RawPeer.readRequest(1, 0x300, 0, size, source.rkey(), source.address(0)));
            awaitCondition("the Read Response started", () -> {
                try {
                    return peer.buffered() > 0;
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            });
            return source;
        }

        @Override
        public void close() throws IOException {
            peer.close();
        }
    }

    /** Asserts that the device's engine serves a new connection: it is established and a Write to it is placed. */
    void assertServesANewConnection() throws Exception {
        try (Responder r = new Responder(0)) {
            RegisteredMemory sink = register(r.server.pd, 4096, REMOTE);
            byte[] data = new byte[100];
            java.util.Arrays.fill(data, (byte) 0x3C);
            r.peer.sendFpdu(RawPeer.tagged(true, Rdmap.WRITE, sink.rkey(), sink.address(0), data));
            awaitCondition("a Write placed on a new connection", () -> count(sink.buffer(), 0, 100, (byte) 0x3C) == 100);
        }
    }

    /** Reads FPDUs until a Terminate and returns its ULPDU; fails on anything but Read Responses before it. */
    static byte[] awaitTerminate(RawPeer peer) throws IOException {
        while (true) {
            byte[] fpdu = peer.readFpdu();
            int opcode = RawPeer.opcode(fpdu);
            if (opcode == Rdmap.TERMINATE) {
                return fpdu;
            }
            assertThat(opcode).as("FPDU before the Terminate").isEqualTo(Rdmap.READ_RESPONSE);
        }
    }

    /** The control word of a Terminate ULPDU, in RFC bit order. */
    static Terminate.Reading control(byte[] terminate) {
        return Terminate.rfcReading(ByteBuffer.wrap(terminate).getInt(Terminate.OFFSET_CONTROL));
    }

    /** Whether the device closed or reset the connection (the raw peer reads to the end, dropping what comes). */
    static boolean closedByDevice(RawPeer peer) throws IOException {
        try {
            return peer.closedByPeer();
        } catch (EOFException | SocketException e) {
            return true;
        }
    }

    /** Waits (hang guard {@link #WAIT}) until {@code condition} holds. */
    static void awaitCondition(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("not within " + WAIT + ": " + what);
            }
            LockSupport.parkNanos(1_000_000);
        }
    }

    static int count(ByteBuffer buffer, int offset, int length, byte value) {
        int n = 0;
        for (int i = 0; i < length; i++) {
            if (buffer.get(offset + i) == value) {
                n++;
            }
        }
        return n;
    }
}
