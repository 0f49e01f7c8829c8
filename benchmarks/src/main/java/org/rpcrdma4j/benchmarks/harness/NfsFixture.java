package org.rpcrdma4j.benchmarks.harness;

import java.io.IOException;
import java.net.InetAddress;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.rpcrdma4j.benchmarks.verbs.VerbsPair;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.StableHow;
import org.rpcrdma4j.nfs.binding.NfsBinding;
import org.rpcrdma4j.nfs.client.NfsClient;
import org.rpcrdma4j.nfs.server.NfsServer;
import org.rpcrdma4j.nfs.server.rdma.RdmaServerMemory;
import org.rpcrdma4j.nfs.v4.state.StateConfig;
import org.rpcrdma4j.nfs.vfs.BlockMemory;
import org.rpcrdma4j.nfs.vfs.MemoryVfs;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.xprt.server.RdmaRpcServer;
import org.rpcrdma4j.xprt.server.ServerCounter;

/**
 * One embedded NFSv3 server for every column: an {@link NfsServer} over a {@link MemoryVfs} serving NFS and MOUNT
 * over oncrpc4j TCP, and an {@link RdmaRpcServer} on its own software device serving the very same program objects
 * with the NFSv3 upper-layer binding. The VFS keeps its blocks in the RDMA server's registered memory and lends them
 * to READs ({@link BlockMemory}), so a READ's data goes from the file's memory straight to the client (RDMA WRITE,
 * or a gathering socket write over TCP); the READ buffer seam serves VFSes that do not lend. A WRITE's data that
 * arrived over RDMA becomes the file's block where the server pulled it ({@link RdmaServerMemory}, within {@link
 * #KEPT_CALL_MEMORY}), as the VFS keeps whole blocks of it instead of copying them. For EMC's client, which always
 * asks the portmapper on port 111 of the server's host, the server binds a random 127.x.y.z address with a minimal
 * portmapper there; where port 111 cannot be bound the EMC column is unavailable ({@link #emcUnavailable()}).
 * <p>
 * Files: {@value #DATA} ({@code fileBytes} of a known pattern, read by the READ rows) and {@value #SCRATCH} (as big,
 * overwritten by the WRITE rows). Owns the VFS, both servers and the server's device.
 */
final class NfsFixture implements AutoCloseable {
    static final String EXPORT = "/export";
    static final String DATA = "/data.bin";
    static final String SCRATCH = "/scratch.bin";
    /** NFSv4.1 beside NFSv3, without a grace period: nobody can hold state from before a fixture starts. */
    static final StateConfig NFS4 = NfsServer.defaultNfs4().withGraceTime(java.time.Duration.ZERO);
    /**
     * What the RDMA server lets the VFS keep of WRITE data (whole 1 MiB blocks where the data landed, see
     * {@link RdmaServerMemory}): enough for the whole scratch file of a full run (64 MiB, a page more per MiB).
     */
    static final long KEPT_CALL_MEMORY = 96L << 20;
    /** The pattern the data file repeats: 1 MiB of seeded random bytes. */
    static final byte[] PATTERN = pattern();

    private final MemoryVfs vfs;
    private final NfsServer nfs;
    private final RdmaDevice serverDevice;
    private final RdmaRpcServer rdma;
    private final String host;
    private final String emcUnavailable;
    private final long fileBytes;

    private NfsFixture(MemoryVfs vfs, NfsServer nfs, RdmaDevice serverDevice, RdmaRpcServer rdma, String host,
                       String emcUnavailable, long fileBytes) {
        this.vfs = vfs;
        this.nfs = nfs;
        this.serverDevice = serverDevice;
        this.rdma = rdma;
        this.host = host;
        this.emcUnavailable = emcUnavailable;
        this.fileBytes = fileBytes;
    }

    private static byte[] pattern() {
        byte[] p = new byte[1 << 20];
        new java.util.Random(20049).nextBytes(p);
        return p;
    }

