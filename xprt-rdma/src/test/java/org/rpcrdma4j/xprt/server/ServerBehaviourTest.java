package org.rpcrdma4j.xprt.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.util.concurrent.atomic.AtomicInteger;

import javax.management.MBeanServer;
import javax.management.ObjectName;

import com.sun.management.ThreadMXBean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.codec.RpcRdmaProc;
import org.rpcrdma4j.verbs.conformance.AllocationWindows;
import org.rpcrdma4j.xprt.internal.UnsignaledRun;
import org.rpcrdma4j.xprt.TestDevices;

/** Threading, counters over JMX, and the allocation-free receive and reply path. */
@Timeout(120)
class ServerBehaviourTest extends ServerFixture {
    private static final AtomicInteger IDS = new AtomicInteger(0x9000);

    private static void nullCall(RawClient c, int xid) throws Exception {
        c.send(RawClient.header().xid(xid).credits(32).proc(RpcRdmaProc.RDMA_MSG),
                Rpc.echoCall(xid, EchoProgram.NULL, null));
    }

    @Test
    void aSlowCallStallsNeitherItsConnectionNorOthers() throws Exception {
        RawClient slow = client(false);
        RawClient other = client(false);
        int id = IDS.incrementAndGet();
        int started = program.slowStarted.get();
        slow.send(RawClient.header().xid(id).credits(32).proc(RpcRdmaProc.RDMA_MSG),
                Rpc.echoCall(id, EchoProgram.SLOW, Rpc.ints(id)));
        await("the slow call runs", () -> program.slowStarted.get() > started);
        // the same connection and another one are served while it runs
        for (int i = 0; i < 20; i++) {
            nullCall(slow, 0x100 + i);
            Rpc.assertBytes(slow.receive().message(), Rpc.successHeader(0x100 + i));
            nullCall(other, 0x200 + i);
            Rpc.assertBytes(other.receive().message(), Rpc.successHeader(0x200 + i));
        }
        assertThat(program.slowFinished.get()).as("the slow call is still running").isLessThan(
                program.slowStarted.get());
        program.release(id);
        RawClient.Received r = slow.receive();
        assertThat(r.header().xid()).isEqualTo(id);
        Rpc.assertBytes(r.message(), Rpc.successHeader(id));
    }

    @Test
    void repliesToOneConnectionMayComeOutOfOrder() throws Exception {
        RawClient c = client(false);
        int id = IDS.incrementAndGet();
        c.send(RawClient.header().xid(id).credits(32).proc(RpcRdmaProc.RDMA_MSG),
                Rpc.echoCall(id, EchoProgram.SLOW, Rpc.ints(id)));
        nullCall(c, 0x301);
        assertThat(c.receive().header().xid()).isEqualTo(0x301);
        program.release(id);
        assertThat(c.receive().header().xid()).isEqualTo(id);
    }

    @Test
    void countersPerConnectionServerWideAndOverJmx() throws Exception {
        RawClient c = client(false);
        long calls = counter(ServerCounter.CALLS);
        for (int i = 0; i < 5; i++) {
            nullCall(c, 0x400 + i);
            c.receive();
        }
        assertThat(counter(c, ServerCounter.CALLS)).isEqualTo(5);
        assertThat(counter(c, ServerCounter.REPLIES)).isEqualTo(5);
        assertThat(counter(c, ServerCounter.INLINE_REPLIES)).isEqualTo(5);
        assertThat(counter(ServerCounter.CALLS) - calls).isEqualTo(5);
        assertThat(counter(ServerCounter.CONNECTIONS_OPEN)).isEqualTo(1);

        MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();
        ObjectName name = ServerMBean.objectName(server.name());
        assertThat(jmx.isRegistered(name)).isTrue();
        assertThat((Long) jmx.getAttribute(name, "CALLS")).isEqualTo(counter(ServerCounter.CALLS));
        assertThat((Long) jmx.getAttribute(name, "INLINE_REPLIES")).isEqualTo(counter(ServerCounter.INLINE_REPLIES));
        assertThat((Integer) jmx.getAttribute(name, "ConnectionCount")).isEqualTo(1);
        assertThat(jmx.getMBeanInfo(name).getAttributes()).hasSize(ServerCounter.values().length + 2);
    }

