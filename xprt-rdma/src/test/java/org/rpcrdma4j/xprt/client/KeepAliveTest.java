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
 * (dropping it would send the call again, to be slow again, without end).
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
}