    static NfsFixture start(HarnessConfig config) throws Exception {
        RdmaServerMemory serverMemory = new RdmaServerMemory();
        // 1 MiB blocks: a 1 MiB READ at a 1 MiB offset is one piece (one gather entry), not sixteen
        MemoryVfs vfs = new MemoryVfs(2 * config.fileBytes() + (16L << 20), serverMemory.blocks(1 << 20));
        NfsServer nfs = null;
        String host = null;
        String emcUnavailable = null;
        IOException portmapFailure = null;
        for (int attempt = 0; attempt < 5 && nfs == null; attempt++) {
            ThreadLocalRandom r = ThreadLocalRandom.current();
            String candidate = config.listenAddress() != null ? config.listenAddress()
                    : "127." + r.nextInt(1, 255) + "." + r.nextInt(0, 256) + "." + r.nextInt(2, 255);
            NfsServer s = NfsServer.builder().bindAddress(candidate).port(0).portmap(111).readBuffers(serverMemory)
                    .writeMemory(serverMemory).export(EXPORT, vfs).nfs4(NFS4).build();
            try {
                s.start();
                nfs = s;
                host = candidate;
            } catch (IOException e) {
                s.close();
                portmapFailure = e;
            }
        }
        if (nfs == null) {
            host = config.listenAddress() != null ? config.listenAddress() : "127.0.0.1";
            nfs = NfsServer.builder().bindAddress(host).port(0).readBuffers(serverMemory).writeMemory(serverMemory)
                    .export(EXPORT, vfs).nfs4(NFS4).build().start();
            emcUnavailable = "EMC's nfs-client needs a portmapper on port 111 of the server's address, which could "
                    + "not be bound here (" + portmapFailure.getMessage() + ")";
        }
        RdmaDevice device = VerbsPair.openDevice(config.device());
        RdmaRpcServer rdma = RdmaRpcServer.builder().bindAddress(InetAddress.getByName(host)).port(0).device(device)
                .programs(nfs.programs()).binding(NfsBinding.INSTANCE)
                .inlineSizes(config.inline(), config.inline()).keptCallMemory(KEPT_CALL_MEMORY)
                .sameThreadDispatch(config.sameThread()).jmx(false).name("harness-nfs-rdma").build();
        try {
            rdma.start();
        } catch (IOException e) {
            nfs.close();
            device.close();
            throw e;
        }
        serverMemory.bind(rdma.bufferAllocator());
        NfsFixture f = new NfsFixture(vfs, nfs, device, rdma, host, emcUnavailable, config.fileBytes());
        f.createFiles();
        return f;
    }

    /**
     * The VFS's blocks in the RDMA server's registered memory (plain direct memory before the server exists or when
     * its pool is full), lent to READs: a READ's data goes from the file's memory to the client's, by RDMA WRITE or
     * by a gathering socket write, as a kernel server sends from its page cache.
     */
    private void createFiles() throws IOException {
        try (NfsClient client = NfsClient.mount(tcpUrl())) {
            FileHandle data = client.createFile(DATA);
            FileHandle scratch = client.createFile(SCRATCH);
            ByteBuf block = Unpooled.wrappedBuffer(PATTERN);
            for (long off = 0; off < fileBytes; off += PATTERN.length) {
                client.write(data, off, block, StableHow.FILE_SYNC);
                client.write(scratch, off, block, StableHow.FILE_SYNC);
            }
        }
    }

    String host() {
        return host;
    }

    long fileBytes() {
        return fileBytes;
    }

    /** {@code tcp://} URL of the export (NFS and MOUNT on one port). */
    String tcpUrl() {
        return "tcp://" + host + ":" + nfs.port() + EXPORT;
    }

    /** {@code rdma://} URL of the export (MOUNT over TCP to the NFS server's port). */
    String rdmaUrl() {
        return "rdma://" + host + ":" + rdma.boundAddress().getPort() + EXPORT + "?mountport=" + nfs.port();
    }

    /** Why EMC's client cannot run here, or null when it can. */
    String emcUnavailable() {
        return emcUnavailable;
    }

    RdmaRpcServer rdmaServer() {
        return rdma;
    }

    /** Checks that {@code bytes[0..length)} read at offset {@code offset} of the data file hold the pattern. */
    static void checkPattern(long offset, byte[] bytes, int length) {
        for (int i = 0; i < length; i++) {
            if (bytes[i] != PATTERN[(int) ((offset + i) % PATTERN.length)]) {
                throw new IllegalStateException("READ at " + offset + " returned wrong data at byte " + i);
            }
        }
    }

    @Override
    public void close() throws IOException {
        vfs.close(); // first: the blocks it kept go back to the RDMA server's pool before the pool closes
        try {
            rdma.close();
        } finally {
            try {
                nfs.close();
            } finally {
                serverDevice.close();
            }
        }
    }

    /** The RDMA server's registered memory as the rows left it: WRITE data kept, refused, pages in use. */
    String serverMemoryNote() {
        Map<ServerCounter, Long> c = rdma.counters();
        return String.format(Locale.ROOT, "RDMA server: %,d bytes of WRITE data kept as file blocks, %,d keeps refused "
                        + "(budget %d MiB), %,d pages kept now, %,d registered pages in use",
                c.get(ServerCounter.KEPT_CALL_BYTES), c.get(ServerCounter.KEEPS_REFUSED), KEPT_CALL_MEMORY >> 20,
                rdma.keptPages(), rdma.registeredPagesInUse());
    }
}
