package org.rpcrdma4j.xprt.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.time.Duration;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.rpcrdma4j.codec.RpcRdmaProc;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.soft.SoftIwarpFaults;
import org.rpcrdma4j.xprt.TestDevices;

/**
 * Hostile clients on the verbs SPI: each test runs a {@link GoodClient} on another connection at the same time,
 * which must see no error, and the fixture checks afterwards that the server released everything.
 */
@Timeout(120)
class ServerHostileTest extends ServerFixture {
    private static final int CREDITS = 8;
    private GoodClient good;

    @Override
    void configure(RdmaRpcServer.Builder builder) {
        builder.credits(CREDITS).dispatchThreads(24);
    }

    @BeforeEach
    void startGoodClient() throws Exception {
        good = new GoodClient(address);
        await("the well-behaved client is under way", () -> good.calls() > 3);
    }

    @AfterEach
    void stopGoodClient() throws Exception {
        try {
            int before = good.calls();
            await("the well-behaved client still gets answers", () -> good.calls() > before + 3 || good.failed());
        } finally {
            good.stop();
        }
    }

    /** Sends {@code message} and expects exactly {@code expected} back. */
    private void expectAnswer(RawClient c, ByteBuf message, ByteBuf expected) throws Exception {
        c.send(message);
        RawClient.Received r = c.receive();
        Rpc.assertBytes(r.bytes(), expected);
        assertThat(r.withInvalidate()).isFalse();
    }

    /** The connection is dropped: the client sees DISCONNECTED and the server counts {@code reason}. */
    private void expectDropped(RawClient c, ServerCounter reason, long before) throws Exception {
        assertThat(c.awaitDisconnected(WAIT)).as("connection dropped").isTrue();
        await(reason + " counted", () -> counter(reason) == before + 1);
    }

    /** The counters before a request the client will refuse: the drop's own reason, and the peer's close. */
    private record Before(ServerCounter reason, long count, long closedByPeer) {
    }

    private Before before(ServerCounter reason) {
        return new Before(reason, counter(reason), counter(ServerCounter.CLOSED_BY_PEER));
    }

    /**
     * The client refused what the server read or sent: the connection is dropped for the reason. Over siw the refusal
     * reaches the server only as the end of the connection (the client's TERMINATE ends it, and the refused request is
     * flushed), so there the peer's close is the reason the server can give.
     */
    private void expectRefusalDropped(RawClient c, Before b) throws Exception {
        assertThat(c.awaitDisconnected(WAIT)).as("connection dropped").isTrue();
        if (TestDevices.refusalsEndTheConnection(server.device())) {
            await(b.reason() + " or the peer's close counted", () -> counter(b.reason()) == b.count() + 1
                    || counter(ServerCounter.CLOSED_BY_PEER) == b.closedByPeer() + 1);
        } else {
            await(b.reason() + " counted", () -> counter(b.reason()) == b.count() + 1);
        }
    }

    @Test
    void wrongVersionGetsErrVersWithTheXid() throws Exception {
        RawClient c = client(false);
        ByteBuf message = Rpc.concat(Rpc.ints(0x51, 2, 32, 0, 0, 0, 0), Rpc.echoCall(0x51, EchoProgram.NULL, null));
        expectAnswer(c, message, Rpc.ints(0x51, 1, CREDITS, 4, 1, 1, 1));
        assertThat(counter(c, ServerCounter.ERR_VERS_SENT)).isEqualTo(1);
        // the connection stays usable
        expectAnswer(c, Rpc.concat(Rpc.ints(0x52, 1, 32, 0, 0, 0, 0), Rpc.echoCall(0x52, EchoProgram.NULL, null)),
                Rpc.concat(Rpc.ints(0x52, 1, CREDITS, 0, 0, 0, 0), Rpc.successHeader(0x52)));
    }

