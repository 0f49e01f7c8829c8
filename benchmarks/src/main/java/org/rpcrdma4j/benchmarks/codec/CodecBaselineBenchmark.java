package org.rpcrdma4j.benchmarks.codec;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.rpcrdma4j.codec.RpcRdmaDecodeException;
import org.rpcrdma4j.codec.RpcRdmaDecoder;
import org.rpcrdma4j.codec.RpcRdmaEncoder;
import org.rpcrdma4j.codec.RpcRdmaHeader;

/**
 * What the machine can do at all for a 264-byte header, as a floor for {@link RpcRdmaCodecBenchmark}: copying the
 * bytes out of a pooled direct buffer, and reading its 66 big-endian words from a heap copy or from the buffer.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class CodecBaselineBenchmark {

    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final int SIZE = 264;

    private final byte[] bytes = new byte[512];
    private ByteBuf buffer;
    private ByteBuf empty;
    private final RpcRdmaHeader header = new RpcRdmaHeader();
    private final RpcRdmaHeader emptyHeader = new RpcRdmaHeader().xid(1).credits(32);

    @Setup
    public void setUp() {
        buffer = PooledByteBufAllocator.DEFAULT.directBuffer(4096, 4096);
        for (int i = 0; i < SIZE; i++) {
            buffer.writeByte(i * 7);
        }
        empty = PooledByteBufAllocator.DEFAULT.directBuffer(4096, 4096);
        RpcRdmaEncoder.encode(empty, emptyHeader);
    }

    /** The codec's fixed cost: decoding a 28-byte RDMA_MSG header with three empty lists. */
    @Benchmark
    public int decodeEmpty() throws RpcRdmaDecodeException {
        return RpcRdmaDecoder.decodeAt(empty, 0, empty.writerIndex(), header) + header.xid();
    }

    /** The codec's fixed cost: encoding a 28-byte RDMA_MSG header with three empty lists. */
    @Benchmark
    public int encodeEmpty() {
        return RpcRdmaEncoder.encodeAt(buffer, 1024, emptyHeader);
    }

    @TearDown
    public void tearDown() {
        buffer.release();
        empty.release();
    }

    /** One bulk copy of the header into a heap array. */
    @Benchmark
    public int copy() {
        buffer.getBytes(0, bytes, 0, SIZE);
        return bytes[SIZE - 1];
    }

    /** The copy, then every word read from the array. */
    @Benchmark
    public int copyAndSum() {
        buffer.getBytes(0, bytes, 0, SIZE);
        int sum = 0;
        for (int p = 0; p < SIZE; p += 4) {
            sum += (int) INT.get(bytes, p);
        }
        return sum;
    }

    /** Every word read from the array, without the copy. */
    @Benchmark
    public int sumHeap() {
        int sum = 0;
        for (int p = 0; p < SIZE; p += 4) {
            sum += (int) INT.get(bytes, p);
        }
        return sum;
    }

    /** Every word read from the direct buffer, each read checked by the buffer. */
    @Benchmark
    public int sumDirect() {
        int sum = 0;
        for (int p = 0; p < SIZE; p += 4) {
            sum += buffer.getInt(p);
        }
        return sum;
    }

    /** The heap array written word by word and copied into the buffer: the encoder's floor. */
    @Benchmark
    public int fillAndCopyOut() {
        for (int p = 0; p < SIZE; p += 4) {
            INT.set(bytes, p, p);
        }
        buffer.setBytes(0, bytes, 0, SIZE);
        return bytes[5];
    }
}
