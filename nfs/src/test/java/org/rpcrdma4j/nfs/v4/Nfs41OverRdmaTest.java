package org.rpcrdma4j.nfs.v4;

import org.rpcrdma4j.nfs.binding.NfsBinding;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.rpcrdma4j.nfs.client.NfsClientConfig;
import org.rpcrdma4j.nfs.client.rdma.RdmaDataTransport;
import org.rpcrdma4j.nfs.v4.Compound41.CreateSymlink;
import org.rpcrdma4j.nfs.v4.Compound41.GetAttr;
import org.rpcrdma4j.nfs.v4.Compound41.GetFh;
import org.rpcrdma4j.nfs.v4.Compound41.PutFh;
import org.rpcrdma4j.nfs.v4.Compound41.Read;
import org.rpcrdma4j.nfs.v4.Compound41.ReadLink;
import org.rpcrdma4j.nfs.v4.Compound41.Sequence;
import org.rpcrdma4j.nfs.v4.Compound41.WantDelegation;
import org.rpcrdma4j.nfs.v4.Compound41.Write;
import org.rpcrdma4j.nfs.v4.Compound41Res.GetAttrOk;
import org.rpcrdma4j.nfs.v4.Compound41Res.ReadOk;
import org.rpcrdma4j.nfs.v4.Compound41Res.WriteOk;
import org.rpcrdma4j.verbs.ResourceCounts;
import org.rpcrdma4j.xprt.XprtCounter;
import org.rpcrdma4j.xprt.client.RdmaClientConfig;
import org.rpcrdma4j.xprt.client.RdmaClientTransport;
import org.rpcrdma4j.xprt.server.RdmaRpcServer;
import org.rpcrdma4j.xprt.server.ServerCounter;

/**
 * NFSv4.1 over RPC-over-RDMA end to end on the software iWARP device: {@link MemoryNfs41Program}, a plain oncrpc4j
 * program, served by {@link RdmaRpcServer} with the NFS binding ({@link org.rpcrdma4j.nfs.binding.NfsBinding}: NFSv3 and
 * NFSv4), called with unmodified oncrpc4j {@link RpcCall}s over {@link RdmaClientTransport} with the same binding.
 * Each binding is wrapped in a {@link RecordingBinding} so that the tests see what the transports were told, and the
 * counters of both sides show which chunks were used:
 * <ul>
 * <li>a WRITE's data goes to the server in a Read chunk at the data item's position (the chunk carries exactly the
 * data, the rest of the COMPOUND, GETATTR after the WRITE included, stays inline), and the server stores exactly
 * those bytes;</li>
 * <li>a READ's data comes back through a Write chunk sized by the READ's count, RDMA-written from the program's
 * registered buffer, and the client rebuilds the reply (GETATTR after the READ included) with the same bytes;</li>
 * <li>a symbolic link's text travels the same ways in CREATE and READLINK;</li>
 * <li>when an operation the binding does not walk (WANT_DELEGATION) comes first, nothing is placed directly: the
 * call goes inline or whole in a position-zero Read chunk, the reply inline or through the Reply chunk, and the
 * bytes are still right.</li>
 * </ul>
 * Sizes 0, 1, 4097 (just over the 4096-byte inline threshold) and 1 MiB + 1 (odd, so XDR padding is exercised).
 * After all tests the server holds no connection, registered page, queue pair or completion queue.
 */
