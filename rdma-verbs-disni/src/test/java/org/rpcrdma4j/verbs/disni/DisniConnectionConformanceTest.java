package org.rpcrdma4j.verbs.disni;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.rpcrdma4j.verbs.ConnectException;
import org.rpcrdma4j.verbs.ConnectParameters;
import org.rpcrdma4j.verbs.ConnectionEventType;
import org.rpcrdma4j.verbs.ConnectionInfo;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.conformance.AbstractConnectionConformanceTest;

/**
 * The conformance suite's connection tests over a real device; skipped with the reason unless -Drdma.disni=true.
 * <p>
 * The two tests of the suite that aim at a TCP port on the loopback address are replaced here by versions against the
 * device's own address (the suite's are disabled with that reason): an RDMA device reaches only the addresses of its
 * interfaces, so a connect to 127.0.0.1 fails in address resolution and never reaches the port. Over siw the suite's
 * {@code connectTimesOutWhenThePeerNeverAnswersTheHandshake} then waited forever in {@code ServerSocket.accept()},
 * which neither the connect's failure nor JUnit's timeout interrupts; the versions here bound that wait.
 */
@ExtendWith(HardwareOnly.class)
@ExtendWith(DisniConnectionConformanceTest.LoopbackTestsReplaced.class)
class DisniConnectionConformanceTest extends AbstractConnectionConformanceTest {

    /** Disables the suite's loopback-port tests, naming their replacements. */
    static final class LoopbackTestsReplaced implements ExecutionCondition {
        private static final Set<String> REPLACED = Set.of("connectToAPortNobodyListensOnIsRefused",
                "connectTimesOutWhenThePeerNeverAnswersTheHandshake");

        @Override
        public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
            return context.getTestMethod().filter(m -> REPLACED.contains(m.getName()))
                    .map(m -> ConditionEvaluationResult.disabled("aims at a TCP port on 127.0.0.1, which an RDMA "
                            + "device cannot reach; replaced by a version against the device's address in "
                            + DisniConnectionConformanceTest.class.getSimpleName()))
                    .orElse(ConditionEvaluationResult.enabled("not replaced"));
        }
    }

    @Override
    protected RdmaDevice newDevice() throws Exception {
        return new DisniProvider().open(HardwareSetup.options());
    }

    /** An iWARP RNIC (siw, hardware) completes Writes and Sends once sent: a peer's refusal only breaks the link. */
    @Override
    protected boolean remoteErrorsReachTheRequest() {
        return !iwarp();
    }

    /** DiSNI hands no private data to the Java side, in either direction. */
    @Override
    protected boolean privateDataTravels() {
        return false;
    }

    /** A DiSNI device listens on its own address. */
    @Override
    protected InetSocketAddress listenAddress() {
        return new InetSocketAddress(HardwareSetup.address(), 0);
    }

    /** An IPv4 address without a route (DiSNI speaks IPv4 only; the suite's default is IPv6). */
    @Override
    protected InetSocketAddress unreachableAddress() {
        return new InetSocketAddress("192.0.2.1", 20049);
    }

    /** The suite's {@code connectToAPortNobodyListensOnIsRefused}, aimed at the device's address. */
    @Test
    void connectToAClosedPortOfTheDeviceAddressIsRefused() throws Exception {
        Endpoint client = endpoint(device, Sizes.defaults());
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, HardwareSetup.address())) {
            port = s.getLocalPort();
        }
        CompletableFuture<ConnectionInfo> connected = device.connectionManager().connect(client.qp,
                new InetSocketAddress(HardwareSetup.address(), port), new ConnectParameters(new byte[0], 1, 1),
                client.events);
        assertConnectFails(connected, ConnectionEventType.REJECTED);
    }

    /** The suite's {@code connectTimesOutWhenThePeerNeverAnswersTheHandshake}, aimed at the device's address. */
    @Test
    void connectTimesOutWhenAListenerOnTheDeviceAddressNeverAnswersTheHandshake() throws Exception {
        assumeTrue(iwarp(), "a silent TCP listener is a meaningful peer only for iWARP");
        Endpoint client = endpoint(device, Sizes.defaults());
        try (ServerSocket silent = new ServerSocket(0, 1, HardwareSetup.address())) {
            silent.setSoTimeout((int) WAIT.toMillis()); // hang guard: accept() ignores interrupts
            CompletableFuture<ConnectionInfo> connected = device.connectionManager().connect(client.qp,
                    new InetSocketAddress(HardwareSetup.address(), silent.getLocalPort()),
                    new ConnectParameters(new byte[0], 1, 1, Duration.ofSeconds(5), Duration.ofMillis(300)),
                    client.events);
            Socket accepted;
            try {
                accepted = silent.accept();
            } catch (SocketTimeoutException e) {
                throw new AssertionError("the connect never reached the listener; it ended with "
                        + connected.handle((info, failure) -> info != null ? info : failure).getNow(null), e);
            }
            try (accepted) {
                assertConnectFails(connected, ConnectionEventType.CONNECT_ERROR);
                accepted.setSoTimeout((int) WAIT.toMillis());
                assertThat(accepted.getInputStream().readNBytes(16)).as("the MPA Request was sent at once")
                        .isEqualTo("MPA ID Req Frame".getBytes(StandardCharsets.US_ASCII));
            }
        }
    }

    private static void assertConnectFails(CompletableFuture<ConnectionInfo> connected, ConnectionEventType type) {
        assertThatThrownBy(() -> connected.get(WAIT.toSeconds(), TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause().isInstanceOfSatisfying(ConnectException.class, e -> assertThat(e.type()).isEqualTo(type));
    }
}
