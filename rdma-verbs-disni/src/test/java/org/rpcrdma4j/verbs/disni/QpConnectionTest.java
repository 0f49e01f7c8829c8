package org.rpcrdma4j.verbs.disni;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.verbs.ConnectException;
import org.rpcrdma4j.verbs.ConnectParameters;
import org.rpcrdma4j.verbs.ConnectionEvent;
import org.rpcrdma4j.verbs.ConnectionEventType;
import org.rpcrdma4j.verbs.ConnectionInfo;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.disni.CmEvents.CmAction;

class QpConnectionTest {
    private static final InetSocketAddress SERVER = new InetSocketAddress("10.0.0.2", 20049);
    private static final QpConnection.Settings SETTINGS = new QpConnection.Settings(6, 0, 16, 8, 7);

    /** The queue pair side, recorded. */
    static final class Hooks implements QpConnection.Hooks {
        final List<String> calls = new ArrayList<>();
        ConnectionInfo info;
        VerbsException bindFailure;

        @Override
        public QueuePair queuePair() {
            return null;
        }

        @Override
        public void bind(NativeCmId id) throws VerbsException {
            calls.add("bind");
            if (bindFailure != null) {
                throw bindFailure;
            }
        }

        @Override
        public void established(ConnectionInfo i) {
            calls.add("established");
            info = i;
        }

        @Override
        public void broken() {
            calls.add("broken");
        }
    }

    private final Fakes.CmIdFake id = new Fakes.CmIdFake();
    private final Hooks hooks = new Hooks();
    private final List<ConnectionEvent> events = new ArrayList<>();
    private final CompletableFuture<ConnectionInfo> future = new CompletableFuture<>();
    private long now = 1_000_000_000L;

    private QpConnection active(byte[] privateData) {
        ConnectParameters p = new ConnectParameters(privateData, 4, 4, Duration.ofMillis(2000),
                Duration.ofMillis(5000));
        return QpConnection.active(id, hooks, SERVER, p, events::add, future, SETTINGS, () -> now);
    }

    private QpConnection establishedActive() {
        QpConnection c = active(new byte[] {1, 2, 3});
        c.startActive();
        c.onCmEvent(CmAction.ADDR_RESOLVED, CmEvents.ADDR_RESOLVED);
        c.onCmEvent(CmAction.ROUTE_RESOLVED, CmEvents.ROUTE_RESOLVED);
        c.onCmEvent(CmAction.ESTABLISHED, CmEvents.ESTABLISHED);
        return c;
    }

