package org.rpcrdma4j.nfs.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.OncRpcSvc;
import org.dcache.oncrpc4j.rpc.OncRpcSvcBuilder;
import org.dcache.oncrpc4j.rpc.RpcAuth;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.rpc.net.IpProtocolType;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.rpcrdma4j.nfs.CreateMode;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.Nfs3Status;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.nfs.SetAttributes;
import org.rpcrdma4j.nfs.binding.Nfs3UpperLayerBinding;
import org.rpcrdma4j.nfs.testing.XdrBytes;
import org.rpcrdma4j.nfs.vfs.MemoryVfs;
import org.rpcrdma4j.nfs.xdr.CreateArgs;
import org.rpcrdma4j.nfs.xdr.DirOpArgs;
import org.rpcrdma4j.nfs.xdr.Mount3;
import org.rpcrdma4j.nfs.xdr.MountPathArgs;
import org.rpcrdma4j.nfs.xdr.MountRes;
import org.rpcrdma4j.nfs.xdr.Nfs3;
import org.rpcrdma4j.nfs.xdr.RenameArgs;
import org.rpcrdma4j.xprt.client.RdmaClientConfig;
import org.rpcrdma4j.xprt.client.RdmaClientTransport;
import org.rpcrdma4j.xprt.drc.CachedProcedures;
import org.rpcrdma4j.xprt.drc.Calls;
import org.rpcrdma4j.xprt.drc.DrcConfig;
import org.rpcrdma4j.xprt.drc.DrcCounter;
import org.rpcrdma4j.xprt.drc.DuplicateRequestCache;
import org.rpcrdma4j.xprt.drc.ReplyHold;
import org.rpcrdma4j.xprt.drc.RpcTcpClient;
import org.rpcrdma4j.xprt.drc.TcpProxy;
import org.rpcrdma4j.xprt.server.RdmaRpcServer;

/**
 * The NFS server over a {@link MemoryVfs} with a duplicate request cache ({@link NfsServer.Builder#duplicateRequestCache}):
 * CREATE, REMOVE and RENAME whose reply a client lost with its connection, sent again with the same xid on a new
 * connection, get the original success (not EXIST or NOENT) over TCP and over RDMA, and the file system shows one
 * execution.
 */
@Timeout(120)
class NfsDuplicateRequestCacheTest {
    private static final AtomicInteger SERVERS = new AtomicInteger();
    private static final RpcAuth USER = Calls.unix(1000);
    private static final OncRpcProgram NFS = new OncRpcProgram(Nfs3.PROGRAM, Nfs3.VERSION);

    private final MemoryVfs vfs = new MemoryVfs();
    private final DuplicateRequestCache drc = DuplicateRequestCache.create(CachedProcedures.nfsV3(),
            DrcConfig.DEFAULT);
    private final ExecutorService callers = Executors.newCachedThreadPool();
    private NfsServer nfs;
    private OncRpcSvc svc;
    private RdmaRpcServer rdma;
    private TcpProxy proxy;
    private RdmaClientTransport client;
    private ReplyHold hold;

    /** The export's root is the calling user's, so that its CREATEs are allowed. */
    @org.junit.jupiter.api.BeforeEach
    void giveTheRootToTheUser() throws Exception {
        vfs.setattr(vfs.root(), org.rpcrdma4j.nfs.SetAttributes.NONE.withOwner(1000, 1000), null);
    }

    @AfterEach
    void stop() throws IOException {
        if (hold != null) {
            hold.release();
        }
        if (client != null) {
            client.close();
        }
        if (rdma != null) {
            rdma.stop();
        }
        if (proxy != null) {
            proxy.close();
        }
        if (svc != null) {
            svc.stop();
        }
        if (nfs != null) {
            nfs.close();
        }
        callers.shutdownNow();
    }

    private NfsServer.Builder server(boolean withCache) {
        NfsServer.Builder b = NfsServer.builder().bindAddress("127.0.0.1").port(0).export("/export", vfs)
                .workerThreads(4);
        return withCache ? b.duplicateRequestCache(drc) : b;
    }

    // ------------------------------------------------------------------ calls

    private static byte[] message(int xid, int procedure, XdrAble args) {
        return Calls.call(xid, Nfs3.PROGRAM, Nfs3.VERSION, procedure, USER, args);
    }

    private static XdrAble createArgs(FileHandle root) {
        return new CreateArgs(root, "f", CreateMode.GUARDED, SetAttributes.NONE, 0);
    }

    private static XdrAble args(int procedure, FileHandle root) {
        return switch (procedure) {
            case Nfs3.CREATE -> createArgs(root);
            case Nfs3.REMOVE -> new DirOpArgs(root, "f");
            case Nfs3.RENAME -> new RenameArgs(root, "f", root, "g");
            default -> throw new IllegalArgumentException("procedure " + procedure);
        };
    }

    /** Makes the file system ready for {@code procedure} (REMOVE and RENAME need "f"). */
    private void prepare(int procedure) throws NfsException {
        if (procedure != Nfs3.CREATE) {
            vfs.create(vfs.root(), "f", CreateMode.GUARDED, SetAttributes.NONE, 0);
        }
    }