@Timeout(120)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class Nfs41OverRdmaTest {
    private static final AtomicInteger SERVERS = new AtomicInteger();
    /** xid, CALL, RPC version, program, version, procedure; AUTH_NONE credential and verifier. */
    private static final int RPC_CALL_HEADER = 24 + 8 + 8;
    private static final int INLINE = 4096;
    /** An RPC-over-RDMA header without chunks. */
    private static final int RDMA_HEADER = 28;
    private static final int MIB = 1 << 20;
    private static final int ATTRS = Compound41.bitmap(Compound41.ATTR_TYPE, Compound41.ATTR_CHANGE,
            Compound41.ATTR_SIZE);

    private RdmaRpcServer server;
    private MemoryNfs41Program program;
    private RdmaClientTransport client;
    private RecordingBinding clientBinding;
    private RecordingBinding serverBinding;
    private final AtomicInteger sequence = new AtomicInteger();

    @BeforeAll
    void start() throws Exception {
        program = new MemoryNfs41Program((call, length) -> server.bufferAllocator().allocate(call, length));
        serverBinding = new RecordingBinding(NfsBinding.INSTANCE);
        server = RdmaRpcServer.builder()
                .name("nfs41-e2e-" + SERVERS.incrementAndGet())
                .provider("soft", Map.of("name", "nfs41-server", "engineThreads", "1"))
                .bindAddress(InetAddress.getLoopbackAddress())
                .port(0)
                .stopTimeout(Duration.ofSeconds(5))
                .program(new OncRpcProgram(Nfs4.PROGRAM, Nfs4.VERSION), program)
                .binding(serverBinding)
                .inlineSizes(4096, 4096) // the chunk rules at Linux's thresholds: a 4097-byte item moves
                .jmx(false)
                .build();
        server.start();
        clientBinding = new RecordingBinding(NfsBinding.INSTANCE);
        client = RdmaClientTransport.connect(server.boundAddress(), RdmaClientConfig.builder()
                .provider("soft", Map.of("name", "nfs41-client", "engineThreads", "1"))
                .binding(clientBinding)
                .inlineSizes(4096, 4096)
                .maxPayloadSize(2 * MIB)
                // a COMPOUND the binding cannot bound gets a Reply chunk of this size: room for a 1 MiB READ
                .defaultMaxReplySize(2 * MIB)
                .jmx(false)
                .build());
    }

    @AfterAll
    void stop() {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            try {
                await("connections closed", () -> server.connectionCount() == 0);
                await("registered buffer pages returned", () -> server.registeredPagesInUse() == 0);
                assertThat(program.buffersHeld).hasValue(0);
            } finally {
                server.stop();
            }
            assertThat(server.device().resourceCounts()).isEqualTo(ResourceCounts.NONE);
        }
    }

    @BeforeEach
    void forget() {
        clientBinding.reset();
        serverBinding.reset();
    }

    // ------------------------------------------------------------------------------------------------ tests

    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(ints = {0, 1, 4097, MIB + 1})
    void writeDataTravelsInTheReadChunkAtItsPosition(int size) throws Exception {
        byte[] fh = program.createFile();
        byte[] data = pattern(size, 11);
        Compound41 args = Compound41.of(sequence(), new PutFh(fh), new Write(0, data), new GetAttr(ATTRS));
        Counts before = counts();

        Compound41Res res = compound(args);

        assertThat(res.status).isZero();
        assertThat(res.result(2, WriteOk.class).count()).isEqualTo(size);
        assertThat(res.result(3, GetAttrOk.class).size()).isEqualTo(size);
        assertThat(program.contents(fh)).isEqualTo(data);
        // the client found the item where RFC 8881's XDR puts it
        assertThat(clientBinding.lastCallItem).isEqualTo(new RecordingBinding.Located(Nfs4.VERSION,
                Nfs4.PROC_COMPOUND, args.itemOffset(), size));
        Counts after = counts();
        if (RPC_CALL_HEADER + args.size() + RDMA_HEADER <= INLINE) {
            assertThat(after.minus(before, XprtCounter.READ_CHUNK_COUNT)).isZero();
            assertThat(after.minus(before, ServerCounter.READ_CHUNKS)).isZero();
        } else {
            // one Read chunk carrying exactly the data item, not the whole call
            assertThat(after.minus(before, XprtCounter.READ_CHUNK_COUNT)).isOne();
            assertThat(after.minus(before, XprtCounter.NOMSG_CALL_COUNT)).isZero();
            assertThat(after.minus(before, ServerCounter.READ_CHUNKS)).isOne();
            assertThat(after.minus(before, ServerCounter.READ_CHUNK_BYTES)).isEqualTo(size);
        }
    }

    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(ints = {0, 1, 4097, MIB + 1})
    void readDataComesBackThroughTheWriteChunk(int size) throws Exception {
        byte[] fh = program.createFile();
        byte[] data = pattern(size, 12);
        assertThat(compound(Compound41.of(sequence(), new PutFh(fh), new Write(0, data))).status).isZero();
        Counts before = counts();

        Compound41Res res = compound(Compound41.of(sequence(), new PutFh(fh), new Read(0, size),
                new GetAttr(ATTRS)));

        assertThat(res.status).isZero();
        ReadOk read = res.result(2, ReadOk.class);
        assertThat(read.bytes()).isEqualTo(data);
        assertThat(read.eof()).isTrue();
        assertThat(res.result(3, GetAttrOk.class).size()).isEqualTo(size);
        assertThat(clientBinding.lastMaxReplyItemLength).isEqualTo(size);
        Counts after = counts();
        if (size + 1024 <= INLINE) {
            // the reply without its data is bounded well below 1 KiB: the largest possible reply fits inline
            assertThat(after.minus(before, XprtCounter.WRITE_CHUNK_COUNT)).isZero();
            assertThat(after.minus(before, XprtCounter.REPLY_CHUNK_COUNT)).isZero();
            assertThat(after.minus(before, ServerCounter.INLINE_REPLIES)).isOne();
        } else {
            assertThat(after.minus(before, XprtCounter.WRITE_CHUNK_COUNT)).isOne();
            assertThat(after.minus(before, XprtCounter.REPLY_CHUNK_COUNT)).isZero();
            assertThat(serverBinding.lastReplyItem.found()).isTrue();
            assertThat(serverBinding.lastReplyItem.length()).isEqualTo(size);
            assertThat(after.minus(before, ServerCounter.WRITE_CHUNKS)).isOne();
            assertThat(after.minus(before, ServerCounter.WRITE_CHUNK_BYTES)).isEqualTo(size);
            // written straight from the program's registered buffer
            assertThat(after.minus(before, ServerCounter.ZERO_COPY_BYTES)).isEqualTo(size);
            // the rest of the reply (GETATTR after the READ) went inline beside it
            assertThat(after.minus(before, ServerCounter.INLINE_REPLIES)).isOne();
        }
    }

    /** A READ at the end of the file asks for more than there is: the Write chunk is as large as the count. */
    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(ints = {0, 1, 4097, MIB + 1})
    void writeChunkIsSizedByTheReadCount(int size) throws Exception {
        byte[] fh = program.createFile();
        byte[] data = pattern(size, 13);
        assertThat(compound(Compound41.of(sequence(), new PutFh(fh), new Write(0, data))).status).isZero();
        int count = size + 64 * 1024;
        Counts before = counts();

        Compound41Res res = compound(Compound41.of(sequence(), new PutFh(fh), new Read(0, count)));

        assertThat(res.status).isZero();
        assertThat(res.result(2, ReadOk.class).bytes()).isEqualTo(data);
        assertThat(res.result(2, ReadOk.class).eof()).isTrue();
        assertThat(clientBinding.lastMaxReplyItemLength).isEqualTo(count);
        Counts after = counts();
        assertThat(after.minus(before, XprtCounter.WRITE_CHUNK_COUNT)).isOne();
        assertThat(after.minus(before, ServerCounter.WRITE_CHUNK_BYTES)).isEqualTo(size);
    }

    /** Data both ways in one COMPOUND: a Read chunk for the WRITE, a Write chunk for the READ. */
    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(ints = {4097, MIB + 1})
    void writeAndReadInOneCompound(int size) throws Exception {
        byte[] fh = program.createFile();
        byte[] data = pattern(size, 14);
        Counts before = counts();

        Compound41Res res = compound(Compound41.of(sequence(), new PutFh(fh), new Write(0, data),
                new Read(0, size), new GetAttr(ATTRS)));

        assertThat(res.status).isZero();
        assertThat(program.contents(fh)).isEqualTo(data);
        assertThat(res.result(3, ReadOk.class).bytes()).isEqualTo(data);
        assertThat(res.result(4, GetAttrOk.class).size()).isEqualTo(size);
        Counts after = counts();
        assertThat(after.minus(before, XprtCounter.READ_CHUNK_COUNT)).isOne();
        assertThat(after.minus(before, XprtCounter.WRITE_CHUNK_COUNT)).isOne();
        assertThat(after.minus(before, ServerCounter.READ_CHUNK_BYTES)).isEqualTo(size);
        assertThat(after.minus(before, ServerCounter.WRITE_CHUNK_BYTES)).isEqualTo(size);
    }

    /** Only the first WRITE's data moves into a chunk; the second stays inline (RFC 8267's one item per call). */
    @Test
    void onlyTheFirstWriteMoves() throws Exception {
        byte[] fh = program.createFile();
        byte[] first = pattern(6001, 15);
        byte[] second = pattern(2001, 16);
        Counts before = counts();

        Compound41Res res = compound(Compound41.of(sequence(), new PutFh(fh), new Write(0, first),
                new Write(first.length, second), new GetAttr(ATTRS)));

        assertThat(res.status).isZero();
        byte[] expected = new byte[first.length + second.length];
        System.arraycopy(first, 0, expected, 0, first.length);
        System.arraycopy(second, 0, expected, first.length, second.length);
        assertThat(program.contents(fh)).isEqualTo(expected);
        Counts after = counts();
        assertThat(after.minus(before, XprtCounter.READ_CHUNK_COUNT)).isOne();
        assertThat(after.minus(before, XprtCounter.NOMSG_CALL_COUNT)).isZero();
        assertThat(after.minus(before, ServerCounter.READ_CHUNK_BYTES)).isEqualTo(first.length);
    }

    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(ints = {0, 1, 4097, MIB + 1})
    void writeAfterAnOperationTheBindingDoesNotWalkGoesWithoutDdp(int size) throws Exception {
        byte[] fh = program.createFile();
        byte[] data = pattern(size, 17);
        Compound41 args = Compound41.of(sequence(), new PutFh(fh), new WantDelegation(), new Write(0, data),
                new GetAttr(ATTRS));
        Counts before = counts();

        Compound41Res res = compound(args);

        assertThat(res.status).isZero();
        assertThat(res.result(3, WriteOk.class).count()).isEqualTo(size);
        assertThat(program.contents(fh)).isEqualTo(data);
        assertThat(clientBinding.lastCallItem.found()).as("the binding stops at WANT_DELEGATION").isFalse();
        Counts after = counts();
        int call = RPC_CALL_HEADER + args.size();
        if (call + RDMA_HEADER <= INLINE) {
            assertThat(after.minus(before, XprtCounter.READ_CHUNK_COUNT)).isZero();
            assertThat(after.minus(before, ServerCounter.READ_CHUNKS)).isZero();
        } else {
            // RDMA_NOMSG: the whole call in a position-zero Read chunk
            assertThat(after.minus(before, XprtCounter.NOMSG_CALL_COUNT)).isOne();
            assertThat(after.minus(before, XprtCounter.READ_CHUNK_COUNT)).isOne();
            assertThat(after.minus(before, ServerCounter.READ_CHUNKS)).isOne();
            assertThat(after.minus(before, ServerCounter.READ_CHUNK_BYTES)).isEqualTo(call);
        }
    }

    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(ints = {0, 1, 4097, MIB + 1})
    void readAfterAnOperationTheBindingDoesNotWalkGoesWithoutDdp(int size) throws Exception {
        byte[] fh = program.createFile();
        byte[] data = pattern(size, 18);
        assertThat(compound(Compound41.of(sequence(), new PutFh(fh), new Write(0, data))).status).isZero();
        Counts before = counts();

        Compound41Res res = compound(Compound41.of(sequence(), new PutFh(fh), new WantDelegation(),
                new Read(0, size), new GetAttr(ATTRS)));

        assertThat(res.status).isZero();
        assertThat(res.result(3, ReadOk.class).bytes()).isEqualTo(data);
        assertThat(res.result(4, GetAttrOk.class).size()).isEqualTo(size);
        assertThat(clientBinding.lastMaxReplyItemLength).as("no Write chunk size for an unwalked COMPOUND")
                .isEqualTo(-1);
        Counts after = counts();
        // the reply cannot be bounded: a Reply chunk, never a Write chunk
        assertThat(after.minus(before, XprtCounter.WRITE_CHUNK_COUNT)).isZero();
        assertThat(after.minus(before, XprtCounter.REPLY_CHUNK_COUNT)).isOne();
        assertThat(after.minus(before, ServerCounter.WRITE_CHUNKS)).isZero();
        if (size > INLINE) {
            assertThat(after.minus(before, ServerCounter.REPLY_CHUNKS)).isOne();
            assertThat(after.minus(before, ServerCounter.REPLY_CHUNK_BYTES)).isGreaterThan(size);
        } else {
            assertThat(after.minus(before, ServerCounter.INLINE_REPLIES)).isOne();
        }
    }

    /**
     * The other two DDP-eligible items of RFC 8267: a symbolic link's text goes out in a Read chunk at its position in
     * CREATE, and READLINK's text comes back through a Write chunk as large as the longest link text the binding
     * expects.
     */
    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(ints = {1, 4000})
    void symbolicLinkTextTravelsInChunks(int length) throws Exception {
        byte[] dir = program.createDirectory();
        byte[] text = new byte[length];
        for (int i = 0; i < length; i++) {
            text[i] = (byte) ('a' + i % 26);
        }
        Compound41 create = Compound41.of(sequence(), new PutFh(dir), new CreateSymlink(text, "link"), new GetFh());
        Counts before = counts();

        Compound41Res created = compound(create);

        assertThat(created.status).isZero();
        byte[] link = created.result(3, Compound41Res.GetFhOk.class).handle();
        assertThat(program.linkText(link)).isEqualTo(text);
        assertThat(clientBinding.lastCallItem).isEqualTo(new RecordingBinding.Located(Nfs4.VERSION,
                Nfs4.PROC_COMPOUND, create.itemOffset(), length));
        Counts after = counts();
        if (RPC_CALL_HEADER + create.size() + RDMA_HEADER <= INLINE) {
            assertThat(after.minus(before, XprtCounter.READ_CHUNK_COUNT)).isZero();
        } else {
            assertThat(after.minus(before, XprtCounter.READ_CHUNK_COUNT)).isOne();
            assertThat(after.minus(before, XprtCounter.NOMSG_CALL_COUNT)).isZero();
            assertThat(after.minus(before, ServerCounter.READ_CHUNK_BYTES)).isEqualTo(length);
        }

        before = counts();
        Compound41Res read = compound(Compound41.of(sequence(), new PutFh(link), new ReadLink()));

        assertThat(read.status).isZero();
        assertThat(read.result(2, Compound41Res.ReadLinkOk.class).link()).isEqualTo(text);
        assertThat(clientBinding.lastMaxReplyItemLength).isEqualTo(Nfs4.DECODE_MAX_PATH);
        after = counts();
        assertThat(after.minus(before, XprtCounter.WRITE_CHUNK_COUNT)).isOne();
        assertThat(after.minus(before, ServerCounter.WRITE_CHUNKS)).isOne();
        assertThat(after.minus(before, ServerCounter.WRITE_CHUNK_BYTES)).isEqualTo(length);
    }

    /** A READ whose COMPOUND fails before it: the Write chunk goes unused, the error reply decodes. */
    @Test
    void aCompoundFailingBeforeItsReadLeavesTheWriteChunkUnused() throws Exception {
        byte[] unknownHandle = new byte[27];
        Counts before = counts();

        Compound41Res res = compound(Compound41.of(sequence(), new PutFh(unknownHandle), new Read(0, MIB),
                new GetAttr(ATTRS)));

        assertThat(res.status).isEqualTo(Compound41Res.NFS4ERR_BADHANDLE);
        assertThat(res.results).hasSize(2);
        assertThat(res.result(1, Compound41Res.Failed.class).status()).isEqualTo(Compound41Res.NFS4ERR_BADHANDLE);
        Counts after = counts();
        assertThat(after.minus(before, XprtCounter.WRITE_CHUNK_COUNT)).isOne();
        assertThat(after.minus(before, ServerCounter.WRITE_CHUNKS)).isZero();
        assertThat(after.minus(before, ServerCounter.WRITE_CHUNK_BYTES)).isZero();
        assertThat(after.minus(before, ServerCounter.INLINE_REPLIES)).isOne();
    }

    /** Many COMPOUNDs at once from several threads, each with its own file: every byte lands where it belongs. */
    @Test
    void compoundsInParallel() throws Exception {
        int threads = 6;
        int filesPerThread = 8;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                done.add(pool.submit(() -> {
                    for (int f = 0; f < filesPerThread; f++) {
                        int size = 20_000 + 4097 * thread + 13 * f;
                        byte[] fh = program.createFile();
                        byte[] data = pattern(size, 100 * thread + f);
                        assertThat(compound(Compound41.of(sequence(), new PutFh(fh), new Write(0, data),
                                new GetAttr(ATTRS))).status).isZero();
                        Compound41Res res = compound(Compound41.of(sequence(), new PutFh(fh), new Read(0, size),
                                new GetAttr(ATTRS)));
                        assertThat(res.result(2, ReadOk.class).bytes()).isEqualTo(data);
                        assertThat(program.contents(fh)).isEqualTo(data);
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * The NFS client's RDMA transport ({@link RdmaDataTransport}) adds the NFS binding of both versions by default:
     * NFSv4 COMPOUNDs sent with oncrpc4j over its transport get their Read and Write chunks too.
     */
    @Test
    void theNfsClientsRdmaTransportPlacesNfs4DataDirectly() throws Exception {
        int size = 100_001;
        try (RdmaDataTransport nfs = RdmaDataTransport.connect(server.boundAddress(), NfsClientConfig.defaults(),
                RdmaClientConfig.builder().provider("soft", Map.of("name", "nfs41-nfs-client", "engineThreads", "1"))
                        .jmx(false).build())) {
            RdmaClientTransport transport = nfs.transport();
            assertThat(transport.config().bindings()).containsExactly(NfsBinding.INSTANCE);
            byte[] fh = program.createFile();
            byte[] data = pattern(size, 19);
            var before = transport.stats();
            long pulled = server.counters().get(ServerCounter.READ_CHUNK_BYTES);
            long pushed = server.counters().get(ServerCounter.WRITE_CHUNK_BYTES);

            assertThat(compound(transport, Compound41.of(sequence(), new PutFh(fh), new Write(0, data))).status)
                    .isZero();
            Compound41Res res = compound(transport, Compound41.of(sequence(), new PutFh(fh), new Read(0, size)));

            assertThat(program.contents(fh)).isEqualTo(data);
            assertThat(res.result(2, ReadOk.class).bytes()).isEqualTo(data);
            var after = transport.stats();
            assertThat(after.get(XprtCounter.READ_CHUNK_COUNT) - before.get(XprtCounter.READ_CHUNK_COUNT)).isOne();
            assertThat(after.get(XprtCounter.NOMSG_CALL_COUNT) - before.get(XprtCounter.NOMSG_CALL_COUNT)).isZero();
            assertThat(after.get(XprtCounter.WRITE_CHUNK_COUNT) - before.get(XprtCounter.WRITE_CHUNK_COUNT)).isOne();
            assertThat(server.counters().get(ServerCounter.READ_CHUNK_BYTES) - pulled).isEqualTo(size);
            assertThat(server.counters().get(ServerCounter.WRITE_CHUNK_BYTES) - pushed).isEqualTo(size);

            // the same through the transport's own call(), which encodes the COMPOUND as any XdrAble
            byte[] more = pattern(size, 20);
            Compound41 write = Compound41.of(sequence(), new PutFh(fh), new Write(0, more));
            write.tag = "e2e";
            assertThat(nfs.call(Nfs4.PROGRAM, Nfs4.VERSION, Nfs4.PROC_COMPOUND, write, new Compound41Res())
                    .get(60, TimeUnit.SECONDS).status).isZero();
            Compound41 read = Compound41.of(sequence(), new PutFh(fh), new Read(0, size));
            read.tag = "e2e";
            Compound41Res back = nfs.call(Nfs4.PROGRAM, Nfs4.VERSION, Nfs4.PROC_COMPOUND, read, new Compound41Res())
                    .get(60, TimeUnit.SECONDS);
            assertThat(program.contents(fh)).isEqualTo(more);
            assertThat(back.result(2, ReadOk.class).bytes()).isEqualTo(more);
            var last = transport.stats();
            assertThat(last.get(XprtCounter.READ_CHUNK_COUNT) - after.get(XprtCounter.READ_CHUNK_COUNT)).isOne();
            assertThat(last.get(XprtCounter.WRITE_CHUNK_COUNT) - after.get(XprtCounter.WRITE_CHUNK_COUNT)).isOne();
            assertThat(server.counters().get(ServerCounter.READ_CHUNK_BYTES) - pulled).isEqualTo(2L * size);
            assertThat(server.counters().get(ServerCounter.WRITE_CHUNK_BYTES) - pushed).isEqualTo(2L * size);
        }
    }

    // ---------------------------------------------------------------------------------------------- helpers

    private Compound41Res compound(Compound41 args) throws Exception {
        return compound(client, args);
    }

    private static Compound41Res compound(RdmaClientTransport transport, Compound41 args) throws Exception {
        args.tag = "e2e";
        Compound41Res res = new Compound41Res();
        new RpcCall(Nfs4.PROGRAM, Nfs4.VERSION, new RpcAuthTypeNone(), transport)
                .call(Nfs4.PROC_COMPOUND, args, res, 60, TimeUnit.SECONDS);
        assertThat(res.tag).isEqualTo("e2e");
        return res;
    }

    private Sequence sequence() {
        return new Sequence(MemoryNfs41Program.SESSION, sequence.incrementAndGet(), 0);
    }

    /** Deterministic bytes. */
    static byte[] pattern(int n, int seed) {
        byte[] b = new byte[n];
        int x = seed * 0x9E3779B9 | 1;
        for (int i = 0; i < n; i++) {
            x ^= x << 13;
            x ^= x >>> 17;
            x ^= x << 5;
            b[i] = (byte) x;
        }
        return b;
    }

    private Counts counts() {
        Map<XprtCounter, Long> c = new EnumMap<>(XprtCounter.class);
        var stats = client.stats();
        for (XprtCounter x : XprtCounter.values()) {
            c.put(x, stats.get(x));
        }
        return new Counts(c, Map.copyOf(server.counters()));
    }

    /** Counters of both sides at one moment. */
    private record Counts(Map<XprtCounter, Long> client, Map<ServerCounter, Long> server) {
        long minus(Counts before, XprtCounter c) {
            return client.get(c) - before.client.get(c);
        }

        long minus(Counts before, ServerCounter c) {
            return server.get(c) - before.server.get(c);
        }
    }

    private static void await(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("not within 30 s: " + what);
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                fail("interrupted");
            }
        }
    }
}
