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

/**
 * The baseline for {@link VerbsBandwidthBenchmark}: plain Java NIO over loopback TCP, one blocking writer (the
 * benchmark thread) and one reader thread draining into a direct buffer of at most 256 KiB — the same two threads of
 * work the device uses. One operation = one write of {@code size} bytes; the {@code bytes} counter gives the rate.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Thread)
public class NioBandwidthBenchmark {

    @Param({"4096", "65536", "1048576"})
    public int size;

    private ServerSocketChannel server;
    private SocketChannel writer;
    private SocketChannel reader;
    private Thread drain;
    private ByteBuffer source;
    private volatile boolean running;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        server = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        writer = SocketChannel.open(server.getLocalAddress());
        writer.setOption(StandardSocketOptions.TCP_NODELAY, true);
        reader = server.accept();
        source = ByteBuffer.allocateDirect(size);
        running = true;
        drain = new Thread(() -> {
            // at most 256 KiB a read: the copy out of the socket is cache-bound, and 1 MiB reads made this baseline
            // two to four times slower than what loopback TCP carries (the harness's raw TCP row shows the spread)
            ByteBuffer sink = ByteBuffer.allocateDirect(Math.max(65536, Math.min(size, 256 << 10)));
            try {
                while (running) {
                    sink.clear();
                    if (reader.read(sink) < 0) {
                        return;
                    }
                }
            } catch (IOException e) {
                // closed at teardown
            }
        }, "nio-drain");
        drain.start();
    }

    @Benchmark
    public void transfer(VerbsBandwidthBenchmark.Bytes counter) throws IOException {
        source.clear();
        while (source.hasRemaining()) {
            writer.write(source);
        }
        counter.bytes += size;
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        running = false;
        writer.close();
        drain.join(5000);
        reader.close();
        server.close();
    }
}
