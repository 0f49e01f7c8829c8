package org.rpcrdma4j.verbs.soft;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.SocketException;
import java.util.Arrays;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.verbs.ConnectionEventType;
import org.rpcrdma4j.verbs.QpState;
import org.rpcrdma4j.verbs.RegisteredMemory;
import org.rpcrdma4j.verbs.soft.wire.Rdmap;

/**
 * Ending connections with a peer that does not play along: it goes on sending after the queue pair left RTS, or
 * reads nothing, so that the device's output never finishes.
 */
@Timeout(60)
class SoftTeardownTest extends HostilePeerFixture {
    private static final byte DATA = 0x5A;

    private static byte[] pattern(int n) {
        byte[] p = new byte[n];
        Arrays.fill(p, DATA);
        return p;
    }

    /** How the raw peer's stream ends when it reads everything: true for a reset, false for an orderly end. */
    private static boolean endsWithReset(RawPeer peer) throws IOException {
        try {
            while (peer.socket.getInputStream().read(new byte[65536]) >= 0) {
                // what the device had sent before
            }
            return false;
        } catch (SocketException reset) {
            return true;
        }
    }

    @Test
    void writesArrivingAfterTheQueuePairLeftRtsAreNotPlaced() throws Exception {
        try (Responder r = new Responder(4096)) {
            RegisteredMemory sink = register(r.server.pd, 4096, REMOTE);
            r.blockOutput(1 << 20);
            r.server.qp.disconnect();
            r.server.events.await(ConnectionEventType.DISCONNECTED);
            assertThat(r.server.qp.state()).isEqualTo(QpState.ERROR);

            r.peer.sendFpdu(RawPeer.tagged(true, Rdmap.WRITE, sink.rkey(), sink.address(0), pattern(1000)));
            r.peer.socket.shutdownOutput();
            endsWithReset(r.peer); // the device has read the Write once it has ended the connection
            assertThat(count(sink.buffer(), 0, 4096, DATA)).as("bytes placed after the queue pair left RTS")
                    .isZero();
        }
    }

    @Test
    void closeResetsAConnectionWhosePeerKeepsTheTeardownFromFinishing() throws Exception {
        try (Responder r = new Responder(4096)) {
            r.blockOutput(1 << 20);
            r.server.qp.disconnect();
            r.server.events.await(ConnectionEventType.DISCONNECTED);
            r.server.qp.close();
            assertThat(r.server.qp.state()).isEqualTo(QpState.CLOSED);
            assertThat(endsWithReset(r.peer)).as("the connection was reset").isTrue();
        }
    }

    /** An FPDU that fails the DDP version check. */
    private static byte[] badVersion() {
        byte[] bad = RawPeer.fpdu(RawPeer.tagged(true, Rdmap.WRITE, 0x1234_5600, 0, new byte[8]), false);
        bad[2] = (byte) 0x80;
        return bad;
    }

    @Test
    void whatAPeerSendsAfterAProtocolErrorIsReadAndDroppedWhileTheTerminateCannotGoOut() throws Exception {
        try (Responder r = new Responder(4096)) {
            r.blockOutput(1 << 20);
            r.peer.write(badVersion());
            r.server.events.await(ConnectionEventType.DISCONNECTED);
            // far more than the socket buffers hold: the write ends only if the device reads (and drops) it all
            byte[] junk = new byte[1 << 20];
            within(() -> {
                for (int i = 0; i < 32; i++) {
                    r.peer.write(junk);
                }
                return null;
            });
            assertThat(r.server.qp.state()).isEqualTo(QpState.ERROR);
        }
    }

    /**
     * Writes zero-length Writes to STag 1 (the device drops them) until a write fails: the device has reset the
     * connection. False if that did not happen within the hang guard.
     */
    private static boolean resetSeenByWriting(RawPeer peer) throws InterruptedException {
        byte[] nothing = RawPeer.fpdu(RawPeer.tagged(true, Rdmap.WRITE, 1, 0, new byte[0]), false);
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() - deadline < 0) {
            try {
                peer.write(nothing);
            } catch (IOException reset) {
                return true;
            }
            Thread.sleep(20);
        }
        return false;
    }

    @Test
    void aTeardownAPeerHoldsUpByReadingNothingEndsWithAReset() throws Exception {
        try (Responder r = new Responder(4096)) {
            r.blockOutput(1 << 20);
            r.peer.write(badVersion()); // the Terminate waits behind the Read Response the peer does not read
            r.server.events.await(ConnectionEventType.DISCONNECTED);
            assertThat(r.server.qp.state()).isEqualTo(QpState.ERROR);
            assertThat(resetSeenByWriting(r.peer)).as("the device reset the connection").isTrue();
        }
    }
}
