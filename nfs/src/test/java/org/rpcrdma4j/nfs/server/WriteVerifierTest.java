package org.rpcrdma4j.nfs.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.StableHow;
import org.rpcrdma4j.nfs.client.NfsClient;
import org.rpcrdma4j.nfs.client.WriteReply;
import org.rpcrdma4j.nfs.vfs.MemoryVfs;
import org.rpcrdma4j.nfs.vfs.Vfs;

/** The write verifier a WRITE reply carries. */
@org.junit.jupiter.api.Timeout(60)
class WriteVerifierTest {
    /**
     * Another thread's failed writeback changes the verifier while this WRITE is in the file system (here the write
     * itself moves it on after storing the data): the reply carries the verifier from before, as Linux's server's
     * does, so that the COMMIT's differs and the client sends the data again. It carried the new one, under which a
     * COMMIT confirmed data that may be gone.
     */
    @Test
    void theWriteReplyCarriesTheVerifierFromBeforeTheWrite() throws Exception {
        MemoryVfs inner = new MemoryVfs(64L << 20);
        AtomicLong verifier = new AtomicLong(1);
        Vfs vfs = (Vfs) Proxy.newProxyInstance(Vfs.class.getClassLoader(), new Class<?>[] {Vfs.class},
                (p, m, a) -> {
                    if (m.getName().equals("writeVerifier")) {
                        return verifier.get();
                    }
                    try {
                        Object r = m.invoke(inner, a);
                        if (m.getName().equals("write")) {
                            verifier.incrementAndGet(); // a concurrent COMMIT's fsync failed just now
                        }
                        return r;
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        NfsServer server = NfsServer.builder().bindAddress("127.0.0.1").port(0).export("/export", vfs)
                .workerThreads(2).build().start();
        try (NfsClient nfs = NfsClient.mount("tcp://127.0.0.1:" + server.port() + "/export")) {
            FileHandle fh = nfs.createFile("/f");
            long before = verifier.get();
            WriteReply w = nfs.write(fh, 0, Unpooled.wrappedBuffer(new byte[100]), StableHow.UNSTABLE);
            long commit = nfs.commit(fh, 0, 0);
            assertThat(w.verifier()).as("WRITE's verifier").isEqualTo(before);
            assertThat(commit).as("COMMIT's verifier differs, so the client resends").isNotEqualTo(w.verifier());
        } finally {
            server.close();
        }
    }
}
