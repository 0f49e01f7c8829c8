package org.rpcrdma4j.xprt.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.xprt.XprtCounter;
import org.rpcrdma4j.xprt.client.fake.FakeRdmaServer;
import org.rpcrdma4j.xprt.client.fake.ReceivedCall;
import org.rpcrdma4j.xprt.client.fake.Reply;
import org.rpcrdma4j.xprt.client.fake.TestProgram;

/**
 * The keep-alive drops a connection only for silence: a probe that went out and got no answer. A server that grants
 * one credit leaves no room for a probe while a call is on the wire; a slow answer must then not cost the connection
 * (dropping it would send the call again, to be slow again, without end). A probe the server leaves unanswered while
 * it answers calls must not keep the calls from their credits, nor the keep-alive from noticing a later silence.
 */
@Timeout(60)
class KeepAliveTest extends ClientTestBase {
    private final FakeRdmaServer.Options options = new FakeRdmaServer.Options();

    @Override
    protected FakeRdmaServer.Options serverOptions() {
        options.grant = 1;
        return options;
    }

    @Test
    void aSlowServerGrantingOneCreditIsNotDroppedWhileItsCallIsOnTheWire() throws Exception {
        RdmaClientTransport t = connect(b -> b.keepAlive(Duration.ofMillis(100), Duration.ofMillis(100)));
        server.script(c -> Reply.none()); // answered below, long after interval + timeout
        byte[] data = TestProgram.pattern(4, 64);
        ByteBuf reply = Unpooled.buffer();
        RdmaCall call = new RdmaCall().message(echoCall(t.nextXid(), data)).reply(reply).timeout(30, TimeUnit.SECONDS);
        t.submit(call, null);
        ReceivedCall seen = server.nextCall();
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (t.stats().get(ClientCounter.KEEPALIVE_PROBES_DEFERRED) == 0) {
            assertThat(System.nanoTime() - until).as("hang guard: the probe falls due").isNegative();
            Thread.sleep(10);
        }
        Thread.sleep(1000); // ten times interval + timeout: the old rule had dropped the connection by now

        server.respondLater(seen, TestProgram.serve(seen));
        assertThat(call.awaitDone(TimeUnit.SECONDS.toNanos(30))).isTrue();
        assertThat(call.failure()).isNull();
        assertThat(bytes(reply, TestProgram.results(reply) + 4, data.length)).isEqualTo(data);
        RdmaClientStats s = t.stats();
        assertThat(server.acceptedConnections()).as("one connection: never dropped").isEqualTo(1);
        assertThat(s.get(ClientCounter.KEEPALIVE_FAILURES)).isZero();
        assertThat(s.get(ClientCounter.FORCED_DISCONNECTS)).isZero();
        assertThat(s.get(XprtCounter.KEEPALIVE_PROBES)).as("no credit was ever free for one").isZero();
        assertThat(server.drainCalls()).as("the call was not sent again").isEmpty();
    }

    @Test
    void aSilentServerGrantingOneCreditIsLeftToTheCallsTimeout() throws Exception {
        RdmaClientTransport t = connect(b -> b.keepAlive(Duration.ofMillis(100), Duration.ofMillis(100)));
        server.script(c -> Reply.none()); // never answers
        RdmaCall call = new RdmaCall().message(nullCall(t.nextXid())).reply(Unpooled.buffer())
                .timeout(1500, TimeUnit.MILLISECONDS);
        t.submit(call, null);
        assertThat(call.awaitDone(TimeUnit.SECONDS.toNanos(30))).isTrue();
        assertThat(call.failure()).isInstanceOf(RdmaCallTimeoutException.class);
        RdmaClientStats s = t.stats();
        assertThat(s.get(ClientCounter.KEEPALIVE_PROBES_DEFERRED)).isPositive();
        assertThat(s.get(ClientCounter.KEEPALIVE_FAILURES)).isZero();
        assertThat(s.get(XprtCounter.TIMEOUTS)).isEqualTo(1);
    }

    /**
     * A server that answers calls but leaves a keep-alive probe unanswered (two credits granted, one of them the
     * probe's): the probe keeps only the credit reserved for it, so calls still go out on the other one, and a later
     * silence is still noticed, the old probe standing for a new one.
     */
    @Test
    void aProbeLeftUnansweredKeepsNoCallFromItsCreditNorTheConnectionFromTheKeepAlive() throws Exception {
        options.grant = 2; // one credit for the calls, one kept for the probe
        RdmaClientTransport t = connect(b -> b.keepAlive(Duration.ofMillis(100), Duration.ofSeconds(2)));
        server.script(c -> Reply.none()); // every call answered below, by hand; the probe never
        answered(t, echo(t, 1)); // the grant of 2 arrives with this reply

        RdmaCall first = echo(t, 2);
        ReceivedCall held = server.nextCall();
        ReceivedCall probe = server.nextCall(); // the quiet period passes with the call on the wire
        assertThat(probe.procedure()).as("the keep-alive probe: NULL").isZero();
        assertThat(t.stats().get(XprtCounter.KEEPALIVE_PROBES)).isEqualTo(1);
        server.respondLater(held, TestProgram.serve(held));
        echoed(first);

        answered(t, echo(t, 3)); // goes out beside the unanswered probe
        assertThat(t.stats().get(ClientCounter.KEEPALIVE_FAILURES)).as("on the same connection").isZero();

        RdmaCall silent = echo(t, 4); // the server says nothing more
        server.nextCall();
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (t.stats().get(ClientCounter.KEEPALIVE_FAILURES) == 0) {
            assertThat(System.nanoTime() - until).as("hang guard: the silence is noticed").isNegative();
            Thread.sleep(10);
        }
        assertThat(t.stats().get(ClientCounter.FORCED_DISCONNECTS)).isPositive();
        assertThat(t.stats().get(XprtCounter.KEEPALIVE_PROBES)).as("no second probe")
                .isEqualTo(1);
        assertThat(silent.isDone()).as("sent again on the next connection").isFalse();
    }

    private final java.util.Map<RdmaCall, byte[]> sent = new java.util.HashMap<>();
    private final java.util.Map<RdmaCall, ByteBuf> replies = new java.util.HashMap<>();

    private RdmaCall echo(RdmaClientTransport t, int seed) throws Exception {
        byte[] data = TestProgram.pattern(seed, 64);
        ByteBuf reply = Unpooled.buffer();
        RdmaCall call = new RdmaCall().message(echoCall(t.nextXid(), data)).reply(reply)
                .timeout(30, TimeUnit.SECONDS);
        sent.put(call, data);
        replies.put(call, reply);
        t.submit(call, null);
        return call;
    }

    /** Answers {@code call} once the server has it, and checks its echo. */
    private void answered(RdmaClientTransport t, RdmaCall call) throws Exception {
        ReceivedCall seen = server.nextCall();
        assertThat(seen.procedure()).isEqualTo(TestProgram.ECHO);
        server.respondLater(seen, TestProgram.serve(seen));
        echoed(call);
    }

    private void echoed(RdmaCall call) throws Exception {
        assertThat(call.awaitDone(TimeUnit.SECONDS.toNanos(30))).isTrue();
        assertThat(call.failure()).isNull();
        ByteBuf reply = replies.get(call);
        byte[] data = sent.get(call);
        assertThat(bytes(reply, TestProgram.results(reply) + 4, data.length)).isEqualTo(data);
    }
}
