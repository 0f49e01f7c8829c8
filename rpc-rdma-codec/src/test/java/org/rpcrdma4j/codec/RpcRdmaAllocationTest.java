package org.rpcrdma4j.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * Once warm, encoding and decoding allocate nothing: measured with the per-thread allocation counter over
 * thousands of iterations, where a single allocation per round would show as hundreds of kilobytes (the JMH
 * benchmark shows 0 B/op with {@code -prof gc}).
 */
class RpcRdmaAllocationTest {

    @Test
    void encodeAndDecodeAllocateNothingOnceWarm() throws Exception {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        assumeTrue(threads.isThreadAllocatedMemorySupported(), "per-thread allocation counter not available");
        threads.setThreadAllocatedMemoryEnabled(true);

        RpcRdmaHeader call = new RpcRdmaHeader().xid(1).credits(128)
                .addReadSegment(132, 0x11, 4096, 0x1000L).addReadSegment(132, 0x12, 4096, 0x2000L)
                .addReadSegment(132, 0x13, 100, 0x3000L)
                .beginWriteChunk().addWriteSegment(0x21, 4096, 0x4000L).addWriteSegment(0x22, 4096, 0x5000L)
                .addWriteSegment(0x23, 4096, 0x6000L)
                .beginWriteChunk().addWriteSegment(0x24, 4096, 0x7000L).addWriteSegment(0x25, 4096, 0x8000L)
                .addWriteSegment(0x26, 4096, 0x9000L)
                .beginReplyChunk().addReplySegment(0x31, 4096, 0xa000L).addReplySegment(0x32, 4096, 0xb000L)
                .addReplySegment(0x33, 4096, 0xc000L);
        RpcRdmaHeader received = new RpcRdmaHeader();
        RpcRdmaHeader reply = new RpcRdmaHeader();
        // a direct buffer made outside the allocator, so that leak detection does not record accesses
        ByteBuf buffer = Unpooled.wrappedBuffer(ByteBuffer.allocateDirect(4096)).clear();

        long sink = run(call, received, reply, buffer, 20_000);
        long before = threads.getCurrentThreadAllocatedBytes();
        sink += run(call, received, reply, buffer, 10_000);
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;

        assertThat(sink).isNotZero();
        assertThat(received.contentEquals(reply)).isTrue();
        // One object per round would be at least 16 bytes a round (160,000 in all). Less than a byte a round leaves
        // room only for one-off runtime work on this thread (a deoptimisation, a lazily resolved constant).
        assertThat(allocated).as("bytes allocated by 10,000 encode/decode/reply rounds").isLessThan(10_000);
        buffer.release();
    }

    /** Calls: encode, decode. Replies: echo the Write list with lengths, encode, decode. And an ERR_CHUNK. */
    private static long run(RpcRdmaHeader call, RpcRdmaHeader received, RpcRdmaHeader reply, ByteBuf buffer,
                            int rounds) throws RpcRdmaDecodeException {
        long sink = 0;
        for (int i = 0; i < rounds; i++) {
            buffer.clear();
            RpcRdmaEncoder.encode(buffer, call.xid(i));
            sink += RpcRdmaDecoder.decode(buffer, received);
            reply.clear().xid(received.xid()).credits(32).copyWriteListFrom(received)
                    .setWriteChunkBytesWritten(0, i & 0x1fff).setWriteChunkBytesWritten(1, 0);
            buffer.clear();
            RpcRdmaEncoder.encode(buffer, reply);
            sink += RpcRdmaDecoder.decode(buffer, received);
            sink += received.writeLength(0, 1) + received.soleHandle() + received.writeChunkLength(0);
            buffer.clear();
            sink += RpcRdmaEncoder.encodeErrChunk(buffer, i, 32);
        }
        return sink;
    }
}
