package org.rpcrdma4j.benchmarks.codec;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
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
import org.rpcrdma4j.codec.RpcRdmaProc;

/**
 * Encode and decode of a header with one Read chunk, two Write chunks and a Reply chunk, three segments each
 * (12 segments, 264 bytes on the wire), into and out of a reused pooled direct buffer.
 * <p>
 * {@code java -jar benchmarks/target/benchmarks.jar 'codec' -f 1 -wi 3 -i 5 -prof gc}; on a shared machine add
 * {@code -prof org.rpcrdma4j.benchmarks.codec.ThreadCpuProfiler} and compare the {@code cpu.time.min} figures.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class RpcRdmaCodecBenchmark {

    private final RpcRdmaHeader call = new RpcRdmaHeader();
    private final RpcRdmaHeader received = new RpcRdmaHeader();
    private final RpcRdmaHeader reply = new RpcRdmaHeader();
    /** A typical NFS READ Call: one Write chunk of one segment. */
    private final RpcRdmaHeader small = new RpcRdmaHeader();
    private ByteBuf buffer;
    private ByteBuf encoded;
    private int xid;

    @Setup
    public void setUp() {
        call.clear().xid(0x1234).credits(128).proc(RpcRdmaProc.RDMA_MSG)
                .addReadSegment(132, 0x1001, 4096, 0x7f0000001000L)
                .addReadSegment(132, 0x1002, 4096, 0x7f0000002000L)
                .addReadSegment(132, 0x1003, 1000, 0x7f0000003000L)
                .beginWriteChunk()
                .addWriteSegment(0x2001, 4096, 0x7f0000010000L)
                .addWriteSegment(0x2002, 4096, 0x7f0000011000L)
                .addWriteSegment(0x2003, 4096, 0x7f0000012000L)
                .beginWriteChunk()
                .addWriteSegment(0x3001, 4096, 0x7f0000020000L)
                .addWriteSegment(0x3002, 4096, 0x7f0000021000L)
                .addWriteSegment(0x3003, 4096, 0x7f0000022000L)
                .beginReplyChunk()
                .addReplySegment(0x4001, 4096, 0x7f0000030000L)
                .addReplySegment(0x4002, 4096, 0x7f0000031000L)
                .addReplySegment(0x4003, 4096, 0x7f0000032000L);
        small.clear().xid(0x5678).credits(128).beginWriteChunk().addWriteSegment(0x5001, 1 << 20, 0x7f0000100000L);
        buffer = PooledByteBufAllocator.DEFAULT.directBuffer(4096, 4096);
        encoded = PooledByteBufAllocator.DEFAULT.directBuffer(4096, 4096);
        RpcRdmaEncoder.encode(encoded, call);
    }

    @TearDown
    public void tearDown() {
        buffer.release();
        encoded.release();
    }

    /** A Call's header written, then read back: the per-RPC cost on both sides. */
    @Benchmark
    public int encodeDecode() throws RpcRdmaDecodeException {
        buffer.clear();
        RpcRdmaEncoder.encode(buffer, call.xid(++xid));
        RpcRdmaDecoder.decode(buffer, received);
        return received.xid() + received.writeSegmentCount(1);
    }

    /** The same for a one-segment header (52 bytes), the common case. */
    @Benchmark
    public int encodeDecodeSmall() throws RpcRdmaDecodeException {
        buffer.clear();
        RpcRdmaEncoder.encode(buffer, small.xid(++xid));
        RpcRdmaDecoder.decode(buffer, received);
        return received.xid() + received.writeSegmentCount(0);
    }

    /** Encoding only. */
    @Benchmark
    public int encode() {
        buffer.clear();
        return RpcRdmaEncoder.encode(buffer, call.xid(++xid));
    }

    /** Decoding only, flyweight style at an absolute index. */
    @Benchmark
    public int decode() throws RpcRdmaDecodeException {
        return RpcRdmaDecoder.decodeAt(encoded, 0, encoded.writerIndex(), received) + received.replySegmentCount();
    }

    /** The responder's Reply header: echo the Write list with the lengths written, encode. */
    @Benchmark
    public int replyEcho() {
        reply.clear().xid(call.xid()).credits(32).copyWriteListFrom(call)
                .setWriteChunkBytesWritten(0, 9000).setWriteChunkBytesWritten(1, 0);
        buffer.clear();
        return RpcRdmaEncoder.encode(buffer, reply);
    }
}
