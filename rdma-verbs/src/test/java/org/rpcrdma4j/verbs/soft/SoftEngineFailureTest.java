package org.rpcrdma4j.verbs.soft;

import java.net.Socket;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.verbs.ConnectionEventType;
import org.rpcrdma4j.verbs.ConnectionListener;
import org.rpcrdma4j.verbs.RdmaListener;
import org.rpcrdma4j.verbs.soft.wire.MpaFrame;

/**
 * What the consumer's callbacks throw, Errors included, stays with the connection concerned: the engine thread (the
 * device's only one here) goes on serving every other connection.
 */
@Timeout(60)
class SoftEngineFailureTest extends HostilePeerFixture {

    /** {@code events}, then an AssertionError on every event of type {@code on}. */
    private static ConnectionListener throwingOn(ConnectionEventType on, ConnectionListener events) {
        return event -> {
            events.onEvent(event);
            if (event.type() == on) {
                throw new AssertionError("a listener's own failure on " + on);
            }
        };
    }

    @Test
    void aConnectionListenerThrowingAnErrorOnEstablishedLeavesTheEngineServing() throws Exception {
        try (Responder r = new Responder(pd(device), 0, l -> throwingOn(ConnectionEventType.ESTABLISHED, l))) {
            assertServesANewConnection();
        }
    }

    @Test
    void aConnectionListenerThrowingAnErrorOnDisconnectedLeavesTheEngineServing() throws Exception {
        try (Responder r = new Responder(pd(device), 0, l -> throwingOn(ConnectionEventType.DISCONNECTED, l))) {
            byte[] bad = RawPeer.fpdu(RawPeer.tagged(true, org.rpcrdma4j.verbs.soft.wire.Rdmap.WRITE, 0x1234_5600, 0,
                    new byte[8]), false);
            bad[2] = (byte) 0x80; // DDP version 0: a Terminate, then DISCONNECTED from inside the socket read
            r.peer.write(bad);
            r.server.events.await(ConnectionEventType.DISCONNECTED);
            assertServesANewConnection();
        }
    }

    @Test
    void aConnectionRequestHandlerThrowingAnErrorRejectsThatRequestOnly() throws Exception {
        RdmaListener listener = own(device.connectionManager().listen(listenAddress(), request -> {
            throw new AssertionError("a handler's own failure");
        }));
        try (RawPeer peer = new RawPeer(new Socket(listener.localAddress().getAddress(),
                listener.localAddress().getPort()))) {
            peer.write(MpaFrame.encode(false, MpaFrame.FLAG_ENHANCED, 2, MpaFrame.enhancedPrivateData(4, 4,
                    new byte[0])));
            RawPeer.Frame reply = peer.readFrame(true);
            org.assertj.core.api.Assertions.assertThat(reply.header().rejected()).isTrue();
        }
        assertServesANewConnection();
    }
}
