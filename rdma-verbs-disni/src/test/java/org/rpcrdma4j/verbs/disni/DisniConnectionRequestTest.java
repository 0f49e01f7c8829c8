package org.rpcrdma4j.verbs.disni;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.verbs.AcceptParameters;
import org.rpcrdma4j.verbs.ConnectionListener;
import org.rpcrdma4j.verbs.QpState;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.QueuePairConfig;
import org.rpcrdma4j.verbs.TransportType;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.disni.CmEvents.CmAction;

class DisniConnectionRequestTest {
    private static final InetSocketAddress PEER = new InetSocketAddress("10.0.0.9", 51000);
    private static final InetSocketAddress LOCAL = new InetSocketAddress("10.0.0.1", 20049);

    /** The connection manager side, recorded; accepts by starting a passive connection on the fake id. */
    static final class Owner implements DisniConnectionRequest.Owner {
        final List<String> calls = new ArrayList<>();
        int warnings;

        @Override
        public QpConnection.Settings settings() {
            return new QpConnection.Settings(6, 0, 32, 4, 7);
        }

        @Override
        public CmExecutor executor() {
            return new Fakes.DirectCm();
        }

        @Override
        public DisniQueuePair claim(QueuePair qp) throws VerbsException {
            DisniQueuePair dq = (DisniQueuePair) qp;
            if (!dq.claim()) {
                throw new VerbsException("already taken");
            }
            return dq;
        }

        @Override
        public void accept(NativeCmId id, DisniQueuePair qp, ConnectionListener listener) throws VerbsException {
            calls.add("accept");
            QpConnection.passive(id, qp, listener, settings(), () -> 0L, Duration.ofSeconds(10)).startPassive();
        }

        @Override
        public void warnAcceptPrivateData() {
            warnings++;
        }
    }

    private final Fakes.CmIdFake id = new Fakes.CmIdFake();
    private final Owner owner = new Owner();
    private DisniConnectionRequest request;
    private DisniQueuePair qp;

    @BeforeEach
    void setUp() throws IOException {
        request = new DisniConnectionRequest(id, owner, PEER, LOCAL, 0L, Duration.ofSeconds(10));
        DisniCompletionQueue cq = new DisniCompletionQueue(new Fakes.NativeCqFake(), 8, null, () -> { });
        QueuePairConfig config = new QueuePairConfig(cq, cq, 4, 4, 1, 1, 0);
        qp = new DisniQueuePair(1, null, null, config, QpLimits.of(config, TransportType.IB), new Fakes.DirectCm(),
                () -> { });
    }

    @Test
    void whatDisniDeliversAndWhatItDoesNot() {
        assertThat(request.remoteAddress()).isEqualTo(PEER);
        assertThat(request.localAddress()).isEqualTo(LOCAL);
        assertThat(request.privateData()).isEmpty();
        assertThat(request.responderResources()).isEqualTo(32);
        assertThat(request.initiatorDepth()).isEqualTo(4);
    }

    @Test
    void acceptBindsTheQueuePairAndAcceptsOnTheId() throws VerbsException {
        request.accept(qp, new AcceptParameters(null, 0, 0), e -> { });
        assertThat(owner.calls).containsExactly("accept");
        assertThat(id.calls).containsExactly("createQp", "accept 6/0");
        assertThat(owner.warnings).isZero();
        assertThatThrownBy(() -> request.accept(qp, new AcceptParameters(null, 0, 0), e -> { }))
                .isInstanceOf(VerbsException.class);
    }

    @Test
    void acceptPrivateDataIsDroppedWithAWarning() throws VerbsException {
        request.accept(qp, new AcceptParameters(new byte[] {1, 2}, 0, 0), e -> { });
        assertThat(owner.warnings).isEqualTo(1);
    }

    @Test
    void aRejectDestroysTheIdAndALaterAcceptFailsAndBreaksItsQueuePair() {
        request.reject(new byte[] {9});
        assertThat(id.calls).containsExactly("destroy");
        request.reject(null);
        assertThat(id.calls).containsExactly("destroy");
        assertThatThrownBy(() -> request.accept(qp, new AcceptParameters(null, 0, 0), e -> { }))
                .isInstanceOf(VerbsException.class)
                .hasMessageContaining("already accepted, rejected or timed out");
        assertThat(qp.state()).isEqualTo(QpState.ERROR);
    }

    @Test
    void anUnansweredRequestIsRejectedAtItsDeadline() {
        request.onTick(9_999_999_999L);
        assertThat(id.calls).isEmpty();
        request.onTick(10_000_000_000L);
        assertThat(id.calls).containsExactly("destroy");
    }

    @Test
    void aRequestWhoseRequesterGaveUpIsDropped() {
        request.onCmEvent(CmAction.IGNORE, CmEvents.TIMEWAIT_EXIT);
        assertThat(id.calls).isEmpty();
        request.onCmEvent(CmAction.DISCONNECTED, CmEvents.DISCONNECTED);
        assertThat(id.calls).containsExactly("destroy");
    }
}