    private boolean exists(String name) {
        try {
            vfs.lookup(vfs.root(), name);
            return true;
        } catch (NfsException e) {
            assertThat(e.status()).isEqualTo(Nfs3Status.NFS3ERR_NOENT);
            return false;
        }
    }

    /** The file system after exactly one execution of {@code procedure}. */
    private void assertExecutedOnce(int procedure) {
        switch (procedure) {
            case Nfs3.CREATE, Nfs3.RENAME -> {
                assertThat(exists(procedure == Nfs3.CREATE ? "f" : "g")).isTrue();
                assertThat(exists(procedure == Nfs3.CREATE ? "g" : "f")).isFalse();
            }
            case Nfs3.REMOVE -> assertThat(exists("f")).isFalse();
            default -> throw new IllegalArgumentException();
        }
    }

    private static int status(byte[] reply) {
        assertThat(Calls.intAt(reply, 20)).as("accept_stat SUCCESS").isZero();
        return Calls.intAt(reply, Calls.REPLY_HEADER);
    }

    /** MOUNT of /export over TCP: the export's root handle. */
    static FileHandle mountOverTcp(InetSocketAddress server) throws IOException {
        try (RpcTcpClient c = RpcTcpClient.connect(server)) {
            byte[] reply = c.call(Calls.call(1, Mount3.PROGRAM, Mount3.VERSION, Mount3.MNT, USER,
                    new MountPathArgs("/export")));
            MountRes res = XdrBytes.decode(Arrays.copyOfRange(reply, Calls.REPLY_HEADER, reply.length),
                    new MountRes());
            assertThat(res.isOk()).isTrue();
            return res.root;
        }
    }

    @Test
    void theNfsV3PolicyIsRfc1813sNonIdempotentProcedures() {
        assertThat(CachedProcedures.nfsV3Procedures()).containsExactly(Nfs3.SETATTR, Nfs3.WRITE, Nfs3.CREATE,
                Nfs3.MKDIR, Nfs3.SYMLINK, Nfs3.MKNOD, Nfs3.REMOVE, Nfs3.RMDIR, Nfs3.RENAME, Nfs3.LINK);
        CachedProcedures policy = CachedProcedures.nfsV3();
        for (int p = Nfs3.NULL; p <= Nfs3.COMMIT; p++) {
            int procedure = p;
            boolean cached = Arrays.stream(CachedProcedures.nfsV3Procedures()).anyMatch(x -> x == procedure);
            assertThat(policy.contains(Nfs3.PROGRAM, Nfs3.VERSION, p)).as(Nfs3.procedureName(p)).isEqualTo(cached);
        }
        assertThat(policy.contains(Nfs3.PROGRAM, 4, Nfs3.REMOVE)).isFalse();
        assertThat(policy.contains(Mount3.PROGRAM, Mount3.VERSION, Mount3.UMNT)).isFalse();
    }

    // ------------------------------------------------------------------ TCP

    private InetSocketAddress startTcp(boolean withCache) throws IOException {
        nfs = server(withCache).build().start();
        return new InetSocketAddress("127.0.0.1", nfs.port());
    }

    /** Each call sent twice with the same xid, each time on a new connection; returns the replies. */
    private static byte[][] twice(InetSocketAddress server, byte[] message) throws IOException {
        byte[][] replies = new byte[2][];
        for (int i = 0; i < 2; i++) {
            try (RpcTcpClient c = RpcTcpClient.connect(server)) {
                replies[i] = c.call(message);
            }
        }
        return replies;
    }

    @Test
    void withTheOptionCreateRenameAndRemoveSentAgainOnANewConnectionGetTheirFirstReplies() throws Exception {
        InetSocketAddress server = startTcp(true);
        FileHandle root = mountOverTcp(server);
        int xid = 0x4000;
        for (int procedure : new int[] {Nfs3.CREATE, Nfs3.RENAME, Nfs3.REMOVE}) {
            byte[] message = message(++xid, procedure, procedure == Nfs3.REMOVE ? new DirOpArgs(root, "g")
                    : args(procedure, root));
            byte[][] replies = twice(server, message);
            assertThat(status(replies[0])).as(Nfs3.procedureName(procedure)).isZero();
            assertThat(replies[1]).as(Nfs3.procedureName(procedure)).isEqualTo(replies[0]);
        }
        assertThat(exists("f")).isFalse();
        assertThat(exists("g")).isFalse();
        assertThat(drc.counter(DrcCounter.HITS)).isEqualTo(3);
        assertThat(drc.counter(DrcCounter.MISSES)).isEqualTo(3);
        assertThat(drc.counter(DrcCounter.NOT_CACHED)).as("MNT").isEqualTo(1);
    }