    @Test
    void jmxBeanGoesAwayWithTheServer() throws Exception {
        RdmaRpcServer other = RdmaRpcServer.builder().name("jmx-check").provider(TestDevices.PROVIDER, TestDevices.options(java.util.Map.of()))
                .bindAddress(TestDevices.address()).port(0).build();
        ObjectName name = ServerMBean.objectName("jmx-check");
        MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();
        assertThat(jmx.isRegistered(name)).isFalse();
        other.start();
        assertThat(jmx.isRegistered(name)).isTrue();
        other.stop();
        assertThat(jmx.isRegistered(name)).isFalse();
    }

    /**
     * The agent's share of a call (receive, decode, copy out, dispatch hand-off, reply post, Send completion) and
     * the replying thread's marshaling of a small reply allocate nothing once warm: measured on the agent thread.
     */
    @Test
    void agentAllocatesNothingPerCallOnceWarm() throws Exception {
        RawClient c = client(false);
        for (int i = 0; i < 3000; i++) {
            nullCall(c, i);
            c.receive().bytes().release();
        }
        ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        long agent = -1;
        for (ThreadInfo info : threads.dumpAllThreads(false, false)) {
            if (info.getThreadName().equals(server.name() + "-agent-0")) {
                agent = info.getThreadId();
            }
        }
        assertThat(agent).isPositive();
        int calls = 2000;
        int[] xid = {5000};
        long agentId = agent;
        AllocationWindows.Result r = AllocationWindows.measure(10, 16L * calls,
                () -> threads.getThreadAllocatedBytes(agentId), () -> {
                    for (int i = 0; i < calls; i++) {
                        nullCall(c, xid[0]++);
                        c.receive().bytes().release();
                    }
                });
        assertThat(r.least() / calls).as("bytes the agent allocates per call (windows of %d calls: %s)", calls,
                r.windows()).isLessThan(16);
    }

    private static EchoProgram echoWithoutPlacement() {
        return new EchoProgram(p -> (call, length) -> {
            throw new UnsupportedOperationException();
        });
    }

    /** A started server of its own for {@code program}, whose stop waits up to 30 s for calls in flight. */
    private static RdmaRpcServer drainingServer(String name, EchoProgram program) throws Exception {
        RdmaRpcServer s = RdmaRpcServer.builder().name(name).provider(TestDevices.PROVIDER,
                        TestDevices.options(java.util.Map.of())).bindAddress(TestDevices.address()).port(0).jmx(false)
                .stopTimeout(java.time.Duration.ofSeconds(30))
                .program(new org.dcache.oncrpc4j.rpc.OncRpcProgram(EchoProgram.PROGRAM, EchoProgram.VERSION), program)
                .build();
        s.start();
        return s;
    }

    /** Sends a SLOW call {@code xid}, and once it runs, stops {@code server} on a thread of its own (returned). */
    private Thread stopWhileASlowCallRuns(RawClient c, int xid, EchoProgram own, RdmaRpcServer server)
            throws Exception {
        c.send(RawClient.header().xid(xid).credits(32).proc(RpcRdmaProc.RDMA_MSG),
                Rpc.echoCall(xid, EchoProgram.SLOW, Rpc.ints(xid)));
        await("the call runs", () -> own.slowStarted.get() == 1);
        Thread stopper = new Thread(server::stop, "stopper");
        stopper.start();
        return stopper;
    }

