package org.rpcrdma4j.benchmarks.verbs;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;

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

/** The baseline for {@link VerbsLatencyBenchmark}: a loopback TCP echo of {@code size} bytes with plain Java NIO. */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Thread)
public class NioLatencyBenchmark {

    @Param({"64", "4096"})
    public int size;

    private ServerSocketChannel server;
    private SocketChannel client;
    private Thread echo;
    private ByteBuffer out;
    private ByteBuffer in;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        server = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        client = SocketChannel.open(server.getLocalAddress());
        client.setOption(StandardSocketOptions.TCP_NODELAY, true);
        SocketChannel peer = server.accept();
        peer.setOption(StandardSocketOptions.TCP_NODELAY, true);
        out = ByteBuffer.allocateDirect(size);
        in = ByteBuffer.allocateDirect(size);
        echo = new Thread(() -> {
            ByteBuffer b = ByteBuffer.allocateDirect(size);
            try (peer) {
                while (true) {
                    b.clear();
                    while (b.hasRemaining()) {
                        if (peer.read(b) < 0) {
                            return;
                        }
                    }
                    b.flip();
                    while (b.hasRemaining()) {
                        peer.write(b);
                    }
                }
            } catch (IOException e) {
                // closed at teardown
            }
        }, "nio-echo");
        echo.start();
    }

    @Benchmark
    public int roundTrip() throws IOException {
        out.clear();
        while (out.hasRemaining()) {
            client.write(out);
        }
        in.clear();
        while (in.hasRemaining()) {
            if (client.read(in) < 0) {
                throw new IOException("echo closed");
            }
        }
        return in.get(0);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        client.close();
        echo.join(5000);
        server.close();
    }
}
