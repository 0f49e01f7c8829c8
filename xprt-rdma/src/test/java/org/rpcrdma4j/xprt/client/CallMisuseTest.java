package org.rpcrdma4j.xprt.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.registration.RegisteredBuffer;
import org.rpcrdma4j.xprt.XprtCounter;
import org.rpcrdma4j.xprt.client.fake.ReceivedCall;
import org.rpcrdma4j.xprt.client.fake.Reply;
import org.rpcrdma4j.xprt.client.fake.TestProgram;

/**
 * Calls a caller got wrong, and a close while calls wait for memory: each call ends with a typed failure, its slot
 * comes back, and the connection goes on serving the other calls.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CallMisuseTest extends ClientTestBase {
    private static final long WAIT = TimeUnit.SECONDS.toNanos(30);

    @Test
    void aReplyLargerThanTheCallersReplyBufferCanGrowFailsTheCallAndTheConnectionGoesOn() throws Exception {
        RdmaClientTransport t = connect();
        int slots = t.stats().freeSlots();
        byte[] data = TestProgram.pattern(3, 1000);
        RdmaCall call = new RdmaCall().message(echoCall(t.nextXid(), data)).reply(Unpooled.buffer(16, 16));

        t.submit(call, null);

        assertThat(call.awaitDone(WAIT)).as("the call ended").isTrue();
        assertThat(call.failure()).isInstanceOf(RdmaBadReplyException.class)
                .hasMessageContaining("does not fit the call's reply buffer");
        ByteBuf reply = Unpooled.buffer();
        t.call(new RdmaCall().message(echoCall(t.nextXid(), data)).reply(reply));
        assertThat(bytes(reply, reply.readableBytes() - data.length, data.length)).isEqualTo(data);
        assertThat(t.stats().get(XprtCounter.RECONNECTS)).isZero();
        assertThat(t.stats().freeSlots()).isEqualTo(slots);
    }

    @Test
    void aPayloadReleasedBeforeTheCallIsRefusedAndTakesNoSlot() throws Exception {
        RdmaClientTransport t = connect();
        int slots = t.stats().freeSlots();
        RegisteredBuffer payload = t.bufferPool().allocate(100);
        payload.release();
        RdmaCall call = new RdmaCall().message(putHead(t.nextXid(), 1, 100)).payload(payload, 0, 100)
                .reply(Unpooled.buffer());

        assertThatThrownBy(() -> t.submit(call, null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("released");

        assertThat(t.stats().freeSlots()).isEqualTo(slots);
        t.call(call.reset().message(nullCall(t.nextXid())).reply(Unpooled.buffer()));
        assertThat(call.failure()).isNull();
    }

    @Test
    void aSecondCallWithTheXidOfOneOnTheWireFailsAloneAndTheFirstIsAnswered() throws Exception {
        RdmaClientTransport t = connect();
        t.call(new RdmaCall().message(nullCall(t.nextXid())).reply(Unpooled.buffer())); // the grant
        server.drainCalls();
        server.script(c -> Reply.none());
        int xid = t.nextXid();
        byte[] data = TestProgram.pattern(5, 64);
        RdmaCall first = new RdmaCall().message(echoCall(xid, data)).reply(Unpooled.buffer());
        RdmaCall second = new RdmaCall().message(echoCall(xid, data)).reply(Unpooled.buffer());

        t.submit(first, null);
        ReceivedCall seen = server.nextCall();
        t.submit(second, null);

        assertThat(second.awaitDone(WAIT)).isTrue();
        assertThat(second.failure()).isInstanceOf(RdmaMarshalException.class)
                .hasMessageContaining("already outstanding");
        assertThat(first.isDone()).isFalse();
        server.respondLater(seen, TestProgram.serve(seen));
        assertThat(first.awaitDone(WAIT)).isTrue();
        assertThat(first.failure()).isNull();
        assertThat(t.stats().get(XprtCounter.RECONNECTS)).isZero();
        assertThat(server.drainCalls()).as("the second call never went out").isEmpty();
    }

    @Test
    void closeEndsACallThatWaitsForRegisteredMemoryAtOnce() throws Exception {
        // not tracked: the pages held below are still out when the pool closes, which the tracked check would count
        RdmaClientTransport t = RdmaClientTransport.connect(server.address(),
                config().bufferPool(8L << 20, Duration.ofSeconds(600)).build());
        List<RegisteredBuffer> hog = new ArrayList<>();
        RegisteredBuffer b;
        while ((b = t.bufferPool().tryAllocate(4096)) != null) {
            hog.add(b);
        }
        long waitsBefore = t.bufferPool().waits();
        RdmaCall call = new RdmaCall().message(echoCall(t.nextXid(), new byte[100])).maxReplySize(200_000)
                .reply(Unpooled.buffer(256)).timeout(600, TimeUnit.SECONDS);
        CompletableFuture<Void> submitted = CompletableFuture.runAsync(() -> t.submit(call, null));
        while (t.bufferPool().waits() == waitsBefore) {
            Thread.onSpinWait();
        }

        CompletableFuture<Void> closing = CompletableFuture.runAsync(t::close);

        assertThat(call.awaitDone(WAIT)).as("the call ended").isTrue();
        assertThat(call.failure()).isInstanceOf(RdmaConnectionException.class).hasMessageContaining("closed");
        submitted.get(30, TimeUnit.SECONDS);
        closing.get(30, TimeUnit.SECONDS);
        hog.forEach(RegisteredBuffer::release);
        assertThat(t.mbeanName()).isNull();
    }

    @Test
    void aCallWaitingForRegisteredMemoryTimesOutAtItsOwnDeadlineAndTheConnectionGoesOn() throws Exception {
        RdmaClientTransport t = connect(b -> b.bufferPool(8L << 20, Duration.ofSeconds(600)));
        int slots = t.stats().freeSlots();
        List<RegisteredBuffer> hog = new ArrayList<>();
        RegisteredBuffer b;
        while ((b = t.bufferPool().tryAllocate(4096)) != null) {
            hog.add(b);
        }
        RdmaCall call = new RdmaCall().message(echoCall(t.nextXid(), new byte[100])).maxReplySize(200_000)
                .reply(Unpooled.buffer(256)).timeout(200, TimeUnit.MILLISECONDS);

        CompletableFuture<Void> submitted = CompletableFuture.runAsync(() -> t.submit(call, null));

        assertThat(call.awaitDone(WAIT)).as("the call ended").isTrue();
        assertThat(call.failure()).isInstanceOf(RdmaCallTimeoutException.class)
                .hasMessageContaining("waiting for registered memory");
        submitted.get(30, TimeUnit.SECONDS);
        assertThat(t.stats().get(XprtCounter.TIMEOUTS)).isEqualTo(1);
        hog.forEach(RegisteredBuffer::release);
        ByteBuf reply = Unpooled.buffer();
        t.call(new RdmaCall().message(nullCall(t.nextXid())).reply(reply));
        assertThat(t.stats().freeSlots()).isEqualTo(slots);
    }
}
