package org.rpcrdma4j.nfs.server.v4;

import org.rpcrdma4j.nfs.binding.NfsBinding;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.nfs.client.rdma.RdmaDataTransport;
import org.rpcrdma4j.nfs.server.NfsServer;
import org.rpcrdma4j.nfs.server.rdma.NfsRdmaServer;
import org.rpcrdma4j.nfs.v4.Nfs4;
import org.rpcrdma4j.nfs.v4.Nfs4Status;
import org.rpcrdma4j.nfs.vfs.MemoryVfs;
import org.rpcrdma4j.xprt.client.RdmaClientConfig;
import org.rpcrdma4j.xprt.client.RdmaClientTransport;
import org.rpcrdma4j.xprt.server.RdmaRpcServer;
import org.rpcrdma4j.xprt.server.ServerCounter;

/**
 * The NFSv4.1 server over RPC-over-RDMA on the software iWARP device, driven by the scripted client over an
 * {@link RdmaClientTransport} with the NFS binding: a session, WRITE data pulled from a Read chunk and READ data
 * pushed into a Write chunk (the bytes compared, the server's chunk counters checked), the session's reply cache,
 * and two clients with their own sessions.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class Nfs41ServerOverRdmaTest {
    private final MemoryVfs vfs = new MemoryVfs();
    private NfsRdmaServer server;
    private RdmaClientTransport first;
    private RdmaClientTransport second;

    @BeforeEach
    void start() throws Exception {
        server = NfsRdmaServer.start(NfsServer.builder().export("/export", vfs).bindAddress("127.0.0.1").port(0)
                        .nfs4(Nfs41ServerTest.noGrace(Duration.ofSeconds(60))),
                RdmaRpcServer.builder().bindAddress(InetAddress.getLoopbackAddress()).port(0)
                        .provider("soft", Map.of("name", "nfs41-script-server")).jmx(false).name("nfs41-script"));
        first = connect();
        second = connect();
    }

    private RdmaClientTransport connect() throws Exception {
        return RdmaClientTransport.connect(server.rdmaAddress(), RdmaClientConfig.builder()
                .provider("soft", Map.of()).binding(NfsBinding.INSTANCE)
                .maxPayloadSize(2 << 20).defaultMaxReplySize(2 << 20).jmx(false).build());
    }

    @AfterEach
    void stop() throws Exception {
        for (RdmaClientTransport t : new RdmaClientTransport[] {first, second}) {
            if (t != null) {
                t.close();
            }
        }
        if (server != null) {
            server.close();
        }
    }

    @Test
    void writeDataComesInAReadChunkAndReadDataLeavesThroughAWriteChunk() throws Exception {
        try (V4Script s = new V4Script(first)) {
            Nfs41ServerTest.Client c = Nfs41ServerTest.session(s, "rdma-client");
            byte[] root = Nfs41ServerTest.exportRoot(c);
            byte[][] open = Nfs41ServerTest.create(c, root, "big");
            byte[] data = new byte[(1 << 20) - 3]; // the most one WRITE carries here (1 MiB), and an XDR pad
            new Random(41).nextBytes(data);
            V4Script.Res w = s.call(c.compound().putfh(open[1]).op(Nfs4.OP_WRITE).stateid(open[0]).hyper(0).word(2)
                    .opaque(data));
            w.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_WRITE);
            assertThat(w.word()).isEqualTo(data.length);
            V4Script.Res r = s.call(c.compound().putfh(open[1]).op(Nfs4.OP_READ).stateid(open[0]).hyper(0)
                    .word(2 << 20));
            r.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_READ);
            assertThat(r.word()).as("eof").isEqualTo(1);
            assertThat(r.opaque()).isEqualTo(data);
            Map<ServerCounter, Long> counters = server.rdma().counters();
            assertThat(counters.get(ServerCounter.READ_CHUNK_BYTES)).as("WRITE data pulled by RDMA READ")
                    .isGreaterThanOrEqualTo(data.length);
            assertThat(counters.get(ServerCounter.WRITE_CHUNK_BYTES)).as("READ data pushed by RDMA WRITE")
                    .isGreaterThanOrEqualTo(data.length);
            assertThat(counters.get(ServerCounter.ZERO_COPY_BYTES)).as("from the memory it was read into, no copy")
                    .isGreaterThanOrEqualTo(data.length);
        }
    }

    @Test
    void theFileSetIsWrittenAndReadBackWhole() throws Exception {
        try (V4Script s = new V4Script(first)) {
            Nfs41ServerTest.Client c = Nfs41ServerTest.session(s, "rdma-set");
            Nfs41ServerTest.assertStored(vfs, Nfs41ServerTest.writeAndReadBack(c, Nfs41ServerTest.exportRoot(c)));
        }
    }

    @Test
    void aRetriedRequestOfASlotGetsTheCachedReplyOverRdmaToo() throws Exception {
        try (V4Script s = new V4Script(first)) {
            Nfs41ServerTest.Client c = Nfs41ServerTest.session(s, "rdma-replay");
            byte[] root = Nfs41ServerTest.exportRoot(c);
            byte[][] open = Nfs41ServerTest.create(c, root, "gone");
            s.call(c.compound().putfh(open[1]).op(Nfs4.OP_CLOSE).word(0).stateid(open[0]));
            byte[] remove = new V4Script.Args(1).sequence(c.session, ++c.seq, 0, true).putfh(root)
                    .op(Nfs4.OP_REMOVE).string("gone").bytes();
            byte[] once = s.callRaw(remove, s.nextXid());
            byte[] twice = s.callRaw(remove, s.nextXid());
            assertThat(twice).as("the cached reply, not NFS4ERR_NOENT").isEqualTo(once);
            assertThat(new V4Script.Res(once).status).isZero();
        }
    }

    @Test
    void twoClientsOverTheirOwnConnectionsKeepTheirOwnState() throws Exception {
        try (V4Script a = new V4Script(first); V4Script b = new V4Script(second)) {
            Nfs41ServerTest.Client ca = Nfs41ServerTest.session(a, "rdma-one");
            Nfs41ServerTest.Client cb = Nfs41ServerTest.session(b, "rdma-two");
            byte[] root = Nfs41ServerTest.exportRoot(ca);
            byte[][] open = Nfs41ServerTest.create(ca, root, "private");
            V4Script.Res r = b.call(cb.compound().putfh(open[1]).op(Nfs4.OP_READ).stateid(open[0]).hyper(0)
                    .word(16));
            r.sequenceOk().ok(Nfs4.OP_PUTFH);
            assertThat(r.next(Nfs4.OP_READ)).isEqualTo(Nfs4Status.NFS4ERR_BAD_STATEID);
        }
    }
}
