package org.rpcrdma4j.xprt.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import io.netty.buffer.PooledByteBufAllocator;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.ResourceCounts;
import org.rpcrdma4j.xprt.TestDevices;

/**
 * Runs one {@link RdmaRpcServer} (software device, loopback, ephemeral port) serving {@link EchoProgram} with
 * {@link EchoBinding} for a test class, and after every test checks that nothing leaked: once the test's clients are
 * gone, the server has no connection, no queue pair or completion queue, no registration handle, and every page of
 * its buffer pool is free.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class ServerFixture {
    private static final AtomicInteger SERVERS = new AtomicInteger();
    static final Duration WAIT = RawClient.WAIT;

    RdmaRpcServer server;
    private RdmaDevice ownDevice;
    EchoProgram program;
    InetSocketAddress address;
    private final List<RawClient> clients = new ArrayList<>();
    /** Pages of the server's pool the test holds ({@link #takeEveryFreePage}), given back after each test. */
    private final List<io.netty.buffer.ByteBuf> heldPages = new ArrayList<>();

    /** Changes the server's settings for a test class. */
    void configure(RdmaRpcServer.Builder builder) {
    }

    /** Options of the server's software device (all capabilities by default). */
    Map<String, String> deviceOptions() {
        return Map.of("name", "test-server", "engineThreads", "1");
    }

    /**
     * A device of the test class's own for the server, or null (the default): the server opens one with
     * {@link #deviceOptions()}. The server borrows it; it is closed after the server stopped.
     */
    RdmaDevice serverDevice() throws Exception {
        return null;
    }

    boolean serverHas(org.rpcrdma4j.verbs.DeviceCapability capability) {
        return server.device().attributes().has(capability);
    }

    @BeforeAll
    void startServer() throws Exception {
        program = new EchoProgram(procedure -> procedure == EchoProgram.READ_PLAIN
                ? (call, length) -> plain(length)
                : (call, length) -> server.bufferAllocator().allocate(call, length));
        RdmaRpcServer.Builder builder = RdmaRpcServer.builder()
                .name("test-server-" + SERVERS.incrementAndGet())
                .provider(TestDevices.PROVIDER, TestDevices.options(deviceOptions()))
                .bindAddress(TestDevices.address())
                .port(0)
                .stopTimeout(Duration.ofSeconds(5))
                .program(new OncRpcProgram(EchoProgram.PROGRAM, EchoProgram.VERSION), program)
                .binding(new EchoBinding());
        ownDevice = serverDevice();
        if (ownDevice != null) {
            builder.device(ownDevice);
        }
        configure(builder);
        server = builder.build();
        server.start();
        address = server.boundAddress();
    }

    @AfterAll
    void stopServer() {
        if (server != null) {
            server.stop();
            assertThat(server.device().resourceCounts()).isEqualTo(ResourceCounts.NONE);
        }
        if (ownDevice != null) {
            ownDevice.close();
        }
    }

    /** A client connected to the server, closed after the test. */
    RawClient client(boolean remoteInvalidation) throws Exception {
        RawClient c = RawClient.connect(address, remoteInvalidation);
        clients.add(c);
        return c;
    }

    /** Closes a client now (it is not closed again after the test). */
    void closeClient(RawClient c) {
        clients.remove(c);
        c.close();
    }

    /** Takes every page of the server's registered pool that is free now: the server runs out of memory for calls. */
    void takeEveryFreePage() {
        while (true) {
            io.netty.buffer.ByteBuf page = server.bufferAllocator().allocate(4096);
            if (!server.bufferAllocator().isRegistered(page)) {
                page.release();
                return;
            }
            heldPages.add(page);
        }
    }

    /** Gives back the pages {@link #takeEveryFreePage} took. */
    void giveThePagesBack() {
        heldPages.forEach(io.netty.buffer.ByteBuf::release);
        heldPages.clear();
    }

    @AfterEach
    void closeClientsAndCheckLeaks() {
        giveThePagesBack();
        for (RawClient c : clients) {
            c.close();
        }
        clients.clear();
        awaitNoLeaks();
    }

    /** Waits until the server holds nothing for connections or calls. */
    void awaitNoLeaks() {
        await("connections closed", () -> server.connectionCount() == 0);
        await("registered buffer pages returned", () -> server.registeredPagesInUse() == 0);
        await("queue pairs and completion queues closed", () -> {
            ResourceCounts c = server.device().resourceCounts();
            return c.queuePairs() == 0 && c.completionQueues() == 0
                    && c.memoryRegions() == server.arenaCount();
        });
        assertThat(server.counters().get(ServerCounter.CALLS_IN_FLIGHT)).isZero();
        assertThat(server.counters().get(ServerCounter.DISPATCH_QUEUE_DEPTH)).isZero();
    }

    void await(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("not within " + WAIT + ": " + what + "; server connections:\n" + server.describeConnections());
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                fail("interrupted");
            }
        }
    }

    long counter(ServerCounter c) {
        return server.counters().get(c);
    }

    /** A counter of the server's connection to {@code client} (which must still be open). */
    long counter(RawClient client, ServerCounter c) {
        Map<ServerCounter, Long> counters = server.connectionCounters().get(client.info.localAddress());
        assertThat(counters).as("the server's connection to " + client.info.localAddress()).isNotNull();
        return counters.get(c);
    }

    private static io.netty.buffer.ByteBuf plain(int length) {
        return PooledByteBufAllocator.DEFAULT.directBuffer(length, length);
    }
}
