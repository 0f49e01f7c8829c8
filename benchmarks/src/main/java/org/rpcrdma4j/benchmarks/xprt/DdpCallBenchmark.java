package org.rpcrdma4j.benchmarks.xprt;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.rpcrdma4j.registration.RegisteredBuffer;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.RdmaProviders;
import org.rpcrdma4j.xprt.client.RdmaCall;
import org.rpcrdma4j.xprt.client.RdmaClientConfig;
import org.rpcrdma4j.xprt.client.RdmaClientTransport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One RPC through the client transport's DDP API, end to end over the software iWARP device against a minimal
 * responder: marshaling (slot, message copy, registration of the chunks, transport header), the Send, the reply's
 * processing (header checks, credits, copy of the reply message) and the invalidation of every handle before the call
 * completes. {@code nullCall} is inline both ways; {@code put} sends a {@code size}-byte payload as a Read chunk
 * straight from registered memory (inline, gathered, when it fits); {@code get} places a {@code size}-byte result into
 * the caller's memory through a Write chunk. With {@code -prof gc}, {@code gc.alloc.rate.norm} is what one call
 * allocates in the whole JVM (caller, agent, device engines and responder): the target is 0 B/op.
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar DdpCallBenchmark -prof gc
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 3)
@Measurement(iterations = 5, time = 3)
@Fork(value = 1, jvmArgsAppend = {"-Dio.netty.leakDetection.level=disabled"})
public class DdpCallBenchmark {
    private static final Logger LOG = LoggerFactory.getLogger(DdpCallBenchmark.class);

    @Param({"1024", "65536"})
    public int size;

    private RdmaDevice clientDevice;
    private RdmaDevice serverDevice;
    private BenchResponder responder;
    private RdmaClientTransport transport;
    private RegisteredBuffer payload;
    private RegisteredBuffer sink;
    private final RdmaCall call = new RdmaCall();
    private final ByteBuf message = Unpooled.wrappedBuffer(ByteBuffer.allocateDirect(128)).clear();
    private final ByteBuf reply = Unpooled.wrappedBuffer(ByteBuffer.allocateDirect(512)).clear();

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        clientDevice = RdmaProviders.select("soft").open(Map.of());
        serverDevice = RdmaProviders.select("soft").open(Map.of());
        responder = new BenchResponder(serverDevice);
        CompletableFuture<RdmaClientTransport> connecting = CompletableFuture.supplyAsync(() -> {
            try {
                return RdmaClientTransport.connect(responder.address(), RdmaClientConfig.builder().device(clientDevice)
                        .jmx(false).keepAlive(Duration.ZERO, Duration.ofSeconds(1)).build());
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        responder.acceptAndServe();
        transport = connecting.get(30, TimeUnit.SECONDS);
        payload = transport.bufferPool().allocate(size);
        payload.setZero(0, size);
        sink = transport.bufferPool().allocate(size);
        // closing allocates plenty; JMH counts a trial tear-down's allocations into the last iteration, so the
        // forked JVM closes everything when it exits instead
        Runtime.getRuntime().addShutdownHook(new Thread(this::close, "benchmark-close"));
    }

    private ByteBuf header(int procedure) {
        return message.clear().writeInt(transport.nextXid()).writeInt(0).writeInt(2).writeInt(BenchResponder.PROGRAM)
                .writeInt(BenchResponder.VERSION).writeInt(procedure).writeInt(0).writeInt(0).writeInt(0).writeInt(0);
    }

    @Benchmark
    public int nullCall() throws Exception {
        reply.clear();
        transport.call(call.reset().message(header(BenchResponder.NULL)).reply(reply).maxReplySize(256));
        return reply.readableBytes();
    }

    @Benchmark
    public int put() throws Exception {
        reply.clear();
        header(BenchResponder.PUT).writeInt(size);
        transport.call(call.reset().message(message).payload(payload, 0, size).reply(reply).maxReplySize(256));
        return reply.getInt(24);
    }

    @Benchmark
    public int get() throws Exception {
        reply.clear();
        header(BenchResponder.GET).writeInt(size);
        transport.call(call.reset().message(message).sink(sink, 0, size).reply(reply));
        return (int) call.placedBytes();
    }

    @TearDown(Level.Trial)
    public void check() {
        if (transport.isOpen() && transport.stats().get(org.rpcrdma4j.xprt.XprtCounter.RECONNECTS) != 0) {
            throw new IllegalStateException("the connection was lost during the benchmark: " + transport.stats());
        }
    }

    private void close() {
        try {
            payload.release();
            sink.release();
            transport.close();
            responder.close();
            clientDevice.close();
            serverDevice.close();
        } catch (Exception e) {
            LOG.warn("closing failed", e);
        }
    }
}
