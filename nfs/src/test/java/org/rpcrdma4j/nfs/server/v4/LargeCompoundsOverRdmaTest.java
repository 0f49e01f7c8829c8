package org.rpcrdma4j.nfs.server.v4;

import org.rpcrdma4j.nfs.binding.NfsBinding;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.rpcrdma4j.nfs.client.rdma.RdmaDataTransport;
import org.rpcrdma4j.nfs.server.NfsServer;
import org.rpcrdma4j.nfs.server.ServerLimits;
import org.rpcrdma4j.nfs.server.rdma.NfsRdmaServer;
import org.rpcrdma4j.nfs.v4.Nfs4;
import org.rpcrdma4j.nfs.v4.Nfs4Status;
import org.rpcrdma4j.nfs.v4.state.ChannelAttributes;
import org.rpcrdma4j.nfs.v4.state.StateConfig;
import org.rpcrdma4j.nfs.vfs.MemoryVfs;
import org.rpcrdma4j.xprt.client.RdmaClientConfig;
import org.rpcrdma4j.xprt.client.RdmaClientTransport;
import org.rpcrdma4j.registration.RegisteredBuffer;
import org.rpcrdma4j.xprt.XprtCounter;
import org.rpcrdma4j.xprt.client.RdmaChunkErrorException;
import org.rpcrdma4j.xprt.client.RdmaMarshalException;
import org.rpcrdma4j.xprt.drc.Calls;
import org.rpcrdma4j.xprt.server.ServerCounter;
import org.rpcrdma4j.xprt.server.RdmaRpcServer;

