package org.rpcrdma4j.xprt.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.codec.RpcRdmaPrivateData;
import org.rpcrdma4j.codec.RpcRdmaProc;
import org.rpcrdma4j.xprt.client.fake.FakeRdmaServer;
import org.rpcrdma4j.xprt.client.fake.ReceivedCall;
import org.rpcrdma4j.xprt.client.fake.Reply;
import org.rpcrdma4j.xprt.client.fake.TestProgram;

/**
 * The inline thresholds are negotiated anew on every connection, so a call goes out planned for the connection it
 * goes out on: a server that comes back with smaller inline sizes (restarted with other settings, a fail-over, one
 * that sends no private data) gets the call in a Read chunk and returns its reply through a Reply chunk, instead of
 * refusing an inline reply that no longer fits with ERR_CHUNK. The fake server, like a real one, sends inline only
 * what fits both its own inline send size and the client's receive size.
 */
@Timeout(60)
class ReconnectThresholdsTest extends ClientTestBase {
    /** 1500 bytes: the call and its reply fit 4096 bytes inline, not 1024. */
    private static final int ECHO_BYTES = 1500;

    private final FakeRdmaServer.Options options = new FakeRdmaServer.Options();

    @Override
    protected FakeRdmaServer.Options serverOptions() {
        return options;
    }

    @Test
    void aCallOnTheWireWhenTheServerComesBackWithSmallerInlineSizesIsPlannedAgain() throws Exception {
        RdmaClientTransport t = connect();
        assertThat(t.stats().inlineReceive()).isEqualTo(4096);
        server.script(ReconnectThresholdsTest::firstConnectionSilent);
        byte[] data = TestProgram.pattern(3, ECHO_BYTES);
        ByteBuf reply = Unpooled.buffer();
        RdmaCall call = new RdmaCall().message(echoCall(t.nextXid(), data)).reply(reply).timeout(30, TimeUnit.SECONDS);
        t.submit(call, null);
        ReceivedCall first = server.nextCall();
        assertThat(first.proc()).as("planned for 4096 bytes: inline").isEqualTo(RpcRdmaProc.RDMA_MSG);
        assertThat(first.hasReplyChunk()).isFalse();

        options.privateData = null; // back with the version 1 defaults: 1024 bytes each way
        server.dropConnections();

        assertThat(call.awaitDone(TimeUnit.SECONDS.toNanos(30))).isTrue();
        assertThat(call.failure()).isNull();
        assertThat(bytes(reply, TestProgram.results(reply) + 4, ECHO_BYTES)).isEqualTo(data);
        ReceivedCall again = server.nextCall();
        assertThat(again.xid()).isEqualTo(first.xid());
        assertThat(again.proc()).as("1500 bytes do not fit 1024 inline").isEqualTo(RpcRdmaProc.RDMA_NOMSG);
        assertThat(again.hasReplyChunk()).as("nor does the reply").isTrue();
        RdmaClientStats s = t.stats();
        assertThat(s.inlineReceive()).isEqualTo(1024);
        assertThat(s.get(ClientCounter.REPLIES_PLANNED_AGAIN)).isEqualTo(1);
        assertThat(s.get(org.rpcrdma4j.xprt.XprtCounter.RECONNECTS)).isEqualTo(1);
    }

    @Test
    void aCallMadeWhileNoConnectionIsUpGoesOutPlannedForTheNextOne() throws Exception {
        RdmaClientTransport t = connect();
        call(t, 1); // warm: the connection is up and used
        options.privateData = RpcRdmaPrivateData.of(false, 1024, 1024);
        server.dropConnections();
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!t.stats().state().equals("IDLE")) {
            assertThat(System.nanoTime() - until).as("hang guard: the loss is noticed").isNegative();
            Thread.sleep(10);
        }
        assertThat(t.stats().inlineReceive()).as("still the lost connection's").isEqualTo(4096);

        // marshaled now, with no connection: the next one has other thresholds
        byte[] data = TestProgram.pattern(5, ECHO_BYTES);
        ByteBuf reply = Unpooled.buffer();
        t.call(new RdmaCall().message(echoCall(t.nextXid(), data)).reply(reply).timeout(30, TimeUnit.SECONDS));
        assertThat(bytes(reply, TestProgram.results(reply) + 4, ECHO_BYTES)).isEqualTo(data);
        server.drainCalls();
        RdmaClientStats s = t.stats();
        assertThat(s.inlineReceive()).isEqualTo(1024);
        assertThat(s.get(ClientCounter.REPLIES_PLANNED_AGAIN)).isEqualTo(1);

        // and a call made on the new connection is planned for it from the start
        byte[] more = TestProgram.pattern(6, ECHO_BYTES);
        ByteBuf reply2 = Unpooled.buffer();
        t.call(new RdmaCall().message(echoCall(t.nextXid(), more)).reply(reply2).timeout(30, TimeUnit.SECONDS));
        assertThat(bytes(reply2, TestProgram.results(reply2) + 4, ECHO_BYTES)).isEqualTo(more);
        ReceivedCall last = server.nextCall();
        assertThat(last.proc()).isEqualTo(RpcRdmaProc.RDMA_NOMSG);
        assertThat(last.hasReplyChunk()).isTrue();
        assertThat(t.stats().get(ClientCounter.REPLIES_PLANNED_AGAIN)).isEqualTo(1);
    }

    @Test
    void aServerBackWithLargerInlineSizesGetsTheReplyInlineAgain() throws Exception {
        options.privateData = null;
        RdmaClientTransport t = connect(b -> b.reconnectDelay(Duration.ofMillis(20), Duration.ofMillis(100)));
        server.script(ReconnectThresholdsTest::firstConnectionSilent);
        byte[] data = TestProgram.pattern(7, ECHO_BYTES);
        ByteBuf reply = Unpooled.buffer();
        RdmaCall call = new RdmaCall().message(echoCall(t.nextXid(), data)).reply(reply).timeout(30, TimeUnit.SECONDS);
        t.submit(call, null);
        ReceivedCall first = server.nextCall();
        assertThat(first.hasReplyChunk()).as("planned for 1024 bytes").isTrue();

        options.privateData = RpcRdmaPrivateData.of(false, 4096, 4096);
        server.dropConnections();

        assertThat(call.awaitDone(TimeUnit.SECONDS.toNanos(30))).isTrue();
        assertThat(call.failure()).isNull();
        assertThat(bytes(reply, TestProgram.results(reply) + 4, ECHO_BYTES)).isEqualTo(data);
        ReceivedCall again = server.nextCall();
        assertThat(again.proc()).isEqualTo(RpcRdmaProc.RDMA_MSG);
        assertThat(again.hasReplyChunk()).as("the reply chunk is no longer needed").isFalse();
    }

    /** The first connection never answers; later ones serve. Decided per connection, not by a script swapped in. */
    private static Reply firstConnectionSilent(ReceivedCall c) throws Exception {
        return c.connection() == 0 ? Reply.none() : TestProgram.serve(c);
    }

    private void call(RdmaClientTransport t, int seed) throws Exception {
        byte[] data = TestProgram.pattern(seed, 100);
        ByteBuf reply = Unpooled.buffer();
        t.call(new RdmaCall().message(echoCall(t.nextXid(), data)).reply(reply));
        assertThat(bytes(reply, TestProgram.results(reply) + 4, 100)).isEqualTo(data);
        server.drainCalls();
    }
}
