package org.rpcrdma4j.verbs.soft;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.verbs.AcceptParameters;
import org.rpcrdma4j.verbs.RdmaListener;
import org.rpcrdma4j.verbs.soft.wire.MpaFrame;

/** A listener holds at most {@code maxPendingHandshakes} accepted connections whose MPA handshake is not over. */
@Timeout(60)
class SoftListenerLimitsTest extends HostilePeerFixture {

    @Override
    Map<String, String> deviceOptions() {
        return Map.of("name", DEVICE_NAME, "engineThreads", "1", "maxPendingHandshakes", "2",
                "handshakeTimeoutMs", "60000");
    }

    private static RawPeer requestConnection(RdmaListener listener) throws Exception {
        RawPeer peer = RawPeer.connect(listener.localAddress());
        peer.write(MpaFrame.encode(false, MpaFrame.FLAG_ENHANCED, 2, MpaFrame.enhancedPrivateData(4, 4,
                new byte[0])));
        return peer;
    }

    @Test
    void connectionsAcceptedBeyondTheBoundOfPendingHandshakesAreClosedAtOnce() throws Exception {
        LinkedBlockingQueue<Endpoint> servers = new LinkedBlockingQueue<>();
        servers.add(endpoint(device, Sizes.defaults()));
        servers.add(endpoint(device, Sizes.defaults()));
        RdmaListener listener = own(device.connectionManager().listen(listenAddress(), request -> {
            Endpoint server = servers.remove();
            try {
                request.accept(server.qp, new AcceptParameters(new byte[0], 4, 4), server.events);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }));
        try (RawPeer first = RawPeer.connect(listener.localAddress());
             RawPeer second = RawPeer.connect(listener.localAddress());
             RawPeer third = RawPeer.connect(listener.localAddress())) {
            // first and second wait for their handshakes (they send nothing yet): the third is one too many
            assertThat(closedByDevice(third)).as("the third connection was closed").isTrue();

            first.write(MpaFrame.encode(false, MpaFrame.FLAG_ENHANCED, 2, MpaFrame.enhancedPrivateData(4, 4,
                    new byte[0])));
            assertThat(first.readFrame(true).header().rejected()).isFalse();
            try (RawPeer fourth = requestConnection(listener)) {
                // the first's handshake is over: its place went to the fourth
                assertThat(fourth.readFrame(true).header().rejected()).isFalse();
            }
        }
    }
}