    @Test
    void stopAnswersCallsInFlightThenClosesEverything() throws Exception {
        EchoProgram own = echoWithoutPlacement();
        RdmaRpcServer stopping = drainingServer("drain-check", own);
        try (RawClient c = RawClient.connect(stopping.boundAddress(), false)) {
            Thread stopper = stopWhileASlowCallRuns(c, 0x501, own, stopping);
            // the listener goes first: new clients are refused while the call in flight still runs
            long deadline = System.nanoTime() + WAIT.toNanos();
            boolean refused = false;
            while (!refused && System.nanoTime() < deadline) {
                try {
                    RawClient.connect(stopping.boundAddress(), false).close();
                    Thread.sleep(10);
                } catch (Exception e) {
                    refused = true;
                }
            }
            assertThat(refused).as("new connections refused while stopping").isTrue();
            assertThat(stopper.isAlive()).as("stop waits for the call in flight").isTrue();
            own.release(0x501);
            RawClient.Received r = c.receive();
            Rpc.assertBytes(r.message(), Rpc.successHeader(0x501));
            assertThat(c.awaitDisconnected(WAIT)).as("then the connection is closed").isTrue();
            stopper.join(WAIT.toMillis());
            assertThat(stopper.isAlive()).isFalse();
        }
        assertThat(stopping.counters().get(ServerCounter.DROPPED_SERVER_STOP)).isEqualTo(1);
    }

    /**
     * The stop waits for the calls it found, not for the ones a client goes on sending: a call that arrives once the
     * stop has begun is left unanswered (the client sends it again on its next connection). It used to be served and
     * counted in flight, so a client that kept a call in flight at every moment held the stop up for its whole
     * timeout, and was served meanwhile by a server that was going away.
     */
    @Test
    void aCallThatArrivesOnceTheStopHasBegunIsLeftUnanswered() throws Exception {
        EchoProgram own = echoWithoutPlacement();
        RdmaRpcServer stopping = drainingServer("drain-new-calls", own);
        try (RawClient c = RawClient.connect(stopping.boundAddress(), false)) {
            Thread stopper = stopWhileASlowCallRuns(c, 0x701, own, stopping);
            await("the stop has begun", stopping::stopping);
            long dropped = stopping.counters().get(ServerCounter.MESSAGES_DROPPED);
            c.send(RawClient.header().xid(0x702).credits(32).proc(RpcRdmaProc.RDMA_MSG),
                    Rpc.echoCall(0x702, EchoProgram.NULL, null));
            await("the late call left unanswered",
                    () -> stopping.counters().get(ServerCounter.MESSAGES_DROPPED) == dropped + 1);
            own.release(0x701);
            RawClient.Received r = c.receive();
            assertThat(r.header().xid()).as("the one reply: the call in flight's").isEqualTo(0x701);
            Rpc.assertBytes(r.message(), Rpc.successHeader(0x701));
            assertThat(c.awaitDisconnected(WAIT)).as("then the connection is closed").isTrue();
            stopper.join(WAIT.toMillis());
            assertThat(stopper.isAlive()).isFalse();
        }
        assertThat(stopping.counters().get(ServerCounter.CALLS)).as("calls taken in").isEqualTo(1);
    }

