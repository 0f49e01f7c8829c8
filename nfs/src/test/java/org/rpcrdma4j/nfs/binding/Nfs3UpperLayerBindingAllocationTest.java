package org.rpcrdma4j.nfs.binding;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.StableHow;
import org.rpcrdma4j.nfs.testing.XdrBytes;
import org.rpcrdma4j.nfs.xdr.FileRangeArgs;
import org.rpcrdma4j.nfs.xdr.Nfs3;
import org.rpcrdma4j.nfs.xdr.WriteArgs;
import org.rpcrdma4j.xprt.DataItem;

/**
 * The binding runs per RPC on the RDMA transports' hot path: after warm-up it allocates nothing (measured with the
 * JVM's per-thread allocation counter, which counts bytes, not time).
 */
class Nfs3UpperLayerBindingAllocationTest {
    @Test
    void locatingAllocatesNothing() throws Exception {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        ByteBuf write = XdrBytes.encodeToBuf(new WriteArgs(FileHandle.wrap(new byte[32]), 0, StableHow.UNSTABLE,
                Unpooled.wrappedBuffer(new byte[4096])));
        ByteBuf read = XdrBytes.encodeToBuf(new FileRangeArgs(FileHandle.wrap(new byte[32]), 0, 1 << 20));
        Nfs3UpperLayerBinding ulb = Nfs3UpperLayerBinding.INSTANCE;
        DataItem item = new DataItem();
        long sink = 0;
        for (int i = 0; i < 200_000; i++) { // warm up, so that the JIT has compiled and inlined the walk
            ulb.locateCallItem(3, Nfs3.WRITE, write, item);
            sink += item.offset() + ulb.maxReplyItemLength(3, Nfs3.READ, read) + ulb.maxInlineReplySize(3, Nfs3.READ,
                    read);
        }
        long before = threads.getThreadAllocatedBytes(Thread.currentThread().getId());
        for (int i = 0; i < 100_000; i++) {
            ulb.locateCallItem(3, Nfs3.WRITE, write, item);
            sink += item.offset() + ulb.maxReplyItemLength(3, Nfs3.READ, read) + ulb.maxInlineReplySize(3, Nfs3.READ,
                    read);
        }
        long allocated = threads.getThreadAllocatedBytes(Thread.currentThread().getId()) - before;
        assertThat(sink).isPositive();
        // a few hundred bytes of slack for the measurement itself; 100,000 calls allocating would be megabytes
        assertThat(allocated).isLessThan(1024);
    }
}
