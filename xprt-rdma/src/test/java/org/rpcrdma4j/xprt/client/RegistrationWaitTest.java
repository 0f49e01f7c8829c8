package org.rpcrdma4j.xprt.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
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
import org.rpcrdma4j.xprt.client.fake.ReceivedCall;
import org.rpcrdma4j.xprt.client.fake.Reply;
import org.rpcrdma4j.xprt.client.fake.TestProgram;

/**
 * Calls that wait for registration handles: the handles are held by a call the server does not answer and by
 * registrations whose invalidation does not come, up to the pool's bound. A call waits no longer than its own
 * deadline and then fails with {@link RdmaCallTimeoutException}, giving back the handles it took; a close ends the
 * wait at once.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RegistrationWaitTest extends ClientTestBase {
    private static final long WAIT = TimeUnit.SECONDS.toNanos(30);
    private static final int CHUNK = 64 * 1024;

    @Test
    void aCallWaitingForRegistrationHandlesTimesOutAtItsOwnDeadlineAndGivesBackWhatItTook() throws Exception {
        RdmaClientTransport t = connect(b -> b.maxCredits(4));
        int slots = t.stats().freeSlots();
        RegistrationPool pool = t.registrationPool();
        t.call(new RdmaCall().message(nullCall(t.nextXid())).reply(Unpooled.buffer())); // the grant
        server.drainCalls();
        server.script(c -> Reply.none());
        RegisteredBuffer held = registered(t, CHUNK);
        RdmaCall unanswered = new RdmaCall().message(getCall(t.nextXid(), CHUNK, 3)).sink(held, 0, CHUNK)
                .reply(Unpooled.buffer(256)).timeout(60, TimeUnit.SECONDS);
        t.submit(unanswered, null);
        ReceivedCall seen = server.nextCall();
        List<Registration> stuck = holdAllButOne(t, pool);

        // a Write chunk (the one free handle) and a Read chunk (none left)
        RegisteredBuffer sink = registered(t, CHUNK);
        RegisteredBuffer payload = registered(t, TestProgram.pattern(7, CHUNK));
        RdmaCall call = new RdmaCall().message(putHead(t.nextXid(), 7, CHUNK)).payload(payload, 0, CHUNK)
                .sink(sink, 0, CHUNK).reply(Unpooled.buffer(256)).timeout(300, TimeUnit.MILLISECONDS);
        long waitsBefore = pool.registrationCounters().get(RegistrationCounter.POOL_WAITS);
        long start = System.nanoTime();
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> t.submit(call, null),
                "hang guard: the call waits for registration handles past its deadline");
        assertThat(call.awaitDone(WAIT)).as("the call ended").isTrue();
        long took = System.nanoTime() - start;

        assertThat(call.failure()).isInstanceOf(RdmaCallTimeoutException.class)
                .hasMessageContaining("timed out waiting for registration handles for a read chunk")
                .hasMessageContaining("needs 1, 0 of " + pool.maxHandles() + " free")
                .hasMessageContaining("RdmaClientConfig.Builder.maxCredits (4) sizes the pool ("
                        + pool.targetHandles() + " handles, " + pool.handlesPerRpc() + " per call)");
        assertThat(took).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(300));
        assertThat(pool.registrationCounters().get(RegistrationCounter.POOL_WAITS)).isEqualTo(waitsBefore + 1);
        assertThat(pool.freeHandles()).as("the Write chunk's handle came back").isEqualTo(1);
        assertThat(t.stats().get(XprtCounter.TIMEOUTS)).isEqualTo(1);
        assertThat(server.drainCalls()).as("the call never went out").isEmpty();

        for (Registration r : stuck) {
            assertThat(r.invalidate(null)).as("never posted: invalid at once").isTrue();
        }
        server.respondLater(seen, TestProgram.serve(seen));
        assertThat(unanswered.awaitDone(WAIT)).isTrue();
        assertThat(unanswered.failure()).isNull();
        assertThat(pool.freeHandles()).as("every handle is free again").isEqualTo(pool.allocatedHandles());
        assertThat(pool.inUseHandles()).isZero();
        server.script(TestProgram::serve);
        ByteBuf reply = Unpooled.buffer();
        t.call(new RdmaCall().message(nullCall(t.nextXid())).reply(reply));
        assertThat(t.stats().get(XprtCounter.RECONNECTS)).isZero();
        assertThat(t.stats().freeSlots()).isEqualTo(slots);
    }

    @Test
    void closeEndsACallThatWaitsForRegistrationHandlesAtOnce() throws Exception {
        // not tracked: the pages held below are still out when the pool closes, which the tracked check would count
        RdmaClientTransport t = RdmaClientTransport.connect(server.address(), config().maxCredits(4).build());
        RegistrationPool pool = t.registrationPool();
        List<Registration> stuck = holdAllButOne(t, pool);
        stuck.add(hold(t, pool)); // none free
        long waitsBefore = pool.registrationCounters().get(RegistrationCounter.POOL_WAITS);
        RegisteredBuffer sink = registered(t, CHUNK);
        RdmaCall call = new RdmaCall().message(getCall(t.nextXid(), CHUNK, 5)).sink(sink, 0, CHUNK)
                .reply(Unpooled.buffer(256)).timeout(600, TimeUnit.SECONDS);
        CompletableFuture<Void> submitted = CompletableFuture.runAsync(() -> t.submit(call, null));
        long until = System.nanoTime() + WAIT;
        while (pool.registrationCounters().get(RegistrationCounter.POOL_WAITS) == waitsBefore) {
            assertThat(System.nanoTime() - until).as("hang guard: the call waits for a handle").isNegative();
            Thread.sleep(1);
        }
        assertThat(submitted).as("the caller waits in registration").isNotDone();

        CompletableFuture<Void> closing = CompletableFuture.runAsync(t::close);

        assertThat(call.awaitDone(WAIT)).as("the call ended").isTrue();
        assertThat(call.failure()).isInstanceOf(RdmaConnectionException.class).hasMessageContaining("closed");
        submitted.get(30, TimeUnit.SECONDS);
        closing.get(30, TimeUnit.SECONDS);
        assertThat(pool.allocatedHandles()).as("closed with the pool").isZero();
    }

    /**
     * Takes registration handles as registrations that map and are never sent nor invalidated (one handle each),
     * until the pool has grown to its bound and one handle is left free.
     */
    private List<Registration> holdAllButOne(RdmaClientTransport t, RegistrationPool pool) throws Exception {
        List<Registration> stuck = new ArrayList<>();
        while (pool.allocatedHandles() < pool.maxHandles() || pool.freeHandles() > 0) {
            stuck.add(hold(t, pool));
        }
        Registration last = stuck.remove(stuck.size() - 1);
        assertThat(last.invalidate(null)).isTrue();
        assertThat(pool.freeHandles()).isEqualTo(1);
        return stuck;
    }

    private Registration hold(RdmaClientTransport t, RegistrationPool pool) throws Exception {
        RegisteredBuffer page = registered(t, 4096);
        Registration r = pool.newRegistration().begin(0x7000_0000 + pool.inUseHandles());
        r.map(new ScatterList(1).add(page, 0, 4096), ChunkRole.WRITE_CHUNK_SINK);
        return r;
    }
}