    /**
     * A program that does not return within the stop timeout does not hold the stop up: the connection closes, the
     * call the program holds ends with it, and the program's late reply is not sent (its sender hears that it
     * failed) instead of being marshaled into memory the connection gave back.
     */
    @Test
    void aCallItsProgramStillHoldsWhenTheStopTimeoutEndsIsClosedAndItsLateReplyFailsUnsent() throws Exception {
        java.util.concurrent.CountDownLatch entered = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CompletableFuture<Throwable> sent = new java.util.concurrent.CompletableFuture<>();
        org.dcache.oncrpc4j.rpc.RpcDispatchable stuck = call -> {
            entered.countDown();
            try {
                go.await();
            } catch (InterruptedException e) {
                sent.completeExceptionally(e);
                return;
            }
            call.registerSendOnceListener(new java.nio.channels.CompletionHandler<Integer, java.net.InetSocketAddress>() {
                @Override
                public void completed(Integer bytes, java.net.InetSocketAddress to) {
                    sent.complete(null);
                }

                @Override
                public void failed(Throwable cause, java.net.InetSocketAddress to) {
                    sent.complete(cause);
                }
            });
            call.reply(org.dcache.oncrpc4j.xdr.XdrVoid.XDR_VOID);
        };
        RdmaRpcServer stopping = RdmaRpcServer.builder().name("stop-timeout").provider(TestDevices.PROVIDER,
                        TestDevices.options(java.util.Map.of())).bindAddress(TestDevices.address()).port(0).jmx(false)
                .stopTimeout(java.time.Duration.ofMillis(200))
                .program(new org.dcache.oncrpc4j.rpc.OncRpcProgram(EchoProgram.PROGRAM, EchoProgram.VERSION), stuck)
                .build();
        stopping.start();
        try (RawClient c = RawClient.connect(stopping.boundAddress(), false)) {
            c.send(RawClient.header().xid(0x601).credits(32).proc(RpcRdmaProc.RDMA_MSG),
                    Rpc.echoCall(0x601, EchoProgram.SLOW, Rpc.ints(0x601)));
            assertThat(entered.await(WAIT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)).isTrue();
            Thread stopper = new Thread(stopping::stop, "stopper");
            stopper.start();
            await("the connection released by the stop", () ->
                    stopping.counters().get(ServerCounter.CONNECTIONS_CLOSED) == 1);
            go.countDown(); // the program answers only now
            Throwable failure = sent.get(WAIT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
            assertThat(failure).as("the late reply was not sent").isInstanceOf(java.io.IOException.class)
                    .hasMessageContaining("closed");
            stopper.join(WAIT.toMillis());
            assertThat(stopper.isAlive()).isFalse();
        }
        assertThat(stopping.counters().get(ServerCounter.DROPPED_SERVER_STOP)).isEqualTo(1);
    }

    /**
     * A small reply goes inline and unsignaled, except every {@value UnsignaledRun#SIGNAL_EVERY}-th, whose
     * completion retires the ones before it; a larger reply is always signaled. The bytes arrive all the same, and the
     * connection still closes cleanly with unsignaled replies last on its send queue (checked after each test).
     */
    @Test
    void smallRepliesGoUnsignaledAndEverySixteenthIsSignaled() throws Exception {
        TestDevices.assumeSoft("small replies sent inline: the software device takes 256 bytes inline, the ffm "
                + "provider 64 by default");
        RawClient c = client(false);
        int n = 40;
        for (int i = 0; i < n; i++) {
            int xid = 0x800 + i;
            byte[] small = EchoProgram.pattern(100, i);
            c.send(RawClient.header().xid(xid).credits(32).proc(RpcRdmaProc.RDMA_MSG),
                    Rpc.echoCall(xid, EchoProgram.ECHO, Rpc.opaque(small)));
            Rpc.assertBytes(c.receive().message(), Rpc.concat(Rpc.successHeader(xid), Rpc.opaque(small)));
        }
        int signalEvery = UnsignaledRun.SIGNAL_EVERY;
        assertThat(counter(c, ServerCounter.UNSIGNALED_REPLIES)).isEqualTo(n - n / signalEvery);
        byte[] large = EchoProgram.pattern(UnsignaledRun.MAX_INLINE, 7);
        c.send(RawClient.header().xid(0x8ff).credits(32).proc(RpcRdmaProc.RDMA_MSG),
                Rpc.echoCall(0x8ff, EchoProgram.ECHO, Rpc.opaque(large)));
        Rpc.assertBytes(c.receive().message(), Rpc.concat(Rpc.successHeader(0x8ff), Rpc.opaque(large)));
        assertThat(counter(c, ServerCounter.UNSIGNALED_REPLIES)).as("a reply longer than the inline size")
                .isEqualTo(n - n / signalEvery);
        assertThat(counter(c, ServerCounter.REPLIES)).isEqualTo(n + 1);
    }

    /** Inline sizes come from RFC 8797 private data: the server sends at most what the client receives. */
    @Test
    void inlineThresholdFollowsTheClientsPrivateData() throws Exception {
        // the client receives at most 2 KiB: a 2000-byte echo no longer fits inline
        RawClient small = RawClient.connect(address, org.rpcrdma4j.codec.RpcRdmaPrivateData.of(false, 4096, 2048)
                .encode(), 16);
        try {
            byte[] fits = EchoProgram.pattern(1900, 1);
            small.send(RawClient.header().xid(0x601).credits(32).proc(RpcRdmaProc.RDMA_MSG),
                    Rpc.echoCall(0x601, EchoProgram.ECHO, Rpc.opaque(fits)));
            Rpc.assertBytes(small.receive().message(), Rpc.concat(Rpc.successHeader(0x601), Rpc.opaque(fits)));
            small.send(RawClient.header().xid(0x602).credits(32).proc(RpcRdmaProc.RDMA_MSG),
                    Rpc.echoCall(0x602, EchoProgram.READ_HEAP, Rpc.ints(2100, 1)));
            Rpc.assertBytes(small.receive().bytes(), Rpc.ints(0x602, 1, 128, 4, 2));
        } finally {
            small.close();
        }
        // no private data: version 1 defaults, 1024 bytes each way
        RawClient plain = RawClient.connect(address, new byte[0], 16);
        try {
            byte[] fits = EchoProgram.pattern(900, 2);
            plain.send(RawClient.header().xid(0x603).credits(32).proc(RpcRdmaProc.RDMA_MSG),
                    Rpc.echoCall(0x603, EchoProgram.ECHO, Rpc.opaque(fits)));
            Rpc.assertBytes(plain.receive().message(), Rpc.concat(Rpc.successHeader(0x603), Rpc.opaque(fits)));
            plain.send(RawClient.header().xid(0x604).credits(32).proc(RpcRdmaProc.RDMA_MSG),
                    Rpc.echoCall(0x604, EchoProgram.READ_HEAP, Rpc.ints(1000, 1)));
            Rpc.assertBytes(plain.receive().bytes(), Rpc.ints(0x604, 1, 128, 4, 2));
            // and the server's receive buffers hold 1024 bytes: a longer message breaks the connection
            plain.send(Rpc.concat(Rpc.ints(0x605, 1, 32, 0, 0, 0, 0), Rpc.echoCall(0x605, EchoProgram.ECHO,
                    Rpc.opaque(new byte[1100]))));
            assertThat(plain.awaitDisconnected(WAIT)).isTrue();
        } finally {
            plain.close();
        }
    }

    /** The server's answer to the client's connection request: RFC 8797 private data, flags 0, 4 KiB each way. */
    @Test
    void serverPrivateData() throws Exception {
        RawClient c = client(true);
        byte[] expected = {(byte) 0xF6, (byte) 0xAB, 0x0E, 0x18, 1, 0, 7, 7}; // 8192 / 8192
        byte[] got = c.info.privateData();
        if (TestDevices.iwarp(server.device())) {
            assertThat(got).containsExactly(expected);
        } else {
            // InfiniBand's and RoCE's connection manager hands over its message's whole private-data space
            assertThat(java.util.Arrays.copyOf(got, expected.length)).containsExactly(expected);
            assertThat(java.util.Arrays.copyOfRange(got, expected.length, got.length)).containsOnly(0);
        }
        assertThat(c.info.ord()).as("the client offers no RDMA READ target to the server... ").isZero();
        assertThat(c.info.ird()).as("...but serves the server's READs").isEqualTo(16);
    }

    /**
     * A connection counts once against the limit, from its request until it is released: a client that connects while
     * the server's acceptance of the one before has not returned yet (it is established all the same) finds its place.
     */
    @Test
    void aConnectionBeingAcceptedCountsOnceAgainstTheLimit() throws Exception {
        FaultyServerDevice device = new FaultyServerDevice(TestDevices.open(java.util.Map.of("name", "limit-check",
                "engineThreads", "1")));
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        device.holdAccepts(release);
        RdmaRpcServer limited = RdmaRpcServer.builder().name("limit-count").device(device)
                .bindAddress(TestDevices.address()).port(0).jmx(false).maxConnections(2)
                .program(new org.dcache.oncrpc4j.rpc.OncRpcProgram(EchoProgram.PROGRAM, EchoProgram.VERSION), program)
                .build();
        limited.start();
        try {
            try (RawClient a = RawClient.connect(limited.boundAddress(), false);
                 RawClient b = RawClient.connect(limited.boundAddress(), false)) {
                for (RawClient c : new RawClient[] {a, b}) {
                    c.send(RawClient.header().xid(0x801).credits(32).proc(RpcRdmaProc.RDMA_MSG),
                            Rpc.echoCall(0x801, EchoProgram.NULL, null));
                    Rpc.assertBytes(c.receive().message(), Rpc.successHeader(0x801));
                }
                release.countDown();
                org.assertj.core.api.Assertions.assertThatThrownBy(() -> RawClient.connect(limited.boundAddress(),
                        false).close()).as("a third, beyond the limit")
                        .hasRootCauseInstanceOf(org.rpcrdma4j.verbs.ConnectException.class);
            } finally {
                release.countDown();
            }
            // counted by the accepting thread once it handed the accept to the device, which may already have
            // served the client's call by then
            await("both accepts counted", () -> limited.counters().get(ServerCounter.CONNECTIONS_ACCEPTED) >= 2);
            assertThat(limited.counters().get(ServerCounter.CONNECTIONS_ACCEPTED)).isEqualTo(2);
            assertThat(limited.counters().get(ServerCounter.CONNECTIONS_REJECTED)).isEqualTo(1);
        } finally {
            limited.stop();
            device.close();
        }
    }

    /** Connection requests beyond the limit, and from clients that offer no RDMA READ, are refused. */
    @Test
    void connectionsBeyondTheLimitOrWithoutReadAreRefused() throws Exception {
        RdmaRpcServer limited = RdmaRpcServer.builder().name("limit-check").provider(TestDevices.PROVIDER, TestDevices.options(java.util.Map.of()))
                .bindAddress(TestDevices.address()).port(0).jmx(false).maxConnections(1)
                .program(new org.dcache.oncrpc4j.rpc.OncRpcProgram(EchoProgram.PROGRAM, EchoProgram.VERSION), program)
                .build();
        limited.start();
        try {
            byte[] pdata = org.rpcrdma4j.codec.RpcRdmaPrivateData.of(false, 4096, 4096).encode();
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> RawClient.connect(limited.boundAddress(),
                    pdata, 0).close()).hasRootCauseInstanceOf(org.rpcrdma4j.verbs.ConnectException.class);
            try (RawClient first = RawClient.connect(limited.boundAddress(), false)) {
                org.assertj.core.api.Assertions.assertThatThrownBy(() -> RawClient.connect(limited.boundAddress(),
                        false).close()).hasRootCauseInstanceOf(org.rpcrdma4j.verbs.ConnectException.class);
                first.send(RawClient.header().xid(0x701).credits(32).proc(RpcRdmaProc.RDMA_MSG),
                        Rpc.echoCall(0x701, EchoProgram.NULL, null));
                Rpc.assertBytes(first.receive().message(), Rpc.successHeader(0x701));
            }
            assertThat(limited.counters().get(ServerCounter.CONNECTIONS_REJECTED)).isEqualTo(2);
            assertThat(limited.counters().get(ServerCounter.CONNECTIONS_ACCEPTED)).isEqualTo(1);
        } finally {
            limited.stop();
        }
    }
}
