package org.rpcrdma4j.xprt.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.CompletionHandler;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.dcache.oncrpc4j.rpc.OncRpcAcceptedException;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.RpcAccepsStatus;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.xdr.XdrInt;
import org.dcache.oncrpc4j.xdr.XdrOpaque;
import org.dcache.oncrpc4j.xdr.XdrVoid;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.xprt.XprtCounter;
import org.rpcrdma4j.xprt.client.ClientCounter;
import org.rpcrdma4j.xprt.client.RdmaClientConfig;
import org.rpcrdma4j.xprt.client.RdmaClientTransport;
import org.rpcrdma4j.xprt.TestDevices;

/**
 * Bidirectional RPC-over-RDMA (RFC 8167) end to end: the server's program calls the client back through
 * {@code getPeerTransport()} with an unmodified oncrpc4j {@link RpcCall} while it serves a forward call, and the
 * client's reverse-direction program answers on the same connection. Every reply is compared byte for byte with what
 * the two programs together must produce.
 */
@Timeout(120)
class ReverseDirectionTest extends ServerFixture {
    private final CallbackPrograms.Server serverProgram = new CallbackPrograms.Server();
    private final List<RdmaClientTransport> transports = new ArrayList<>();

    @Override
    void configure(RdmaRpcServer.Builder builder) {
        builder.program(new OncRpcProgram(CallbackPrograms.SERVER_PROGRAM, CallbackPrograms.VERSION), serverProgram);
    }

    @AfterEach
    void closeTransports() {
        transports.forEach(RdmaClientTransport::close);
        transports.clear();
        serverProgram.failures.clear();
    }

    private RdmaClientTransport connect(RpcDispatchable reverse, Duration reconnectDelay) throws Exception {
        RdmaClientConfig.Builder b = RdmaClientConfig.builder()
                .provider(TestDevices.PROVIDER, TestDevices.options(Map.of("name", "reverse-client", "engineThreads", "1")))
                .reconnectDelay(reconnectDelay, reconnectDelay.multipliedBy(2))
                .jmx(false);
        if (reverse != null) {
            b.reverseProgram(new OncRpcProgram(CallbackPrograms.CLIENT_PROGRAM, CallbackPrograms.VERSION), reverse);
        }
        RdmaClientTransport t = RdmaClientTransport.connect(address, b.build());
        transports.add(t);
        return t;
    }

    private static byte[] roundTrip(RdmaClientTransport t, int procedure, byte[] data) throws Exception {
        XdrOpaque result = new XdrOpaque();
        new RpcCall(CallbackPrograms.SERVER_PROGRAM, CallbackPrograms.VERSION, new RpcAuthTypeNone(), t)
                .call(procedure, new XdrOpaque(data), result, 60, TimeUnit.SECONDS);
        return result.getOpaque();
    }