/**
 * NFSv4.1 COMPOUNDs as unmodified oncrpc4j {@code RpcCall}s over RDMA, as nfs4j's client sends them, with READs and
 * WRITEs of 1, 2 and 4 MiB: byte-compared when the transport is configured for them, and, when a READ's reply is
 * larger than the transport maps for one call, a typed {@link RdmaMarshalException} thrown to the caller before
 * anything is sent, naming the sizes and the setting.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LargeCompoundsOverRdmaTest {
    private static final int MIB = 1 << 20;
    /** The sessions' request and reply sizes: 4 MiB READs and WRITEs with their headers. */
    private static final int SESSION_SIZE = 4 * MIB + (64 << 10);
    private final MemoryVfs vfs = new MemoryVfs(64L << 20);
    private NfsRdmaServer server;
    private RdmaClientTransport transport;

    private V4Script start(int clientMaxPayload) throws Exception {
        return start(clientMaxPayload, 4 * MIB);
    }

    private V4Script start(int clientMaxPayload, int serverMaxReadChunk) throws Exception {
        server = NfsRdmaServer.start(NfsServer.builder().export("/export", vfs).bindAddress("127.0.0.1").port(0)
                        .limits(new ServerLimits(4 * MIB, 4 * MIB, 64 << 10))
                        .nfs4(new StateConfig(Duration.ofSeconds(60), Duration.ZERO,
                                new ChannelAttributes(0, SESSION_SIZE, SESSION_SIZE, 8192, 64, 64),
                                StateConfig.defaults().backLimits(), 16)),
                RdmaRpcServer.builder().bindAddress(InetAddress.getLoopbackAddress()).port(0)
                        .maxReadChunkBytes(serverMaxReadChunk).maxCallSize(4 * MIB + (64 << 10))
                        .provider("soft", Map.of()).jmx(false).name("nfs41-large"));
        transport = RdmaClientTransport.connect(server.rdmaAddress(), RdmaClientConfig.builder()
                .provider("soft", Map.of()).binding(NfsBinding.INSTANCE)
                .maxPayloadSize(clientMaxPayload).defaultMaxReplySize(MIB + (64 << 10)).jmx(false).build());
        return new V4Script(transport);
    }

    private static Nfs41ServerTest.Client session(V4Script s, String owner) throws Exception {
        return Nfs41ServerTest.session(s, owner, SESSION_SIZE, SESSION_SIZE, 8192);
    }

    @AfterEach
    void stop() throws Exception {
        if (transport != null) {
            transport.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @ParameterizedTest(name = "{0} MiB")
    @ValueSource(ints = {1, 2, 4})
    void readsAndWritesOfSeveralMebibytesArriveWhole(int mebibytes) throws Exception {
        try (V4Script s = start(4 * MIB)) {
            Nfs41ServerTest.Client c = session(s, "large-" + mebibytes);
            byte[][] open = Nfs41ServerTest.create(c, Nfs41ServerTest.exportRoot(c), "f");
            byte[] data = new byte[mebibytes * MIB];
            new Random(mebibytes).nextBytes(data);
            V4Script.Res w = s.call(c.compound().putfh(open[1]).op(Nfs4.OP_WRITE).stateid(open[0]).hyper(0).word(2)
                    .opaque(data));
            w.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_WRITE);
            assertThat(w.word()).isEqualTo(data.length);
            V4Script.Res r = s.call(c.compound().putfh(open[1]).op(Nfs4.OP_READ).stateid(open[0]).hyper(0)
                    .word(data.length));
            r.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_READ);
            r.word();
            assertThat(r.opaque()).isEqualTo(data);
        }
    }

    /**
     * As nfs4j's client encodes WRITE data, by reference ({@code Xdr.xdrEncodeShallowByteBuffer}), from a buffer of
     * the transport's own pool: the data goes out as a Read chunk from where it is, only the call's other bytes are
     * copied, and the buffer is held by the transport until the call is done.
     */
    @ParameterizedTest(name = "{0} MiB")
    @ValueSource(ints = {1, 4})
    void aWriteEncodedByReferenceFromTheTransportsMemoryIsNotCopied(int mebibytes) throws Exception {
        try (V4Script s = start(4 * MIB)) {
            Nfs41ServerTest.Client c = session(s, "by-reference-" + mebibytes);
            byte[][] open = Nfs41ServerTest.create(c, Nfs41ServerTest.exportRoot(c), "f");
            byte[] data = new byte[mebibytes * MIB];
            new Random(-mebibytes).nextBytes(data);
            RegisteredBuffer registered = transport.bufferPool().allocate(data.length);
            registered.writeBytes(data);
            byte[] head = c.compound().putfh(open[1]).op(Nfs4.OP_WRITE).stateid(open[0]).hyper(0).word(2).bytes();
            XdrAble args = new XdrAble() {
                @Override
                public void xdrEncode(XdrEncodingStream xdr) {
                    xdr.xdrEncodeOpaque(head, head.length);
                    ((Xdr) xdr).xdrEncodeShallowByteBuffer(registered.nioBuffer(0, data.length));
                }

                @Override
                public void xdrDecode(XdrDecodingStream xdr) {
                    throw new UnsupportedOperationException();
                }
            };
            long copiedBefore = transport.stats().get(XprtCounter.PULLUP_COPY_COUNT);
            long readBefore = server.rdma().counters().get(ServerCounter.READ_CHUNK_BYTES);
            V4Script.RawReply reply = new V4Script.RawReply();
            new RpcCall(Nfs4.PROGRAM, Nfs4.VERSION, Calls.unix(0), transport).call(Nfs4.PROC_COMPOUND, args, reply,
                    30, TimeUnit.SECONDS);
            long copied = transport.stats().get(XprtCounter.PULLUP_COPY_COUNT) - copiedBefore;
            V4Script.Res w = new V4Script.Res(reply.bytes);
            w.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_WRITE);
            assertThat(w.word()).isEqualTo(data.length);
            assertThat(copied).as("bytes copied into registered memory: the RPC header and the COMPOUND without its data")
                    .isGreaterThan(head.length).isLessThan(head.length + 256L);
            assertThat(server.rdma().counters().get(ServerCounter.READ_CHUNK_BYTES) - readBefore)
                    .as("the data pulled by the server with RDMA READ").isEqualTo(data.length);
            for (int i = 0; i < 1000 && registered.refCnt() > 1; i++) {
                Thread.sleep(5); // the transport lets go once the call's handles are invalid
            }
            assertThat(registered.release()).as("the caller's was the last reference").isTrue();

            V4Script.Res r = s.call(c.compound().putfh(open[1]).op(Nfs4.OP_READ).stateid(open[0]).hyper(0)
                    .word(data.length));
            r.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_READ);
            r.word();
            assertThat(r.opaque()).isEqualTo(data);
        }
    }

    /**
     * The session's request size counts the WRITE data that came as a Read chunk: over it is NFS4ERR_REQ_TOO_BIG
     * (the data pulled, the COMPOUND not run, the slot untouched).
     */
    @Test
    void aWriteOverTheSessionsRequestSizeIsReqTooBigThoughItsDataCameInAReadChunk() throws Exception {
        try (V4Script s = start(4 * MIB)) {
            Nfs41ServerTest.Client c = Nfs41ServerTest.session(s, "small-requests", MIB + 4096, MIB + 4096, 8192);
            byte[][] open = Nfs41ServerTest.create(c, Nfs41ServerTest.exportRoot(c), "f");
            V4Script.Res tooBig = s.call(c.compound().putfh(open[1]).op(Nfs4.OP_WRITE).stateid(open[0]).hyper(0)
                    .word(2).opaque(new byte[MIB + 4096]));
            assertThat(Nfs4Status.name(tooBig.next(Nfs4.OP_SEQUENCE))).isEqualTo("NFS4ERR_REQ_TOO_BIG");
            assertThat(vfs.getattr(vfs.lookup(vfs.root(), "f").handle()).size()).as("nothing written").isZero();
            c.seq--; // the slot's next request takes the same sequence id
            byte[] data = new byte[MIB];
            new Random(11).nextBytes(data);
            V4Script.Res w = s.call(c.compound().putfh(open[1]).op(Nfs4.OP_WRITE).stateid(open[0]).hyper(0).word(2)
                    .opaque(data));
            w.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_WRITE);
            assertThat(w.word()).isEqualTo(MIB);

            // an inline call counts its own bytes, not its receive buffer's
            Nfs41ServerTest.Client small = Nfs41ServerTest.session(s, "512-byte-requests", 512, 8192, 8192);
            byte[] root = Nfs41ServerTest.exportRoot(small);
            V4Script.Res lookup = s.call(small.compound().putfh(root).op(Nfs4.OP_LOOKUP).string("f"));
            lookup.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_LOOKUP);
            V4Script.Res over = s.call(small.compound().putfh(open[1]).op(Nfs4.OP_WRITE).stateid(open[0]).hyper(0)
                    .word(2).opaque(new byte[600]));
            assertThat(Nfs4Status.name(over.next(Nfs4.OP_SEQUENCE))).isEqualTo("NFS4ERR_REQ_TOO_BIG");
        }
    }

    /** A WRITE over the client's maxPayloadSize: typed, naming the sizes and the setting, and nothing sent. */
    @Test
    void aWriteLargerThanTheClientSendsFailsTypedBeforeItIsSent() throws Exception {
        try (V4Script s = start(MIB)) {
            Nfs41ServerTest.Client c = session(s, "write-too-large");
            byte[][] open = Nfs41ServerTest.create(c, Nfs41ServerTest.exportRoot(c), "f");
            int seq = c.seq;
            byte[] data = new byte[2 * MIB];
            assertThatThrownBy(() -> s.call(c.compound().putfh(open[1]).op(Nfs4.OP_WRITE).stateid(open[0]).hyper(0)
                    .word(2).opaque(data)))
                    .isInstanceOf(RdmaMarshalException.class)
                    .hasMessageMatching("a call of 2097\\d{3} bytes exceeds .*")
                    .hasMessageContaining("maxPayloadSize");
            c.seq = seq; // nothing went out
            V4Script.Res w = s.call(c.compound().putfh(open[1]).op(Nfs4.OP_WRITE).stateid(open[0]).hyper(0).word(2)
                    .opaque(new byte[MIB]));
            w.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_WRITE);
        }
    }

    /**
     * A WRITE whose Read chunk is over the server's maxReadChunkBytes: the server answers RDMA_ERROR / ERR_CHUNK
     * without pulling the data, the RpcCall caller gets the typed {@link RdmaChunkErrorException}, and the
     * connection serves the next call.
     */
    @Test
    void aWriteOverTheServersReadChunkLimitFailsTypedAndTheConnectionGoesOn() throws Exception {
        try (V4Script s = start(4 * MIB, MIB + (8 << 10))) {
            Nfs41ServerTest.Client c = session(s, "over-server-limit");
            byte[][] open = Nfs41ServerTest.create(c, Nfs41ServerTest.exportRoot(c), "f");
            int seq = c.seq;
            long pulledBefore = server.rdma().counters().get(ServerCounter.READ_CHUNK_BYTES);
            assertThatThrownBy(() -> s.call(c.compound().putfh(open[1]).op(Nfs4.OP_WRITE).stateid(open[0]).hyper(0)
                    .word(2).opaque(new byte[2 * MIB])))
                    .isInstanceOf(RdmaChunkErrorException.class)
                    .hasMessageContaining("data item of " + 2 * MIB + " bytes").hasMessageContaining("maxReadChunkBytes");
            assertThat(server.rdma().counters().get(ServerCounter.READ_CHUNK_BYTES)).as("nothing pulled")
                    .isEqualTo(pulledBefore);
            c.seq = seq; // the server never ran the COMPOUND: its SEQUENCE was not seen
            V4Script.Res w = s.call(c.compound().putfh(open[1]).op(Nfs4.OP_WRITE).stateid(open[0]).hyper(0).word(2)
                    .opaque(new byte[MIB]));
            w.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_WRITE);
            assertThat(w.word()).isEqualTo(MIB);
        }
    }

    @ParameterizedTest(name = "{0} MiB")
    @ValueSource(ints = {2, 4})
    void aReadLargerThanTheTransportMapsFailsTypedBeforeItIsSent(int mebibytes) throws Exception {
        try (V4Script s = start(MIB)) {
            Nfs41ServerTest.Client c = session(s, "too-large-" + mebibytes);
            byte[][] open = Nfs41ServerTest.create(c, Nfs41ServerTest.exportRoot(c), "f");
            int seq = c.seq;
            assertThatThrownBy(() -> s.call(c.compound().putfh(open[1]).op(Nfs4.OP_READ).stateid(open[0])
                    .hyper(0).word(mebibytes * MIB)))
                    .isInstanceOf(RdmaMarshalException.class)
                    .hasMessageContaining(Integer.toString(mebibytes * MIB))
                    .hasMessageContaining("maxPayloadSize");
            // nothing went out: the slot's next sequence id is still the one that failed
            c.seq = seq;
            V4Script.Res again = s.call(c.compound().putfh(open[1]).op(Nfs4.OP_READ).stateid(open[0]).hyper(0)
                    .word(MIB));
            again.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_READ);
            assertThat(again.word()).as("eof of an empty file").isEqualTo(1);
            assertThat(again.opaque()).isEmpty();
        }
    }
}
