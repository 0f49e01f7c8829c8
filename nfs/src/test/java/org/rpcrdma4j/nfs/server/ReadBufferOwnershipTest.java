package org.rpcrdma4j.nfs.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.nfs.StableHow;
import org.rpcrdma4j.nfs.client.NfsClient;
import org.rpcrdma4j.nfs.vfs.MemoryVfs;

/**
 * READ data goes through the server's {@link ReadBufferAllocator}: every buffer handed out is released once, after
 * its reply was sent or when the READ failed, and the bytes the client gets are the ones read into it.
 */
@Timeout(60)
class ReadBufferOwnershipTest {
    private final AtomicInteger allocated = new AtomicInteger();
    private final AtomicInteger released = new AtomicInteger();

    private final ReadBufferAllocator counting = new ReadBufferAllocator() {
        private final PooledReadBufferAllocator pooled = new PooledReadBufferAllocator();

        @Override
        public io.netty.buffer.ByteBuf allocate(RpcCall call, int length) {
            allocated.incrementAndGet();
            io.netty.buffer.ByteBuf b = pooled.allocate(call, length);
            // counted when its last reference goes; Netty refuses a release beyond that
            return org.rpcrdma4j.nfs.WatchedBuffer.over(b.nioBuffer(0, length), () -> {
                released.incrementAndGet();
                b.release();
            });
        }
    };

    @Test
    void everyReadBufferIsReleasedOnce() throws Exception {
        try (MemoryVfs vfs = new MemoryVfs(1 << 26);
             NfsServer server = NfsServer.builder().bindAddress("127.0.0.1").port(0).export("/m", vfs)
                     .readBuffers(counting).build().start();
             NfsClient nfs = NfsClient.mount("tcp://127.0.0.1:" + server.port() + "/m")) {
            FileHandle fh = nfs.createFile("/f");
            byte[] data = org.rpcrdma4j.nfs.testing.Bytes.random(3 << 20, 8);
            for (int off = 0; off < data.length; off += 1 << 20) {
                nfs.write(fh, off, Unpooled.wrappedBuffer(data, off, 1 << 20), StableHow.UNSTABLE);
            }
            assertThat(nfs.readAll("/f")).isEqualTo(data);
            assertThatThrownBy(() -> nfs.read(nfs.root(), 0, Unpooled.buffer(10))).isInstanceOf(NfsException.class);
            int reads = allocated.get();
            assertThat(reads).isGreaterThanOrEqualTo(4);
            while (released.get() < reads) { // releases follow the sends' completions
                Thread.sleep(10);
            }
            assertThat(released.get()).isEqualTo(allocated.get());
        }
    }
}
