package org.rpcrdma4j.xprt.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.registration.ChunkRole;
import org.rpcrdma4j.registration.RegisteredBuffer;
import org.rpcrdma4j.registration.Registration;
import org.rpcrdma4j.registration.RegistrationCounter;
import org.rpcrdma4j.registration.RegistrationPool;
import org.rpcrdma4j.registration.ScatterList;
import org.rpcrdma4j.xprt.XprtCounter;
import org.rpcrdma4j.xprt.client.fake.TestProgram;

/**
 * A call whose registration waits for a free handle when the connection is lost: the pool's reset wakes it with the
 * registration's epoch gone. The connection's loss is the transport's to handle, so the call is marshaled again on the
 * next connection's handles and answered there, never failed as unmarshalable (the agent counts the reset only after
 * the pool was rebuilt, so the caller that wakes first must not rely on that count).
 */
@Timeout(60)
class ResetWhileMappingTest extends ClientTestBase {

    @Test
    void aCallWaitingForRegistrationHandlesWhenTheConnectionIsLostIsAnsweredOnTheNextOne() throws Exception {
        RdmaClientTransport t = connect();
        int count = 64 * 1024;
        RegisteredBuffer sink = registered(t, count);
        ByteBuf warm = Unpooled.buffer(256);
        t.call(new RdmaCall().message(getCall(t.nextXid(), count, 1)).sink(sink, 0, count).reply(warm));
        server.nextCall();

        RegistrationPool pool = t.registrationPool();
        RegisteredBuffer pages = registered(t, 8192);
        List<Registration> hogs = new ArrayList<>();
        while (pool.freeHandles() > 0 || pool.allocatedHandles() < pool.maxHandles()) {
            Registration hog = pool.newRegistration().begin(hogs.size());
            hog.map(new ScatterList(1).add(pages, 0, 4096), ChunkRole.WRITE_CHUNK_SINK); // one handle each
            hogs.add(hog);
        }
        long waitsBefore = pool.registrationCounters().get(RegistrationCounter.POOL_WAITS);

        ByteBuf reply = Unpooled.buffer(256);
        RdmaCall call = new RdmaCall().message(getCall(t.nextXid(), count, 5)).sink(sink, 0, count).reply(reply)
                .timeout(30, TimeUnit.SECONDS);
        CompletableFuture<Void> submitted = CompletableFuture.runAsync(() -> t.submit(call, null));
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (pool.registrationCounters().get(RegistrationCounter.POOL_WAITS) == waitsBefore) {
            assertThat(System.nanoTime() - until).as("hang guard: the call waits for a handle").isNegative();
            Thread.sleep(1);
        }
        assertThat(submitted).as("the caller waits in registration").isNotDone();

        server.dropConnections(); // the pool is reset: every handle, the hogs' too, is destroyed and made anew

        submitted.get(30, TimeUnit.SECONDS);
        assertThat(call.awaitDone(TimeUnit.SECONDS.toNanos(30))).isTrue();
        assertThat(call.failure()).isNull();
        assertThat(call.placedBytes()).isEqualTo(count);
        assertThat(bytes(sink, 0, count)).isEqualTo(TestProgram.pattern(5, count));
        assertThat(server.nextCall().header().writeChunkCount()).isEqualTo(1);
        RdmaClientStats s = t.stats();
        assertThat(s.get(XprtCounter.FAILED_MARSHAL_COUNT)).isZero();
        assertThat(s.get(XprtCounter.RECONNECTS)).isEqualTo(1);
    }
}
