package org.rpcrdma4j.xprt.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.UnaryOperator;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.rpcrdma4j.registration.RegisteredBuffer;
import org.rpcrdma4j.registration.RegisteredBufferPool;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.ResourceCounts;
import org.rpcrdma4j.xprt.TestDevices;
import org.rpcrdma4j.xprt.client.fake.FakeRdmaServer;
import org.rpcrdma4j.xprt.client.fake.TestProgram;

/**
 * Opens a device for the client and one for a {@link FakeRdmaServer} ({@link TestDevices}: software iWARP devices
 * unless the suite runs over another provider), connects transports, and after
 * each test closes everything and checks that nothing leaked: every registered buffer page is back in the transport's
 * pool and the client device has no protection domain, region, queue pair or completion queue left open.
 */
abstract class ClientTestBase {
    protected RdmaDevice clientDevice;
    protected RdmaDevice serverDevice;
    protected FakeRdmaServer server;
    private final List<RdmaClientTransport> transports = new ArrayList<>();
    /** Added to by callers' threads too (tests that allocate sinks on several threads): a concurrent queue. */
    private final Queue<RegisteredBuffer> buffers = new ConcurrentLinkedQueue<>();

    protected Map<String, String> clientDeviceOptions() {
        return Map.of();
    }

    protected FakeRdmaServer.Options serverOptions() {
        return new FakeRdmaServer.Options();
    }

    @BeforeEach
    void openDevices() throws Exception {
        clientDevice = TestDevices.open(clientDeviceOptions());
        serverDevice = TestDevices.open(Map.of());
        server = new FakeRdmaServer(serverDevice, serverOptions());
    }

    @AfterEach
    void closeAndCheck() {
        try {
            for (RegisteredBuffer b : buffers) {
                if (b.refCnt() > 0) {
                    b.release();
                }
            }
            for (RdmaClientTransport t : transports) {
                RegisteredBufferPool pool = t.bufferPool();
                t.close();
                assertThat(pool.pagesInUse()).as("registered pages still in use after close").isZero();
                assertThat(t.mbeanName()).isNull();
            }
            assertThat(clientDevice.resourceCounts()).as("client device resources left open")
                    .isEqualTo(ResourceCounts.NONE);
        } finally {
            server.close();
            clientDevice.close();
            serverDevice.close();
        }
    }

    /** Test defaults: the test program's binding, quick reconnects, keep-alive off, no JMX. */
    protected RdmaClientConfig.Builder config() {
        return RdmaClientConfig.builder().device(clientDevice).binding(TestProgram.BINDING)
                .reconnectDelay(Duration.ofMillis(50), Duration.ofMillis(400))
                .keepAlive(Duration.ZERO, Duration.ofSeconds(1))
                .defaultCallTimeout(Duration.ofSeconds(20))
                .timeouts(Duration.ofSeconds(5), Duration.ofSeconds(5))
                .jmx(false);
    }

    protected RdmaClientTransport connect() throws Exception {
        return connect(UnaryOperator.identity());
    }

    protected RdmaClientTransport connect(UnaryOperator<RdmaClientConfig.Builder> tweak) throws Exception {
        return track(RdmaClientTransport.connect(server.address(), tweak.apply(config()).build()));
    }

    /** Closes {@code t} (and checks it leaked nothing) after the test. */
    protected RdmaClientTransport track(RdmaClientTransport t) {
        transports.add(t);
        return t;
    }

    /** A registered buffer of the transport holding {@code bytes}, released after the test. */
    protected RegisteredBuffer registered(RdmaClientTransport t, byte[] bytes) throws Exception {
        RegisteredBuffer b = t.bufferPool().allocate(Math.max(1, bytes.length));
        b.setBytes(0, bytes);
        b.writerIndex(bytes.length);
        buffers.add(b);
        return b;
    }

    /** An empty registered buffer of {@code size} bytes, released after the test. */
    protected RegisteredBuffer registered(RdmaClientTransport t, int size) throws Exception {
        RegisteredBuffer b = t.bufferPool().allocate(size);
        buffers.add(b);
        return b;
    }

    // ------------------------------------------------------------------ DDP calls of the test program

    protected static ByteBuf nullCall(int xid) {
        return TestProgram.header(Unpooled.buffer(), xid, TestProgram.NULL);
    }

    protected static ByteBuf echoCall(int xid, byte[] data) {
        ByteBuf b = TestProgram.header(Unpooled.buffer(), xid, TestProgram.ECHO);
        return b.writeInt(data.length).writeBytes(data).writeZero((4 - (data.length & 3)) & 3);
    }

    /** PUT's message up to and including the data's length word (the data goes as a payload). */
    protected static ByteBuf putHead(int xid, int tag, int length) {
        return TestProgram.header(Unpooled.buffer(), xid, TestProgram.PUT).writeInt(tag).writeInt(length);
    }

    protected static ByteBuf getCall(int xid, int count, int seed) {
        return TestProgram.header(Unpooled.buffer(), xid, TestProgram.GET).writeInt(count).writeInt(seed);
    }

    protected static byte[] bytes(ByteBuf b, int index, int length) {
        byte[] out = new byte[length];
        b.getBytes(index, out);
        return out;
    }
}