    private static ConnectException failure(CompletableFuture<ConnectionInfo> f) {
        assertThat(f).isCompletedExceptionally();
        try {
            f.get();
            throw new AssertionError("not failed");
        } catch (ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(ConnectException.class);
            return (ConnectException) e.getCause();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void theActiveSideResolvesRoutesCreatesTheQueuePairAndConnectsWithPrivateData() throws Exception {
        QpConnection c = active(new byte[] {1, 2, 3});
        c.startActive();
        assertThat(id.calls).containsExactly("resolveAddr " + SERVER + " 2000");
        c.onCmEvent(CmAction.ADDR_RESOLVED, CmEvents.ADDR_RESOLVED);
        assertThat(id.calls).last().isEqualTo("resolveRoute");
        c.onCmEvent(CmAction.ROUTE_RESOLVED, CmEvents.ROUTE_RESOLVED);
        assertThat(hooks.calls).containsExactly("bind");
        assertThat(id.calls).last().isEqualTo("connect 6/0");
        assertThat(id.connectedWith).containsExactly(1, 2, 3);
        assertThat(future).isNotDone();

        c.onCmEvent(CmAction.ESTABLISHED, CmEvents.ESTABLISHED);
        ConnectionInfo info = future.get();
        assertThat(info.remoteAddress()).isEqualTo(id.destination);
        assertThat(info.localAddress()).isEqualTo(id.source);
        assertThat(info.privateData()).as("DiSNI delivers none").isEmpty();
        assertThat(info.ird()).isEqualTo(16);
        assertThat(info.ord()).isEqualTo(8);
        assertThat(hooks.calls).containsExactly("bind", "established");
        assertThat(c.phase()).isEqualTo(QpConnection.Phase.ESTABLISHED);
        assertThat(events).isEmpty();
    }

    @Test
    void aDisconnectAfterEstablishedReachesTheListenerAndBreaksTheQueuePair() {
        QpConnection c = establishedActive();
        c.onCmEvent(CmAction.IGNORE, CmEvents.TIMEWAIT_EXIT);
        assertThat(events).isEmpty();
        c.onCmEvent(CmAction.DISCONNECTED, CmEvents.DISCONNECTED);
        assertThat(events).extracting(ConnectionEvent::type).containsExactly(ConnectionEventType.DISCONNECTED);
        assertThat(hooks.calls).endsWith("broken");
        c.onCmEvent(CmAction.DISCONNECTED, CmEvents.DISCONNECTED);
        assertThat(events).hasSize(1);
    }

    @Test
    void anAddressChangeDisconnects() {
        QpConnection c = establishedActive();
        c.onCmEvent(CmEvents.classify(CmEvents.ADDR_CHANGE), CmEvents.ADDR_CHANGE);
        assertThat(id.calls).last().isEqualTo("disconnect");
        assertThat(events).extracting(ConnectionEvent::type).containsExactly(ConnectionEventType.DISCONNECTED);
    }

    @Test
    void deviceRemovalReachesTheListener() {
        QpConnection c = establishedActive();
        c.deviceRemoved();
        assertThat(events).extracting(ConnectionEvent::type).containsExactly(ConnectionEventType.DEVICE_REMOVAL);
    }

    @Test
    void aRejectFailsTheConnectWithTheReasonDisniCannotGive() {
        QpConnection c = active(new byte[0]);
        c.startActive();
        c.onCmEvent(CmAction.ADDR_RESOLVED, CmEvents.ADDR_RESOLVED);
        c.onCmEvent(CmAction.ROUTE_RESOLVED, CmEvents.ROUTE_RESOLVED);
        c.onCmEvent(CmAction.REJECTED, CmEvents.REJECTED);
        ConnectException e = failure(future);
        assertThat(e.type()).isEqualTo(ConnectionEventType.REJECTED);
        assertThat(e.privateData()).isEmpty();
        assertThat(e).hasMessageContaining("RDMA_CM_EVENT_REJECTED while connecting to " + SERVER)
                .hasMessageContaining("DiSNI delivers neither the reject's private data nor its reason");
        assertThat(id.calls).as("the bound queue pair is moved to error").last().isEqualTo("disconnect");
        assertThat(hooks.calls).endsWith("broken");
    }

    @Test
    void resolutionErrorsMakeThePeerUnreachable() {
        QpConnection c = active(new byte[0]);
        c.startActive();
        c.onCmEvent(CmAction.UNREACHABLE, CmEvents.ADDR_ERROR);
        ConnectException e = failure(future);
        assertThat(e.type()).isEqualTo(ConnectionEventType.UNREACHABLE);
        assertThat(e).hasMessageContaining("RDMA_CM_EVENT_ADDR_ERROR while resolving the address of " + SERVER);
        assertThat(hooks.calls).containsExactly("broken");
        assertThat(id.calls).doesNotContain("disconnect");

        Fakes.CmIdFake id2 = new Fakes.CmIdFake();
        CompletableFuture<ConnectionInfo> f2 = new CompletableFuture<>();
        QpConnection c2 = QpConnection.active(id2, new Hooks(), SERVER, new ConnectParameters(null, 0, 0), null, f2,
                SETTINGS, () -> now);
        c2.startActive();
        c2.onCmEvent(CmAction.ADDR_RESOLVED, CmEvents.ADDR_RESOLVED);
        c2.onCmEvent(CmAction.UNREACHABLE, CmEvents.ROUTE_ERROR);
        assertThat(failure(f2).type()).isEqualTo(ConnectionEventType.UNREACHABLE);
    }

    @Test
    void handshakeErrorsAreConnectErrors() {
        for (int event : new int[] {CmEvents.CONNECT_ERROR, CmEvents.DISCONNECTED, CmEvents.CONNECT_RESPONSE}) {
            Fakes.CmIdFake i = new Fakes.CmIdFake();
            CompletableFuture<ConnectionInfo> f = new CompletableFuture<>();
            QpConnection c = QpConnection.active(i, new Hooks(), SERVER, new ConnectParameters(null, 0, 0), null, f,
                    SETTINGS, () -> now);
            c.startActive();
            c.onCmEvent(CmAction.ADDR_RESOLVED, CmEvents.ADDR_RESOLVED);
            c.onCmEvent(CmAction.ROUTE_RESOLVED, CmEvents.ROUTE_RESOLVED);
            c.onCmEvent(CmEvents.classify(event), event);
            assertThat(failure(f).type()).as(CmEvents.name(event)).isEqualTo(ConnectionEventType.CONNECT_ERROR);
        }
        Fakes.CmIdFake i = new Fakes.CmIdFake();
        CompletableFuture<ConnectionInfo> f = new CompletableFuture<>();
        QpConnection c = QpConnection.active(i, new Hooks(), SERVER, new ConnectParameters(null, 0, 0), null, f,
                SETTINGS, () -> now);
        c.startActive();
        c.onCmEvent(CmAction.ADDR_RESOLVED, CmEvents.ADDR_RESOLVED);
        c.onCmEvent(CmAction.ROUTE_RESOLVED, CmEvents.ROUTE_RESOLVED);
        c.onCmEvent(CmAction.UNREACHABLE, CmEvents.UNREACHABLE);
        assertThat(failure(f).type()).isEqualTo(ConnectionEventType.UNREACHABLE);
    }

    @Test
    void aRouteThroughAnotherDeviceIsRefused() {
        id.contextKey = 99;
        QpConnection c = active(new byte[0]);
        c.startActive();
        c.onCmEvent(CmAction.ADDR_RESOLVED, CmEvents.ADDR_RESOLVED);
        ConnectException e = failure(future);
        assertThat(e.type()).isEqualTo(ConnectionEventType.UNREACHABLE);
        assertThat(e).hasMessageContaining("reached through another RDMA device");
        assertThat(id.calls).doesNotContain("resolveRoute");
    }

    @Test
    void resolutionEndsAtTheResolveTimeout() {
        QpConnection c = active(new byte[0]);
        c.startActive();
        now += 1_999_000_000L;
        c.onTick(now);
        assertThat(future).isNotDone();
        c.onCmEvent(CmAction.ADDR_RESOLVED, CmEvents.ADDR_RESOLVED);
        now += 1_000_000L;
        c.onTick(now);
        ConnectException e = failure(future);
        assertThat(e.type()).isEqualTo(ConnectionEventType.UNREACHABLE);
        assertThat(e).hasMessageContaining("did not finish within 2000 ms");
    }

    @Test
    void theHandshakeEndsAtTheConnectTimeout() {
        QpConnection c = active(new byte[0]);
        c.startActive();
        c.onCmEvent(CmAction.ADDR_RESOLVED, CmEvents.ADDR_RESOLVED);
        now += 1_500_000_000L; // resolution time does not count against the handshake
        c.onCmEvent(CmAction.ROUTE_RESOLVED, CmEvents.ROUTE_RESOLVED);
        now += 4_999_000_000L;
        c.onTick(now);
        assertThat(future).isNotDone();
        now += 1_000_000L;
        c.onTick(now);
        ConnectException e = failure(future);
        assertThat(e.type()).isEqualTo(ConnectionEventType.CONNECT_ERROR);
        assertThat(e).hasMessageContaining("did not finish within 5000 ms");
        c.onCmEvent(CmAction.ESTABLISHED, CmEvents.ESTABLISHED); // too late: ignored
        assertThat(hooks.calls).doesNotContain("established");
    }

    @Test
    void aFailingNativeCallFailsTheConnectWithItsErrno() {
        id.failNext = new IOException("rdma_resolve_addr failed, errno 101");
        QpConnection c = active(new byte[0]);
        c.startActive();
        ConnectException e = failure(future);
        assertThat(e.type()).isEqualTo(ConnectionEventType.UNREACHABLE);
        assertThat(e).hasMessageContaining("ENETUNREACH");
    }

    @Test
    void aQueuePairThatCannotBeCreatedFailsTheConnect() {
        hooks.bindFailure = new VerbsException("rdma_create_qp failed: EINVAL");
        QpConnection c = active(new byte[0]);
        c.startActive();
        c.onCmEvent(CmAction.ADDR_RESOLVED, CmEvents.ADDR_RESOLVED);
        c.onCmEvent(CmAction.ROUTE_RESOLVED, CmEvents.ROUTE_RESOLVED);
        ConnectException e = failure(future);
        assertThat(e.type()).isEqualTo(ConnectionEventType.CONNECT_ERROR);
        assertThat(e).hasMessageContaining("creating the queue pair failed");
        assertThat(id.calls).noneMatch(s -> s.startsWith("connect"));
    }

    @Test
    void theConsumersDisconnectWhileConnectingFailsTheConnect() {
        QpConnection c = active(new byte[0]);
        c.startActive();
        c.disconnect();
        assertThat(failure(future).type()).isEqualTo(ConnectionEventType.CONNECT_ERROR);
    }

    @Test
    void theConsumersDisconnectWhenEstablishedAsksRdmaCmAndWaitsForTheEvent() {
        QpConnection c = establishedActive();
        c.disconnect();
        assertThat(id.calls).last().isEqualTo("disconnect");
        assertThat(events).isEmpty();
        c.onCmEvent(CmAction.DISCONNECTED, CmEvents.DISCONNECTED);
        assertThat(events).extracting(ConnectionEvent::type).containsExactly(ConnectionEventType.DISCONNECTED);
    }

    @Test
    void aSecondDisconnectDoesNotCallRdmaCmAgain() {
        QpConnection c = establishedActive();
        c.disconnect();
        c.disconnect();
        assertThat(id.calls.stream().filter("disconnect"::equals).count()).isEqualTo(1);
        c.onCmEvent(CmAction.DISCONNECTED, CmEvents.DISCONNECTED);
        c.disconnect();
        assertThat(events).hasSize(1);
        c.close();
        assertThat(id.calls.stream().filter("disconnect"::equals).count()).isEqualTo(1);
    }

    @Test
    void closingAfterDeviceRemovalStillDisconnectsThePeer() {
        QpConnection c = establishedActive();
        c.deviceRemoved();
        c.close();
        assertThat(id.calls).endsWith("disconnect", "destroyQp", "destroy");
    }

    @Test
    void closingDestroysTheQueuePairAndTheIdAndSilencesTheListener() {
        QpConnection c = establishedActive();
        c.close();
        assertThat(id.calls).endsWith("disconnect", "destroyQp", "destroy");
        c.onCmEvent(CmAction.DISCONNECTED, CmEvents.DISCONNECTED);
        assertThat(events).isEmpty();
        c.close();
        assertThat(id.calls.stream().filter("destroy"::equals).count()).isEqualTo(1);
    }

    @Test
    void closingWhileConnectingFailsTheFutureAndDestroysOnlyTheId() {
        QpConnection c = active(new byte[0]);
        c.startActive();
        c.close();
        assertThat(failure(future)).hasMessageContaining("closed while connecting");
        assertThat(id.calls).endsWith("destroy").doesNotContain("destroyQp");
    }

    @Test
    void thePassiveSideBindsAcceptsAndTellsTheListener() throws VerbsException {
        QpConnection c = QpConnection.passive(id, hooks, events::add, SETTINGS, () -> now, Duration.ofSeconds(10));
        c.startPassive();
        assertThat(hooks.calls).containsExactly("bind");
        assertThat(id.calls).containsExactly("accept 6/0");
        c.onCmEvent(CmAction.ESTABLISHED, CmEvents.ESTABLISHED);
        assertThat(events).extracting(ConnectionEvent::type).containsExactly(ConnectionEventType.ESTABLISHED);
        assertThat(hooks.info.ord()).isEqualTo(8);
    }

    @Test
    void aPassiveHandshakeThatFailsOrTimesOutTellsTheListener() throws VerbsException {
        QpConnection c = QpConnection.passive(id, hooks, events::add, SETTINGS, () -> now, Duration.ofSeconds(10));
        c.startPassive();
        c.onCmEvent(CmAction.CONNECT_ERROR, CmEvents.CONNECT_ERROR);
        assertThat(events).singleElement().satisfies(e -> {
            assertThat(e.type()).isEqualTo(ConnectionEventType.CONNECT_ERROR);
            assertThat(e.cause()).isInstanceOf(ConnectException.class);
        });

        Fakes.CmIdFake id2 = new Fakes.CmIdFake();
        List<ConnectionEvent> events2 = new ArrayList<>();
        QpConnection c2 = QpConnection.passive(id2, new Hooks(), events2::add, SETTINGS, () -> now,
                Duration.ofSeconds(10));
        c2.startPassive();
        c2.onTick(now + 10_000_000_000L);
        assertThat(events2).singleElement().extracting(ConnectionEvent::type)
                .isEqualTo(ConnectionEventType.CONNECT_ERROR);
    }

    /** Over siw the TCP connect of iWARP happens inside rdma_connect: a closed port fails the call itself. */
    @Test
    void aConnectRefusedByTheTcpPeerIsRejectedNotAConnectError() throws Exception {
        QpConnection c = active(new byte[0]);
        c.startActive();
        c.onCmEvent(CmAction.ADDR_RESOLVED, CmEvents.ADDR_RESOLVED);
        id.failNext = new IOException("j2c::connect: rdma_connect failed: Connection refused\n");
        c.onCmEvent(CmAction.ROUTE_RESOLVED, CmEvents.ROUTE_RESOLVED);
        ConnectException e = failure(future);
        assertThat(e.type()).isEqualTo(ConnectionEventType.REJECTED);
        assertThat(e).hasMessageContaining("refused");
    }

    @Test
    void anotherRdmaConnectFailureIsAConnectError() throws Exception {
        QpConnection c = active(new byte[0]);
        c.startActive();
        c.onCmEvent(CmAction.ADDR_RESOLVED, CmEvents.ADDR_RESOLVED);
        id.failNext = new IOException("j2c::connect: rdma_connect failed: Invalid argument\n");
        c.onCmEvent(CmAction.ROUTE_RESOLVED, CmEvents.ROUTE_RESOLVED);
        assertThat(failure(future).type()).isEqualTo(ConnectionEventType.CONNECT_ERROR);
    }

    @Test
    void aFailingAcceptIsTheCallersException() {
        id.failNext = null;
        Hooks h = new Hooks();
        Fakes.CmIdFake failing = new Fakes.CmIdFake() {
            @Override
            public void accept(int retryCount, int rnrRetryCount) throws IOException {
                throw new IOException("accept failed, errno 22");
            }
        };
        QpConnection c = QpConnection.passive(failing, h, events::add, SETTINGS, () -> now, Duration.ofSeconds(10));
        assertThatThrownBy(c::startPassive).isInstanceOf(VerbsException.class)
                .hasMessageContaining("rdma_accept failed").hasMessageContaining("EINVAL");
    }
}