    static Stream<Arguments> malformedChunkLists() {
        return Stream.of(
                Arguments.of("a write chunk claiming 1,000,000 segments",
                        Rpc.ints(0x61, 1, 32, 0, 0, 1, 1_000_000, 1, 2, 3, 4, 0, 0)),
                Arguments.of("a reply chunk claiming 2^32-1 segments", Rpc.ints(0x61, 1, 32, 0, 0, 0, 1, -1, 0)),
                Arguments.of("a discriminator of 2", Rpc.ints(0x61, 1, 32, 0, 2, 0, 0)),
                Arguments.of("RDMA_MSGP", Rpc.ints(0x61, 1, 32, 2, 0, 0, 0, 0, 0)),
                Arguments.of("an unknown procedure", Rpc.ints(0x61, 1, 32, 9, 0, 0, 0)),
                Arguments.of("a header cut short", Rpc.ints(0x61, 1, 32, 0, 1, 0)),
                Arguments.of("a misaligned read position", Rpc.ints(0x61, 1, 32, 0, 1, 2, 5, 100, 0, 0, 0, 0, 0)),
                Arguments.of("RDMA_NOMSG without a position-zero chunk", Rpc.ints(0x61, 1, 32, 1, 0, 0, 0)),
                Arguments.of("RDMA_MSG with a position-zero chunk",
                        Rpc.concat(Rpc.ints(0x61, 1, 32, 0, 1, 0, 5, 100, 0, 0x1000, 0, 0, 0),
                                Rpc.echoCall(0x61, EchoProgram.NULL, null))),
                Arguments.of("a read chunk beyond the message",
                        Rpc.concat(Rpc.ints(0x61, 1, 32, 0, 1, 4096, 5, 100, 0, 0x1000, 0, 0, 0),
                                Rpc.echoCall(0x61, EchoProgram.NULL, null))),
                Arguments.of("three read chunks",
                        Rpc.concat(Rpc.ints(0x61, 1, 32, 0, 1, 4, 5, 4, 0, 0, 1, 8, 5, 4, 0, 0, 1, 12, 5, 4, 0, 0,
                                0, 0, 0), Rpc.echoCall(0x61, EchoProgram.NULL, null))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformedChunkLists")
    void malformedChunkListsGetErrChunkWithTheXid(String what, ByteBuf message) throws Exception {
        RawClient c = client(false);
        expectAnswer(c, message, Rpc.ints(0x61, 1, CREDITS, 4, 2));
        assertThat(counter(c, ServerCounter.RDMA_READS)).as("no RDMA READ issued").isZero();
        assertThat(counter(c, ServerCounter.ERR_CHUNK_SENT)).isEqualTo(1);
    }

    @Test
    void aCallWhoseRpcXidDiffersFromTheTransportXidGetsErrChunkAndIsNeverExecuted() throws Exception {
        RawClient c = client(false);
        int digests = program.digests.get();
        ByteBuf call = Rpc.echoCall(0x72, EchoProgram.DIGEST, Rpc.opaque(new byte[] {1, 2, 3}));
        expectAnswer(c, Rpc.concat(Rpc.ints(0x71, 1, 32, 0, 0, 0, 0), call), Rpc.ints(0x71, 1, CREDITS, 4, 2));
        assertThat(program.digests.get()).as("the mismatched call never reached its program").isEqualTo(digests);
        assertThat(counter(c, ServerCounter.XID_MISMATCHES)).isEqualTo(1);
        assertThat(counter(c, ServerCounter.ERR_CHUNK_SENT)).isEqualTo(1);
        // the same call with matching xids runs, and only that one
        expectAnswer(c, Rpc.concat(Rpc.ints(0x73, 1, 32, 0, 0, 0, 0),
                Rpc.echoCall(0x73, EchoProgram.NULL, null)),
                Rpc.concat(Rpc.ints(0x73, 1, CREDITS, 0, 0, 0, 0), Rpc.successHeader(0x73)));
        assertThat(program.digests.get()).as("the mismatched call never reached its program").isEqualTo(digests);
    }

    @Test
    void aPositionZeroCallWhoseRpcXidDiffersFromTheTransportXidIsNeverExecuted() throws Exception {
        RawClient c = client(false);
        int digests = program.digests.get();
        ByteBuf call = Rpc.echoCall(0x75, EchoProgram.DIGEST, Rpc.opaque(new byte[10_000]));
        int length = call.readableBytes();
        RawClient.Chunk chunk = c.registered(length, Access.REMOTE_READ);
        call.getBytes(0, chunk.memory.duplicate().limit(length));
        call.release();
        c.send(RawClient.header().xid(0x74).credits(32).proc(RpcRdmaProc.RDMA_NOMSG)
                .addReadSegment(0, chunk.stag, length, chunk.iova), null);
        RawClient.Received r = c.receive();
        Rpc.assertBytes(r.bytes(), Rpc.ints(0x74, 1, CREDITS, 4, 2));
        assertThat(program.digests.get()).as("the mismatched call never reached its program").isEqualTo(digests);
        assertThat(counter(c, ServerCounter.XID_MISMATCHES)).isEqualTo(1);
    }

    @Test
    void oversizedReadChunkGetsErrChunkBeforeAnyRead() throws Exception {
        RawClient c = client(false);
        RawClient.Chunk small = c.registered(4096, Access.REMOTE_READ);
        expectAnswer(c, Rpc.ints(0x62, 1, 32, 1, 1, 0, small.stag, 2 << 20, (int) (small.iova >>> 32),
                (int) small.iova, 0, 0, 0), Rpc.ints(0x62, 1, CREDITS, 4, 2));
        assertThat(counter(c, ServerCounter.RDMA_READS)).as("no RDMA READ issued").isZero();
    }

    @Test
    void readChunkAtAnInvalidStagDropsTheConnection() throws Exception {
        RawClient c = client(false);
        Before before = before(ServerCounter.DROPPED_READ_FAILED);
        c.send(RawClient.header().xid(0x63).credits(32).proc(RpcRdmaProc.RDMA_NOMSG)
                .addReadSegment(0, 0x00DEAD00, 1000, 0x1000), null);
        expectRefusalDropped(c, before);
    }

    @Test
    void readChunkOutOfBoundsDropsTheConnection() throws Exception {
        RawClient c = client(false);
        RawClient.Chunk chunk = c.registered(4096, Access.REMOTE_READ);
        Before before = before(ServerCounter.DROPPED_READ_FAILED);
        c.send(RawClient.header().xid(0x64).credits(32).proc(RpcRdmaProc.RDMA_NOMSG)
                .addReadSegment(0, chunk.stag, 8192, chunk.iova), null);
        expectRefusalDropped(c, before);
    }

    @Test
    void readChunkWithoutReadRightDropsTheConnection() throws Exception {
        TestDevices.assumeRemoteReadRightEnforced(server.device());
        RawClient c = client(false);
        RawClient.Chunk chunk = c.registered(4096, Access.REMOTE_WRITE | Access.LOCAL_WRITE);
        Before before = before(ServerCounter.DROPPED_READ_FAILED);
        c.send(RawClient.header().xid(0x65).credits(32).proc(RpcRdmaProc.RDMA_NOMSG)
                .addReadSegment(0, chunk.stag, 100, chunk.iova), null);
        expectRefusalDropped(c, before);
    }

    @Test
    void writeChunkAtAnInvalidStagDropsTheConnection() throws Exception {
        RawClient c = client(false);
        Before before = before(ServerCounter.DROPPED_SEND_FAILED);
        c.send(RawClient.header().xid(0x66).credits(32).proc(RpcRdmaProc.RDMA_MSG)
                .beginWriteChunk().addWriteSegment(0x00BEEF00, 8192, 0x2000),
                Rpc.echoCall(0x66, EchoProgram.READ, Rpc.ints(5000, 1)));
        expectRefusalDropped(c, before);
        await("the READ buffer released after the failed reply", () -> program.sendFailures.get() > 0);
    }

    /**
     * A small reply goes unsignaled, and nothing waits for its completion; when the client refuses it, the failed Send
     * still completes and the connection is dropped. The call offers a reply chunk at a handle the client never
     * registered: the reply fits inline, so its Send With Invalidate names that handle, which the client cannot
     * invalidate.
     */
    @Test
    void anUnsignaledReplyTheClientRefusesDropsTheConnection() throws Exception {
        TestDevices.assumeRefusedInvalidationReachesTheSender(server.device());
        RawClient c = client(true);
        expectAnswer(c, Rpc.concat(Rpc.ints(0x68, 1, 32, 0, 0, 0, 0), Rpc.echoCall(0x68, EchoProgram.NULL, null)),
                Rpc.concat(Rpc.ints(0x68, 1, CREDITS, 0, 0, 0, 0), Rpc.successHeader(0x68)));
        assertThat(counter(c, ServerCounter.UNSIGNALED_REPLIES)).as("small replies go unsignaled").isEqualTo(1);
        Before before = before(ServerCounter.DROPPED_SEND_FAILED);
        c.send(RawClient.header().xid(0x67).credits(32).proc(RpcRdmaProc.RDMA_MSG)
                .beginReplyChunk().addReplySegment(0x00BEEF00, 4096, 0x2000),
                Rpc.echoCall(0x67, EchoProgram.NULL, null));
        expectRefusalDropped(c, before);
    }

    @Test
    void floodBeyondCreditsIsDisconnected() throws Exception {
        RawClient c = client(false);
        long violations = counter(ServerCounter.CREDIT_VIOLATIONS);
        long before = counter(ServerCounter.DROPPED_CREDIT_VIOLATION);
        int started = program.slowStarted.get();
        for (int i = 0; i <= CREDITS; i++) {
            c.post(Rpc.concat(Rpc.ints(0x700 + i, 1, 32, 0, 0, 0, 0),
                    Rpc.echoCall(0x700 + i, EchoProgram.SLOW, Rpc.ints(0x700))));
        }
        expectDropped(c, ServerCounter.DROPPED_CREDIT_VIOLATION, before);
        assertThat(counter(ServerCounter.CREDIT_VIOLATIONS) - violations).isEqualTo(1);
        // calls within the grant that reached their program finish after the connection is gone: their replies
        // fail and free their memory
        int failures = program.sendFailures.get();
        assertThat(program.slowStarted.get() - started).isLessThanOrEqualTo(CREDITS);
        program.release(0x700);
        await("late replies fail", () -> program.sendFailures.get() - failures == program.slowStarted.get() - started);
    }

    @Test
    void disconnectWhileReadIsInFlight() throws Exception {
        RawClient c = client(false);
        ByteBuf call = Rpc.echoCall(0x67, EchoProgram.DIGEST, Rpc.opaque(new byte[100_000]));
        int length = call.readableBytes();
        RawClient.Chunk chunk = c.registered(length, Access.REMOTE_READ);
        call.getBytes(0, chunk.memory.duplicate().limit(length));
        call.release();
        long closed = counter(ServerCounter.CONNECTIONS_CLOSED);
        int digests = program.digests.get();
        // the server's READ Request is held back on its own queue pair: posted, outstanding, not answered
        TestDevices.assumeSoft("held transmissions and TCP resets: the software device's fault injection");
        SoftIwarpFaults.of(server.connectionTo(c.info.localAddress()).queuePair()).delayTransmit(
                Duration.ofSeconds(60));
        c.send(RawClient.header().xid(0x67).credits(32).proc(RpcRdmaProc.RDMA_NOMSG)
                .addReadSegment(0, chunk.stag, length, chunk.iova), null);
        await("the server's RDMA READ posted", () -> counter(c, ServerCounter.RDMA_READS) == 1);
        SoftIwarpFaults.of(c.queuePair()).dropConnection();
        await("the server closed the connection", () -> counter(ServerCounter.CONNECTIONS_CLOSED) > closed);
        assertThat(program.digests.get()).as("the call never reached its program").isEqualTo(digests);
    }

    /**
     * A queue pair that goes to error with no disconnect reported (siw, for one, reports none on this side when its
     * peer refused an RDMA READ with a Terminate) shows only in flushed work requests: the connection is dropped for
     * them, as it would be for a failed one, instead of staying open and dead.
     */
    @Test
    void aQueuePairInErrorWithoutADisconnectIsDropped() throws Exception {
        RawClient c = client(false);
        expectAnswer(c, Rpc.concat(Rpc.ints(0x69, 1, 32, 0, 0, 0, 0), Rpc.echoCall(0x69, EchoProgram.NULL, null)),
                Rpc.concat(Rpc.ints(0x69, 1, CREDITS, 0, 0, 0, 0), Rpc.successHeader(0x69)));
        long before = flushDrops();
        long closedByPeer = counter(ServerCounter.CLOSED_BY_PEER);
        TestDevices.assumeSoft("a queue pair put in error without a disconnect: the software device's fault injection");
        SoftIwarpFaults.of(server.connectionTo(c.info.localAddress()).queuePair()).errorUnreported();
        // the first request seen flushed names the reason: a receive, or the unsignaled reply's Send
        await("the connection dropped for its flushed requests", () -> flushDrops() == before + 1);
        assertThat(c.awaitDisconnected(WAIT)).as("the client sees the connection end").isTrue();
        assertThat(counter(ServerCounter.CLOSED_BY_PEER)).isEqualTo(closedByPeer);
    }

    private long flushDrops() {
        return counter(ServerCounter.DROPPED_RECEIVE_FAILED) + counter(ServerCounter.DROPPED_SEND_FAILED);
    }

    @Test
    void disconnectWhileDispatchRuns() throws Exception {
        RawClient c = client(false);
        int started = program.slowStarted.get();
        int failures = program.sendFailures.get();
        long closed = counter(ServerCounter.CONNECTIONS_CLOSED);
        c.send(Rpc.concat(Rpc.ints(0x68, 1, 32, 0, 0, 0, 0), Rpc.echoCall(0x68, EchoProgram.SLOW, Rpc.ints(0x68))));
        await("the call runs", () -> program.slowStarted.get() > started);
        TestDevices.assumeSoft("a TCP reset under the connection: the software device's fault injection");
        SoftIwarpFaults.of(c.queuePair()).dropConnection();
        await("the server closed the connection", () -> counter(ServerCounter.CONNECTIONS_CLOSED) > closed);
        program.release(0x68);
        await("the late reply fails and frees the call", () -> program.sendFailures.get() > failures);
    }

    @Test
    void messageWithoutAnXidDropsTheConnection() throws Exception {
        RawClient c = client(false);
        long before = counter(ServerCounter.DROPPED_GARBAGE);
        c.send(Unpooled.buffer().writeShort(0x1234));
        expectDropped(c, ServerCounter.DROPPED_GARBAGE, before);
    }

    @Test
    void messageLongerThanTheInlineThresholdDropsTheConnection() throws Exception {
        RawClient c = client(false);
        long before = counter(ServerCounter.DROPPED_RECEIVE_FAILED);
        c.send(Rpc.concat(Rpc.ints(0x69, 1, 32, 0, 0, 0, 0), Rpc.echoCall(0x69, EchoProgram.ECHO,
                Rpc.opaque(new byte[6000]))));
        expectDropped(c, ServerCounter.DROPPED_RECEIVE_FAILED, before);
    }

    @Test
    void doneAndErrorMessagesFromTheClientAreDropped() throws Exception {
        RawClient c = client(false);
        long dropped = counter(ServerCounter.MESSAGES_DROPPED);
        c.send(Rpc.ints(0x6A, 1, 32, 3));
        c.send(Rpc.ints(0x6B, 1, 32, 4, 2));
        c.send(Rpc.ints(0x6C, 1, 32, 4, 7));
        await("dropped", () -> counter(ServerCounter.MESSAGES_DROPPED) - dropped == 3);
        expectAnswer(c, Rpc.concat(Rpc.ints(0x6D, 1, 32, 0, 0, 0, 0), Rpc.echoCall(0x6D, EchoProgram.NULL, null)),
                Rpc.concat(Rpc.ints(0x6D, 1, CREDITS, 0, 0, 0, 0), Rpc.successHeader(0x6D)));
    }

    @Test
    void repliesThatAnswerNoReverseCallAreDroppedAndTakeNoCredit() throws Exception {
        RawClient c = client(false);
        // RFC 8167: an RPC REPLY in an RDMA_MSG is a reverse-direction reply, whatever its xid; more of them than the
        // client has credits, none of which answers a call of the server's: dropped, and no credit violation
        int n = CREDITS + 4;
        for (int i = 0; i < n; i++) {
            c.send(Rpc.concat(Rpc.ints(0x7000 + i, 1, 32, 0, 0, 0, 0), Rpc.successHeader(0x7000 + i)));
        }
        await("dropped", () -> counter(c, ServerCounter.MESSAGES_DROPPED) == n);
        assertThat(counter(c, ServerCounter.CALLS)).isZero();
        assertThat(counter(c, ServerCounter.REVERSE_REPLIES)).isZero();
        expectAnswer(c, Rpc.concat(Rpc.ints(0x7100, 1, 32, 0, 0, 0, 0), Rpc.echoCall(0x7100, EchoProgram.NULL, null)),
                Rpc.concat(Rpc.ints(0x7100, 1, CREDITS, 0, 0, 0, 0), Rpc.successHeader(0x7100)));
    }

    static Stream<Arguments> badCredentials() {
        ByteBuf hugeName = Unpooled.buffer().writeInt(1).writeInt(0x7FFF_FFFF).writeInt(0).writeInt(0).writeInt(0);
        ByteBuf hugeGids = Unpooled.buffer().writeInt(1).writeInt(0).writeInt(0).writeInt(0).writeInt(0x4000_0000);
        return Stream.of(
                Arguments.of("AUTH_SYS machine name of 2^31-1 bytes", Rpc.credential(Rpc.AUTH_SYS, hugeName), 1),
                Arguments.of("AUTH_SYS 2^30 gids", Rpc.credential(Rpc.AUTH_SYS, hugeGids), 1),
                Arguments.of("AUTH_SYS 17 gids", Rpc.credential(Rpc.AUTH_SYS,
                        Rpc.authSysBody("host", 1, 1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17)), 1),
                Arguments.of("AUTH_SYS machine name of 256 bytes", Rpc.credential(Rpc.AUTH_SYS,
                        Rpc.authSysBody("h".repeat(256), 1, 1)), 1),
                Arguments.of("AUTH_SYS body shorter than its fields", Rpc.credential(Rpc.AUTH_SYS,
                        Rpc.authSysBody("host", 1, 1, 5).writerIndex(12)), 1),
                Arguments.of("AUTH_SYS body longer than its fields", Rpc.credential(Rpc.AUTH_SYS,
                        Rpc.authSysBody("host", 1, 1).writeInt(0)), 1),
                Arguments.of("credential body over 400 bytes", Rpc.credential(Rpc.AUTH_NONE,
                        Unpooled.buffer().writeZero(404)), 1),
                Arguments.of("credential length beyond the message", Unpooled.buffer().writeInt(Rpc.AUTH_SYS)
                        .writeInt(0x7FFF_FFF0).writeInt(0), 1),
                Arguments.of("RPCSEC_GSS", Rpc.credential(Rpc.RPCSEC_GSS,
                        Unpooled.buffer().writeInt(1).writeInt(0).writeInt(1).writeInt(1).writeInt(0)), 1),
                Arguments.of("AUTH_TLS", Rpc.credential(Rpc.AUTH_TLS, Unpooled.buffer()), 1),
                Arguments.of("an unknown flavor", Rpc.credential(99, Unpooled.buffer()), 1),
                Arguments.of("verifier of 2^31-1 bytes", Unpooled.buffer().writeInt(0).writeInt(0).writeInt(0)
                        .writeInt(0x7FFF_FFFF), 3));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badCredentials")
    void badCredentialsGetAuthError(String what, ByteBuf auth, int authStat) throws Exception {
        RawClient c = client(false);
        long before = counter(ServerCounter.AUTH_REJECTIONS);
        ByteBuf call = Rpc.call(0x6E, EchoProgram.PROGRAM, EchoProgram.VERSION, EchoProgram.NULL, auth, null);
        expectAnswer(c, Rpc.concat(Rpc.ints(0x6E, 1, 32, 0, 0, 0, 0), call),
                Rpc.concat(Rpc.ints(0x6E, 1, CREDITS, 0, 0, 0, 0), Rpc.ints(0x6E, 1, 1, 1, authStat)));
        assertThat(counter(ServerCounter.AUTH_REJECTIONS) - before).isEqualTo(1);
    }

    @Test
    void wellFormedAuthSysIsServed() throws Exception {
        RawClient c = client(false);
        ByteBuf call = Rpc.call(0x6F, EchoProgram.PROGRAM, EchoProgram.VERSION, EchoProgram.NULL,
                Rpc.credential(Rpc.AUTH_SYS, Rpc.authSysBody("h".repeat(255), 1000, 100,
                        1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)), null);
        expectAnswer(c, Rpc.concat(Rpc.ints(0x6F, 1, 32, 0, 0, 0, 0), call),
                Rpc.concat(Rpc.ints(0x6F, 1, CREDITS, 0, 0, 0, 0), Rpc.successHeader(0x6F)));
    }
}