    private static byte[] pattern(int length, int seed) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (i * 31 + seed * 7 + 1);
        }
        return b;
    }

    @Test
    void theServerCallsTheClientBackAndUsesTheAnswerInItsReply() throws Exception {
        CallbackPrograms.Client client = new CallbackPrograms.Client();
        RdmaClientTransport t = connect(client, Duration.ofSeconds(5));
        long sent = counter(ServerCounter.REVERSE_CALLS_SENT);
        long replies = counter(ServerCounter.REVERSE_REPLIES);
        long calls = counter(ServerCounter.CALLS);
        // the largest callback that fits the negotiated inline threshold: 28-byte transport header, 40-byte RPC call
        // header, 4-byte opaque length
        int inline = t.stats().inlineReceive();
        for (byte[] data : new byte[][] {pattern(100, 1), pattern(inline - 28 - 40 - 4, 2), new byte[0]}) {
            assertThat(roundTrip(t, CallbackPrograms.ROUND_TRIP, data))
                    .isEqualTo(CallbackPrograms.expectedReply(data));
        }
        assertThat(serverProgram.failures).isEmpty();
        assertThat(client.calls.get()).isEqualTo(3);
        assertThat(counter(ServerCounter.REVERSE_CALLS_SENT) - sent).isEqualTo(3);
        assertThat(counter(ServerCounter.REVERSE_REPLIES) - replies).isEqualTo(3);
        // the client's replies to the callbacks are not forward calls: only the 3 forward calls count
        assertThat(counter(ServerCounter.CALLS) - calls).isEqualTo(3);
        assertThat(t.stats().get(ClientCounter.REVERSE_CALLS_RECEIVED)).isEqualTo(3);
        // a reply counts as sent when its Send completes, which may come after the forward reply it made possible
        await("the client's three reverse replies completed",
                () -> t.stats().get(ClientCounter.REVERSE_REPLIES_SENT) == 3);
        assertThat(t.stats().get(ClientCounter.REVERSE_REPLIES_SENT)).isEqualTo(3);
        assertThat(t.stats().get(ClientCounter.REVERSE_REPLIES_LOST)).isZero();
        assertThat(t.stats().get(ClientCounter.BACKCHANNEL_CALLS_DROPPED)).isZero();
    }

    @Test
    void manyConcurrentForwardCallsEachCallBack() throws Exception {
        CallbackPrograms.Client client = new CallbackPrograms.Client();
        RdmaClientTransport t = connect(client, Duration.ofSeconds(5));
        long sent = counter(ServerCounter.REVERSE_CALLS_SENT);
        int n = 64;
        ExecutorService callers = Executors.newFixedThreadPool(8);
        try {
            List<Future<byte[]>> results = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                byte[] data = pattern(50 + i * 37, i);
                results.add(callers.submit(() -> roundTrip(t, CallbackPrograms.ROUND_TRIP, data)));
            }
            for (int i = 0; i < n; i++) {
                assertThat(results.get(i).get(60, TimeUnit.SECONDS))
                        .isEqualTo(CallbackPrograms.expectedReply(pattern(50 + i * 37, i)));
            }
        } finally {
            callers.shutdownNow();
        }
        assertThat(serverProgram.failures).isEmpty();
        assertThat(counter(ServerCounter.REVERSE_CALLS_SENT) - sent).isEqualTo(n);
        assertThat(client.calls.get()).isEqualTo(n);
        // never more than the 2 reverse credits on the wire: the client dropped none for want of a slot
        assertThat(t.stats().get(ClientCounter.BACKCHANNEL_CALLS_DROPPED)).isZero();
        assertThat(counter(ServerCounter.REVERSE_QUEUE_DEPTH)).isZero();
    }

    @Test
    void aSlowCallbackDoesNotHoldUpForwardTraffic() throws Exception {
        CallbackPrograms.Client client = new CallbackPrograms.Client();
        RdmaClientTransport t = connect(client, Duration.ofSeconds(5));
        // one forward call first: until a reply brings the server's grant, a new connection has 1 credit (RFC 8166
        // section 3.3.3), which the slow call alone would hold
        new RpcCall(EchoProgram.PROGRAM, EchoProgram.VERSION, new RpcAuthTypeNone(), t)
                .call(EchoProgram.NULL, XdrVoid.XDR_VOID, XdrVoid.XDR_VOID, 60, TimeUnit.SECONDS);
        byte[] slowData = pattern(300, 9);
        CompletableFuture<byte[]> slow = CompletableFuture.supplyAsync(() -> {
            try {
                return roundTrip(t, CallbackPrograms.SLOW_TRIP, slowData);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(client.entered.await(60, TimeUnit.SECONDS)).isTrue();
        // while the client's program sits on the slow callback: forward calls, and another callback, go through
        for (int i = 0; i < 20; i++) {
            EchoProgram.Opaque args = new EchoProgram.Opaque();
            args.bytes = EchoProgram.pattern(200 + i, i);
            EchoProgram.Opaque echoed = new EchoProgram.Opaque();
            new RpcCall(EchoProgram.PROGRAM, EchoProgram.VERSION, new RpcAuthTypeNone(), t)
                    .call(EchoProgram.ECHO, args, echoed, 60, TimeUnit.SECONDS);
            assertThat(echoed.bytes).isEqualTo(args.bytes);
        }
        byte[] quick = pattern(64, 4);
        assertThat(roundTrip(t, CallbackPrograms.ROUND_TRIP, quick)).isEqualTo(CallbackPrograms.expectedReply(quick));
        assertThat(slow).isNotDone();
        client.release.countDown();
        assertThat(slow.get(60, TimeUnit.SECONDS)).isEqualTo(CallbackPrograms.expectedReply(slowData));
        assertThat(serverProgram.failures).isEmpty();
    }

    @Test
    void aCallbackLargerThanTheInlineThresholdIsRefusedBeforeSending() throws Exception {
        CallbackPrograms.Client client = new CallbackPrograms.Client();
        RdmaClientTransport t = connect(client, Duration.ofSeconds(5));
        long sent = counter(ServerCounter.REVERSE_CALLS_SENT);
        long refused = counter(ServerCounter.REVERSE_CALLS_REFUSED);
        XdrOpaque result = new XdrOpaque();
        int inline = t.stats().inlineReceive(); // what the client takes in one Send: the reverse call's bound
        new RpcCall(CallbackPrograms.SERVER_PROGRAM, CallbackPrograms.VERSION, new RpcAuthTypeNone(), t)
                .call(CallbackPrograms.LARGE, new XdrInt(inline - 28 - 40 - 4 + 1), result, 60, TimeUnit.SECONDS);
        assertThat(new String(result.getOpaque(), StandardCharsets.US_ASCII))
                .isEqualTo("failed:ReverseCallTooLargeException");
        assertThat(serverProgram.failures).singleElement().isInstanceOfSatisfying(
                ReverseCallTooLargeException.class, e -> {
                    // the RPC call: 40-byte header, 4-byte length, the inline - 71 bytes padded to inline - 68
                    assertThat(e.length()).isEqualTo(40 + 4 + inline - 68);
                    assertThat(e.limit()).isEqualTo(inline - 28);
                });
        assertThat(counter(ServerCounter.REVERSE_CALLS_SENT) - sent).isZero();
        assertThat(counter(ServerCounter.REVERSE_CALLS_REFUSED) - refused).isEqualTo(1);
        assertThat(client.calls.get()).isZero();
        assertThat(t.stats().get(ClientCounter.REVERSE_CALLS_RECEIVED)).isZero();
    }

    @Test
    void aClientWithoutReverseProgramsMakesTheCallbackFailAtOnce() throws Exception {
        RdmaClientTransport t = connect(null, Duration.ofSeconds(5));
        byte[] data = pattern(10, 3);
        assertThat(new String(roundTrip(t, CallbackPrograms.ROUND_TRIP, data), StandardCharsets.US_ASCII))
                .isEqualTo("failed:OncRpcAcceptedException");
        assertThat(serverProgram.failures).singleElement().isInstanceOfSatisfying(OncRpcAcceptedException.class,
                e -> assertThat(e.getMessage()).isEqualTo(RpcAccepsStatus.toString(RpcAccepsStatus.PROG_UNAVAIL)));
        assertThat(t.stats().get(ClientCounter.REVERSE_CALLS_REFUSED)).isEqualTo(1);
        // the forward direction is unaffected
        new RpcCall(EchoProgram.PROGRAM, EchoProgram.VERSION, new RpcAuthTypeNone(), t)
                .call(EchoProgram.NULL, XdrVoid.XDR_VOID, XdrVoid.XDR_VOID, 60, TimeUnit.SECONDS);
    }

    @Test
    void aDisconnectDuringACallbackFailsItOnBothSides() throws Exception {
        CallbackPrograms.Client client = new CallbackPrograms.Client();
        RdmaClientTransport t = connect(client, Duration.ofMillis(50));
        long failed = counter(ServerCounter.REVERSE_CALLS_FAILED);
        byte[] data = pattern(77, 5);
        CompletableFuture<byte[]> forward = CompletableFuture.supplyAsync(() -> {
            try {
                return roundTrip(t, CallbackPrograms.SLOW_TRIP, data);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(client.entered.await(60, TimeUnit.SECONDS)).isTrue();
        int served = serverProgram.calls.get();
        server.connectionTo(t.getLocalSocketAddress()).requestClose(ServerCounter.DROPPED_SERVER_STOP);
        // server side: the waiting callback fails with EOFException, not a timeout
        await("the server's callback failed", () -> !serverProgram.failures.isEmpty());
        assertThat(serverProgram.failures.peek()).isInstanceOf(EOFException.class);
        assertThat(counter(ServerCounter.REVERSE_CALLS_FAILED) - failed).isEqualTo(1);
        // client side: the answer to the old connection's callback is not sent on the new connection. Released once
        // the client has seen the loss: before that, the reply is rightly posted on the old connection (the client
        // cannot tell it is gone, and its Send may even complete into the closing socket).
        await("the client reconnected", () -> t.stats().get(XprtCounter.CONNECTS) == 2);
        client.release.countDown();
        await("the client's stale reply dropped", () -> t.stats().get(ClientCounter.REVERSE_REPLIES_LOST) == 1);
        // the forward call is sent again on the new connection, calls back again, and this time gets its answer
        assertThat(forward.get(60, TimeUnit.SECONDS)).isEqualTo(CallbackPrograms.expectedReply(data));
        assertThat(serverProgram.calls.get()).isEqualTo(served + 1);
        await("the client's reverse reply completed", () -> t.stats().get(ClientCounter.REVERSE_REPLIES_SENT) == 1);
        assertThat(t.stats().get(ClientCounter.REVERSE_REPLIES_SENT)).isEqualTo(1);
    }

    /** A client program that answers TRANSFORM, then throws (as one whose clean-up after the reply fails). */
    private static final class ReplyThenThrow implements RpcDispatchable {
        @Override
        public void dispatchOncRpcCall(RpcCall call) throws IOException {
            XdrOpaque arg = new XdrOpaque();
            call.retrieveCall(arg);
            call.reply(new XdrOpaque(CallbackPrograms.reversed(arg.getOpaque())));
            throw new IllegalStateException("failed after its reply");
        }
    }

    /**
     * A client program that answers TRANSFORM twice, the right answer and then another, and records what became of
     * each (a listener of the call, which oncrpc4j tells of every reply's outcome, in the order they are known).
     */
    private static final class ReplyTwice implements RpcDispatchable {
        /** Per call: the outcomes heard so far, then the failure the second reply must meet. */
        final ConcurrentLinkedQueue<Map.Entry<List<String>, String>> calls = new ConcurrentLinkedQueue<>();

        @Override
        public void dispatchOncRpcCall(RpcCall call) throws IOException {
            XdrOpaque arg = new XdrOpaque();
            call.retrieveCall(arg);
            List<String> outcomes = new CopyOnWriteArrayList<>();
            calls.add(Map.entry(outcomes, "failed: IllegalStateException: reverse-direction call xid 0x"
                    + Integer.toHexString(call.getXid()) + " has been answered already"));
            call.registerSendListener(new CompletionHandler<>() {
                @Override
                public void completed(Integer result, InetSocketAddress attachment) {
                    outcomes.add("sent");
                }

                @Override
                public void failed(Throwable exc, InetSocketAddress attachment) {
                    outcomes.add("failed: " + exc.getClass().getSimpleName() + ": " + exc.getMessage());
                }
            });
            call.reply(new XdrOpaque(CallbackPrograms.reversed(arg.getOpaque())));
            call.reply(new XdrOpaque("second".getBytes(StandardCharsets.US_ASCII)));
        }
    }

    /**
     * A client program that refuses every call with an RpcException whose reply cannot be encoded: oncrpc4j's failure
     * reply then fails too, and the call would go unanswered, its slot kept for ever.
     */
    private static final class UnanswerableRefusal implements RpcDispatchable {
        @Override
        public void dispatchOncRpcCall(RpcCall call) throws IOException {
            call.retrieveCall(new XdrOpaque());
            throw new org.dcache.oncrpc4j.rpc.RpcException(RpcAccepsStatus.SYSTEM, "refused",
                    new org.dcache.oncrpc4j.xdr.XdrAble() {
                        @Override
                        public void xdrDecode(org.dcache.oncrpc4j.xdr.XdrDecodingStream xdr) {
                        }

                        @Override
                        public void xdrEncode(org.dcache.oncrpc4j.xdr.XdrEncodingStream xdr) {
                            throw new IllegalStateException("this refusal cannot be encoded");
                        }
                    });
        }
    }

    @Test
    void aCallbackWhoseFailureReplyCannotBeMadeIsAnsweredSystemErrAndItsSlotComesBack() throws Exception {
        RdmaClientTransport t = connect(new UnanswerableRefusal(), Duration.ofSeconds(5));
        int n = 12; // three times the client's reverse-direction slots: each must come back
        for (int i = 0; i < n; i++) {
            byte[] data = pattern(60 + i, i);
            assertThat(new String(roundTrip(t, CallbackPrograms.ROUND_TRIP, data), StandardCharsets.US_ASCII))
                    .isEqualTo("failed:OncRpcAcceptedException"); // the server's callback was answered SYSTEM_ERR
        }
        assertThat(serverProgram.failures).hasSize(n).allSatisfy(f -> assertThat(f)
                .isInstanceOf(org.dcache.oncrpc4j.rpc.OncRpcAcceptedException.class));
        await("the client's reverse replies completed", () -> t.stats().get(ClientCounter.REVERSE_REPLIES_SENT) >= n);
        assertThat(t.stats().get(ClientCounter.REVERSE_REPLIES_SENT)).isEqualTo(n);
        assertThat(t.stats().get(ClientCounter.REVERSE_CALLS_REFUSED)).isEqualTo(n);
    }

    @Test
    void aCallbackProgramThatThrowsAfterItsReplyGetsNoSecondReply() throws Exception {
        RdmaClientTransport t = connect(new ReplyThenThrow(), Duration.ofSeconds(5));
        long replies = counter(ServerCounter.REVERSE_REPLIES);
        long dropped = counter(ServerCounter.MESSAGES_DROPPED);
        int n = 20;
        for (int i = 0; i < n; i++) {
            byte[] data = pattern(40 + i, i);
            assertThat(roundTrip(t, CallbackPrograms.ROUND_TRIP, data)).isEqualTo(CallbackPrograms.expectedReply(data));
        }
        assertThat(serverProgram.failures).isEmpty();
        await("the client's reverse replies completed", () -> t.stats().get(ClientCounter.REVERSE_REPLIES_SENT) >= n);
        // one reply per callback: no SYSTEM_ERR after the program's own reply, and no slot sent twice
        assertThat(t.stats().get(ClientCounter.REVERSE_REPLIES_SENT)).isEqualTo(n);
        assertThat(t.stats().get(ClientCounter.REVERSE_REPLIES_LOST)).isZero();
        assertThat(t.stats().get(ClientCounter.REVERSE_CALLS_RECEIVED)).isEqualTo(n);
        assertThat(counter(ServerCounter.REVERSE_REPLIES) - replies).isEqualTo(n);
        assertThat(counter(ServerCounter.MESSAGES_DROPPED) - dropped).isZero();
    }

    @Test
    void aCallbackProgramsSecondReplyFailsAndIsNotSent() throws Exception {
        ReplyTwice client = new ReplyTwice();
        RdmaClientTransport t = connect(client, Duration.ofSeconds(5));
        long replies = counter(ServerCounter.REVERSE_REPLIES);
        long dropped = counter(ServerCounter.MESSAGES_DROPPED);
        int n = 20;
        for (int i = 0; i < n; i++) {
            byte[] data = pattern(40 + i, i);
            assertThat(roundTrip(t, CallbackPrograms.ROUND_TRIP, data)).isEqualTo(CallbackPrograms.expectedReply(data));
        }
        assertThat(serverProgram.failures).isEmpty();
        // the first reply is known to be sent when its Send completes, which may come after the forward reply
        await("every reply's outcome known", () -> client.calls.size() == n
                && client.calls.stream().allMatch(c -> c.getKey().size() >= 2));
        client.calls.forEach(c -> assertThat(c.getKey()).containsExactlyInAnyOrder("sent", c.getValue()));
        await("the client's reverse replies completed", () -> t.stats().get(ClientCounter.REVERSE_REPLIES_SENT) >= n);
        assertThat(t.stats().get(ClientCounter.REVERSE_REPLIES_SENT)).isEqualTo(n);
        assertThat(counter(ServerCounter.REVERSE_REPLIES) - replies).isEqualTo(n);
        assertThat(counter(ServerCounter.MESSAGES_DROPPED) - dropped).isZero();
    }
}
