package org.rpcrdma4j.it.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.server.NfsServer;
import org.rpcrdma4j.nfs.server.rdma.NfsRdmaServer;
import org.rpcrdma4j.nfs.server.rdma.RdmaServerMemory;
import org.rpcrdma4j.nfs.vfs.LocalVfs;
import org.rpcrdma4j.nfs.vfs.MemoryVfs;
import org.rpcrdma4j.xprt.server.RdmaRpcServer;
import org.rpcrdma4j.xprt.server.ServerCounter;

/**
 * Our server as the random I/O suites run it: {@code /local}, a {@code LocalVfs} directory, and {@code /mem}, an
 * in-memory export as {@code serve --memory} makes it (its blocks in the RDMA server's registered memory, lent to
 * READs; whole blocks of WRITE data kept where the server pulled them), NFSv3 and NFSv4 over RDMA on the software
 * device at its defaults and over TCP.
 */
public final class RandomIoServer implements AutoCloseable {
    private static final int MEMORY_BLOCK = 64 * 1024;

    private final Path localDir;
    private final LocalVfs local;
    private final MemoryVfs mem;
    private final NfsRdmaServer server;

    private RandomIoServer(Path localDir, LocalVfs local, MemoryVfs mem, NfsRdmaServer server) {
        this.localDir = localDir;
        this.local = local;
        this.mem = mem;
        this.server = server;
    }

    /** Starts the server, {@code /local} exporting {@code localDir}. */
    public static RandomIoServer start(Path localDir, String name) throws IOException {
        RdmaServerMemory memory = new RdmaServerMemory();
        MemoryVfs mem = new MemoryVfs(64L << 20, memory.blocks(MEMORY_BLOCK));
        LocalVfs local = LocalVfs.open(localDir);
        try {
            NfsRdmaServer server = NfsRdmaServer.start(
                    NfsServer.builder().export("/local", local).export("/mem", mem).bindAddress("127.0.0.1").port(0),
                    RdmaRpcServer.builder().bindAddress(InetAddress.getLoopbackAddress()).port(0)
                            .provider("soft", Map.of())
                            .registeredMemory((256L << 20) + (64L << 20))
                            .keptCallMemory(32L << 20).jmx(false).name(name),
                    memory);
            return new RandomIoServer(localDir, local, mem, server);
        } catch (IOException | RuntimeException e) {
            local.close();
            mem.close();
            throw e;
        }
    }

    public NfsRdmaServer server() {
        return server;
    }

    /** The file {@code name} of the export {@code /local} or {@code /mem} as the server holds it. */
    public byte[] held(String export, String name, int maxSize) throws IOException {
        if (export.equals("/local")) {
            return java.nio.file.Files.readAllBytes(localDir.resolve(name));
        }
        FileHandle fh = mem.lookup(mem.root(), name).handle();
        ByteBuffer held = ByteBuffer.allocate(maxSize + 1);
        mem.read(fh, 0, held);
        return Arrays.copyOf(held.array(), held.position());
    }

    /**
     * The server's counters after the random I/O: WRITE blocks were kept and READ data went out from where it was
     * read, and no call was refused or dropped. Returns the counters.
     */
    public Map<ServerCounter, Long> checkCounters() {
        Map<ServerCounter, Long> c = server.rdma().counters();
        assertThat(c.get(ServerCounter.KEPT_CALL_BYTES)).as("WRITE blocks kept by the in-memory export")
                .isPositive();
        assertThat(c.get(ServerCounter.ZERO_COPY_BYTES)).as("READ data RDMA-written from where it was read")
                .isPositive();
        for (ServerCounter bad : List.of(ServerCounter.ERR_VERS_SENT, ServerCounter.ERR_CHUNK_SENT,
                ServerCounter.DROPPED_GARBAGE, ServerCounter.DROPPED_INTERNAL_ERROR,
                ServerCounter.DROPPED_NO_RESOURCES)) {
            assertThat(c.get(bad)).as(bad.name()).isZero();
        }
        return c;
    }

    @Override
    public void close() throws IOException {
        try {
            server.close();
        } finally {
            local.close();
            mem.close();
        }
    }
}
