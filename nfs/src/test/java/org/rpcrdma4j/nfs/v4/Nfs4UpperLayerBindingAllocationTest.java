package org.rpcrdma4j.nfs.v4;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.xprt.DataItem;

/**
 * The binding runs per RPC on the RDMA transports' hot path: after warm-up it allocates nothing (measured with the
 * JVM's per-thread allocation counter, which counts bytes, not time), walking the COMPOUNDs the Linux client and
 * knfsd actually exchange: a WRITE call as the client has it and as the server receives it, a READ call, the reduced
 * READ reply, an OPEN reply.
 */
class Nfs4UpperLayerBindingAllocationTest {
    @Test
    void locatingAllocatesNothing() throws Exception {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        ByteBuf reducedWrite = Nfs4UpperLayerBindingLinuxVectorsTest.hex(
                Nfs4UpperLayerBindingLinuxVectorsTest.WRITE_CALL_REDUCED);
        ByteBuf write = Unpooled.buffer(reducedWrite.readableBytes() + 4096);
        write.writeBytes(reducedWrite, 0, 112).setInt(108, 4096).writeZero(4096)
                .writeBytes(reducedWrite, 112, reducedWrite.readableBytes() - 112); // a 4 KiB WRITE, unreduced
        ByteBuf read = Nfs4UpperLayerBindingLinuxVectorsTest.hex(Nfs4UpperLayerBindingLinuxVectorsTest.READ_CALL);
        ByteBuf readReply = Nfs4UpperLayerBindingLinuxVectorsTest.hex(
                Nfs4UpperLayerBindingLinuxVectorsTest.READ_REPLY_REDUCED);
        ByteBuf openReply = Nfs4UpperLayerBindingLinuxVectorsTest.hex(
                Nfs4UpperLayerBindingLinuxVectorsTest.OPEN_REPLY);
        Nfs4UpperLayerBinding ulb = Nfs4UpperLayerBinding.INSTANCE;
        DataItem item = new DataItem();
        long sink = 0;
        for (int i = 0; i < 200_000; i++) { // warm up, so that the JIT has compiled and inlined the walks
            sink += round(ulb, write, reducedWrite, read, readReply, openReply, item);
        }
        long before = threads.getThreadAllocatedBytes(Thread.currentThread().getId());
        for (int i = 0; i < 100_000; i++) {
            sink += round(ulb, write, reducedWrite, read, readReply, openReply, item);
        }
        long allocated = threads.getThreadAllocatedBytes(Thread.currentThread().getId()) - before;
        assertThat(sink).isEqualTo(300_000L * (112 + 112 + 16384 + 504 + 80 + 608 + 1));
        // a few hundred bytes of slack for the measurement itself; 100,000 rounds allocating would be megabytes
        assertThat(allocated).isLessThan(1024);
    }

    private static long round(Nfs4UpperLayerBinding ulb, ByteBuf write, ByteBuf reducedWrite, ByteBuf read,
                              ByteBuf readReply, ByteBuf openReply, DataItem item) throws Exception {
        long sum = 0;
        ulb.locateCallItem(4, 1, write, item);
        sum += item.offset();
        ulb.locateReducedCallItem(4, 1, reducedWrite, item);
        sum += item.offset();
        sum += ulb.maxReplyItemLength(4, 1, read);
        sum += ulb.maxInlineReplySize(4, 1, read);
        ulb.locateReducedReplyItem(4, 1, readReply, item);
        sum += item.offset();
        sum += ulb.maxInlineReplySize(4, 1, write);
        sum += ulb.locateReplyItem(4, 1, openReply, item) ? 0 : 1;
        return sum;
    }
}