    @Test
    void withoutTheOptionASecondCreateAnswersExist() throws Exception {
        InetSocketAddress server = startTcp(false);
        FileHandle root = mountOverTcp(server);
        byte[][] replies = twice(server, message(0x4100, Nfs3.CREATE, createArgs(root)));
        assertThat(status(replies[0])).isZero();
        assertThat(status(replies[1])).isEqualTo(Nfs3Status.NFS3ERR_EXIST.wireValue());
    }

    /** Serves the NFS server's programs (cached by its option) with a {@link ReplyHold} in front of NFS. */
    private Map<OncRpcProgram, RpcDispatchable> heldPrograms(int procedure) {
        nfs = server(true).build();
        Map<OncRpcProgram, RpcDispatchable> programs = new LinkedHashMap<>(nfs.programs());
        hold = new ReplyHold(programs.get(NFS), p -> p == procedure);
        programs.put(NFS, hold);
        return programs;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(ints = {Nfs3.CREATE, Nfs3.REMOVE, Nfs3.RENAME})
    void overTcpALostSuccessIsAnsweredAgainAfterTheReconnect(int procedure) throws Exception {
        prepare(procedure);
        OncRpcSvcBuilder b = new OncRpcSvcBuilder().withTCP().withPort(0).withBindAddress("127.0.0.1")
                .withoutAutoPublish().withWorkerThreadIoStrategy().withWorkerThreadPoolSize(4)
                .withServiceName("nfs-drc-" + SERVERS.incrementAndGet());
        heldPrograms(procedure).forEach(b::withRpcService);
        svc = b.build();
        svc.start();
        InetSocketAddress server = new InetSocketAddress("127.0.0.1",
                svc.getInetSocketAddress(IpProtocolType.TCP).getPort());
        byte[] message = message(0x4200 + procedure, procedure, args(procedure, mountOverTcp(server)));
        byte[] held;
        try (RpcTcpClient first = RpcTcpClient.connect(server)) {
            first.send(message);
            held = hold.awaitHeld();
            first.reset();
        }
        hold.release();
        byte[] reply;
        try (RpcTcpClient second = RpcTcpClient.connect(server)) {
            reply = second.call(message);
        }
        assertThat(status(held)).isZero();
        assertThat(reply).isEqualTo(held);
        assertExecutedOnce(procedure);
        assertThat(drc.counter(DrcCounter.HITS)).isEqualTo(1);
    }

    // ------------------------------------------------------------------ RDMA

    @ParameterizedTest(name = "{0}")
    @ValueSource(ints = {Nfs3.CREATE, Nfs3.REMOVE, Nfs3.RENAME})
    void overRdmaALostSuccessIsAnsweredAgainAfterTheReconnect(int procedure) throws Exception {
        prepare(procedure);
        rdma = RdmaRpcServer.builder()
                .name("nfs-drc-rdma-" + SERVERS.incrementAndGet())
                .provider("soft", Map.of("name", "nfs-drc-server", "engineThreads", "1"))
                .bindAddress(InetAddress.getLoopbackAddress())
                .port(0)
                .stopTimeout(Duration.ofSeconds(5))
                .jmx(false)
                .programs(heldPrograms(procedure))
                .binding(Nfs3UpperLayerBinding.INSTANCE)
                .build();
        rdma.start();
        proxy = new TcpProxy(rdma.boundAddress());
        client = RdmaClientTransport.connect(proxy.address(), RdmaClientConfig.builder()
                .provider("soft", Map.of("name", "nfs-drc-client", "engineThreads", "1"))
                .binding(Nfs3UpperLayerBinding.INSTANCE)
                .jmx(false)
                .build());
        MountRes mount = new MountRes();
        new RpcCall(Mount3.PROGRAM, Mount3.VERSION, USER, client).call(Mount3.MNT, new MountPathArgs("/export"),
                mount, 30, TimeUnit.SECONDS);
        assertThat(mount.isOk()).isTrue();
        XdrAble args = args(procedure, mount.root);

        Future<Raw> pending = callers.submit(() -> {
            Raw result = new Raw();
            new RpcCall(Nfs3.PROGRAM, Nfs3.VERSION, USER, client).call(procedure, args, result, 60,
                    TimeUnit.SECONDS);
            return result;
        });
        byte[] held = hold.awaitHeld();
        proxy.dropAll();
        Raw result = pending.get(60, TimeUnit.SECONDS);
        assertThat(status(held)).isZero();
        assertThat(result.bytes).isEqualTo(Arrays.copyOfRange(held, Calls.REPLY_HEADER, held.length));
        assertThat(proxy.accepted()).as("connections").isEqualTo(2);
        assertExecutedOnce(procedure);
        assertThat(drc.counter(DrcCounter.HITS)).isEqualTo(1);
    }

    /** A result kept as the bytes it arrived as. */
    static final class Raw implements XdrAble {
        byte[] bytes;

        @Override
        public void xdrDecode(XdrDecodingStream xdr) {
            bytes = Calls.bytes((Xdr) xdr);
        }

        @Override
        public void xdrEncode(XdrEncodingStream xdr) {
            throw new UnsupportedOperationException();
        }
    }
}
