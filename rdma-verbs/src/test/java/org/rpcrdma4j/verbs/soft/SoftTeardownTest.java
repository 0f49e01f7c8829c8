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
}
