package org.rpcrdma4j.xprt.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.xprt.client.fake.FakeRdmaServer;
import org.rpcrdma4j.xprt.client.fake.ReceivedCall;
import org.rpcrdma4j.xprt.client.fake.Reply;
import org.rpcrdma4j.xprt.client.fake.TestProgram;

/**
 * A server that answers calls but leaves a keep-alive probe unanswered (two credits granted, one of them the probe's):
 * the probe keeps only the credit reserved for it, so calls still go out on the other one, and a later silence is
 * still noticed, the old probe standing for a new one.
 */
@Timeout(60)
class KeepAliveUnansweredProbeTest extends ClientTestBase {
    private final FakeRdmaServer.Options options = new FakeRdmaServer.Options();

    @Override
    protected FakeRdmaServer.Options serverOptions() {
        options.grant = 2;
        return options;
    }

    @Test
    void aProbeLeftUnansweredKeepsNoCallFromItsCreditNorTheConnectionFromTheKeepAlive() throws Exception {
        RdmaClientTransport t = connect(b -> b.keepAlive(Duration.ofMillis(100), Duration.ofSeconds(2)));
        server.script(c -> Reply.none()); // every call answered below, by hand; the probe never
        answered(t, echo(t, 1)); // the grant of 2 arrives with this reply

        RdmaCall first = echo(t, 2);
        ReceivedCall held = server.nextCall();
        ReceivedCall probe = server.nextCall(); // the quiet period passes with the call on the wire
        assertThat(probe.procedure()).as("the keep-alive probe: NULL").isZero();
        assertThat(t.stats().get(org.rpcrdma4j.xprt.XprtCounter.KEEPALIVE_PROBES)).isEqualTo(1);
        server.respondLater(held, TestProgram.serve(held));
        echoed(first);

        answered(t, echo(t, 3)); // goes out beside the unanswered probe

        RdmaCall silent = echo(t, 4); // the server says nothing more
        server.nextCall();
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (t.stats().get(ClientCounter.KEEPALIVE_FAILURES) == 0) {
            assertThat(System.nanoTime() - until).as("hang guard: the silence is noticed").isNegative();
            Thread.sleep(10);
        }
        assertThat(t.stats().get(ClientCounter.FORCED_DISCONNECTS)).isPositive();
        assertThat(t.stats().get(org.rpcrdma4j.xprt.XprtCounter.KEEPALIVE_PROBES)).as("no second probe")
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
