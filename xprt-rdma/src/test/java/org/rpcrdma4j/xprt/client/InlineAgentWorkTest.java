package org.rpcrdma4j.xprt.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.registration.RegisteredBuffer;
import org.rpcrdma4j.xprt.TestDevices;
import org.rpcrdma4j.xprt.XprtCounter;
import org.rpcrdma4j.xprt.client.fake.FakeRdmaServer;
import org.rpcrdma4j.xprt.client.fake.ReceivedCall;
import org.rpcrdma4j.xprt.client.fake.TestProgram;

/**
 * Callers posting their own Sends and completion listeners polling on the device's thread
 * ({@link RdmaClientConfig#inlineAgentWork()}): credits, the order of each caller's calls, results, invalidation,
 * and the connection's loss all hold as they do when the agent thread does everything.
 */
@Timeout(120)
class InlineAgentWorkTest extends ClientTestBase {
    private static final int GRANT = 4;
    private static final int THREADS = 4;
    private static final int CALLS_PER_THREAD = 100;

    @Override
    protected FakeRdmaServer.Options serverOptions() {
        FakeRdmaServer.Options o = new FakeRdmaServer.Options();
        o.grant = GRANT;
        return o;
    }

    /** Each thread submits its calls back to back (without waiting); returns the xids each thread used, in order. */
    private List<List<Integer>> runConcurrently(RdmaClientTransport t, Map<Integer, RdmaCall> calls,
                                                Map<Integer, RegisteredBuffer> sinks) throws Exception {
        CountDownLatch done = new CountDownLatch(THREADS * CALLS_PER_THREAD);
        List<List<Integer>> order = new ArrayList<>();
        Thread[] threads = new Thread[THREADS];
        Throwable[] failure = new Throwable[1];
        for (int i = 0; i < THREADS; i++) {
            List<Integer> mine = new ArrayList<>();
            order.add(mine);
            int thread = i;
            threads[i] = new Thread(() -> {
                try {
                    for (int k = 0; k < CALLS_PER_THREAD; k++) {
                        int xid = t.nextXid();
                        int count = 16 + (thread * CALLS_PER_THREAD + k) % 2000;
                        RegisteredBuffer sink = registered(t, count);
                        RdmaCall call = new RdmaCall().message(getCall(xid, count, xid)).sink(sink, 0, count)
                                .reply(Unpooled.buffer(128));
                        sinks.put(xid, sink);
                        calls.put(xid, call);
                        mine.add(xid);
                        t.submit(call, c -> done.countDown());
                    }
                } catch (Throwable e) {
                    failure[0] = e;
                }
            }, "caller-" + i);
        }
        for (Thread th : threads) {
            th.start();
        }
        for (Thread th : threads) {
            th.join();
        }
        assertThat(failure[0]).isNull();
        assertThat(done.await(60, TimeUnit.SECONDS)).as("every call completes").isTrue();
        return order;
    }

    private static void assertResults(Map<Integer, RdmaCall> calls, Map<Integer, RegisteredBuffer> sinks) {
        for (Map.Entry<Integer, RdmaCall> e : calls.entrySet()) {
            RdmaCall call = e.getValue();
            assertThat(call.failure()).as("call 0x%x", e.getKey()).isNull();
            int count = (int) call.placedBytes();
            assertThat(bytes(sinks.get(e.getKey()), 0, count)).isEqualTo(TestProgram.pattern(e.getKey(), count));
        }
    }

    @Test
    void callersSendTheirOwnCallsWithinTheGrantAndInTheirOrder() throws Exception {
        RdmaClientTransport t = connect();
        Map<Integer, RdmaCall> calls = new ConcurrentHashMap<>();
        Map<Integer, RegisteredBuffer> sinks = new ConcurrentHashMap<>();
        List<List<Integer>> order = runConcurrently(t, calls, sinks);
        assertResults(calls, sinks);

        RdmaClientStats s = t.stats();
        assertThat(s.get(ClientCounter.INLINE_SENDS)).as("calls sent by their callers").isPositive();
        assertThat(s.get(ClientCounter.INLINE_ROUNDS)).as("rounds done off the agent thread").isPositive();
        assertThat(s.get(XprtCounter.RECONNECTS)).isZero();
        assertThat(server.maxOutstanding()).as("never more than the grant minus the keep-alive reserve")
                .isLessThanOrEqualTo(GRANT - 1);
        // the server saw each caller's calls in the order that caller submitted them
        Map<Integer, Integer> arrival = new HashMap<>();
        List<ReceivedCall> seen = server.drainCalls();
        for (int i = 0; i < seen.size(); i++) {
            arrival.put(seen.get(i).xid(), i);
        }
        assertThat(arrival).hasSize(THREADS * CALLS_PER_THREAD);
        for (List<Integer> mine : order) {
            for (int k = 1; k < mine.size(); k++) {
                assertThat(arrival.get(mine.get(k))).as("call %d of a caller", k)
                        .isGreaterThan(arrival.get(mine.get(k - 1)));
            }
        }
    }

    @Test
    void withoutInlineWorkTheAgentThreadDoesEverything() throws Exception {
        RdmaClientTransport t = connect(b -> b.inlineAgentWork(false));
        Map<Integer, RdmaCall> calls = new ConcurrentHashMap<>();
        Map<Integer, RegisteredBuffer> sinks = new ConcurrentHashMap<>();
        runConcurrently(t, calls, sinks);
        assertResults(calls, sinks);
        assertThat(t.stats().get(ClientCounter.INLINE_SENDS)).isZero();
        assertThat(t.stats().get(ClientCounter.INLINE_ROUNDS)).isZero();
        assertThat(server.maxOutstanding()).isLessThanOrEqualTo(GRANT - 1);
    }

    @Test
    void listenersRunOffTheCallersThreadOnlyWhereAllowedAndMayNotSubmit() throws Exception {
        RdmaClientTransport t = connect();
        int n = 200;
        CountDownLatch done = new CountDownLatch(n);
        List<Throwable> refusals = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int i = 0; i < n; i++) {
            RdmaCall call = new RdmaCall().message(nullCall(t.nextXid())).reply(Unpooled.buffer(64));
            t.submit(call, c -> {
                // a listener runs where the transport finished the call: it may not make calls there
                try {
                    t.submit(new RdmaCall().message(nullCall(t.nextXid())).reply(Unpooled.buffer(64)), null);
                } catch (IllegalStateException e) {
                    refusals.add(e);
                }
                done.countDown();
            });
        }
        assertThat(done.await(60, TimeUnit.SECONDS)).isTrue();
        assertThat(refusals).hasSize(n);
    }

    @Test
    void connectionLostWhileCallersPostRecoversEveryCall() throws Exception {
        // here, not only on the dropping thread, where a skip would be lost and the test pass without a drop
        TestDevices.assumeSoft("a TCP reset under the connection: the software device's fault injection");
        RdmaClientTransport t = connect();
        Map<Integer, RdmaCall> calls = new ConcurrentHashMap<>();
        Map<Integer, RegisteredBuffer> sinks = new ConcurrentHashMap<>();
        Thread dropper = new Thread(() -> {
            try {
                for (int i = 0; i < 3; i++) {
                    Thread.sleep(20);
                    server.dropConnections();
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        dropper.start();
        runConcurrently(t, calls, sinks);
        dropper.join();
        assertResults(calls, sinks);
    }
}
