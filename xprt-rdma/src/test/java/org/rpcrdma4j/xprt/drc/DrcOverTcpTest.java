package org.rpcrdma4j.xprt.drc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rpcrdma4j.xprt.drc.Calls.intAt;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.OncRpcSvc;
import org.dcache.oncrpc4j.rpc.OncRpcSvcBuilder;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.rpc.net.IpProtocolType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The cache in front of a program served by oncrpc4j's own TCP service ({@code OncRpcSvc}), with a client that sends
 * the same call bytes on a new connection after losing the first one: the bytes that arrive are the original reply's.
 */
@Timeout(120)
class DrcOverTcpTest {
    private static final AtomicInteger SERVICES = new AtomicInteger();
    private static final int XID = 0x0BAD_F00D;

    private final LedgerProgram ledger = new LedgerProgram();
    private final DuplicateRequestCache drc = DuplicateRequestCache.create(CachedProcedures.of(LedgerProgram.PROGRAM,
            LedgerProgram.VERSION, LedgerProgram.APPEND, LedgerProgram.SLOW_APPEND), DrcConfig.DEFAULT);
    private OncRpcSvc svc;
    private InetSocketAddress address;

    private void serve(RpcDispatchable program) throws IOException {
        svc = new OncRpcSvcBuilder().withTCP().withPort(0).withBindAddress("127.0.0.1").withoutAutoPublish()
                .withWorkerThreadIoStrategy().withWorkerThreadPoolSize(4).withSelectorThreadPoolSize(1)
                .withServiceName("drc-tcp-" + SERVICES.incrementAndGet())
                .withRpcService(new OncRpcProgram(LedgerProgram.PROGRAM, LedgerProgram.VERSION), program).build();
        svc.start();
        address = new InetSocketAddress("127.0.0.1", svc.getInetSocketAddress(IpProtocolType.TCP).getPort());
    }

    @AfterEach
    void stop() throws IOException {
        ledger.openGate();
        if (svc != null) {
            svc.stop();
        }
    }

    private static byte[] call(int procedure, String name) {
        return Calls.call(XID, LedgerProgram.PROGRAM, LedgerProgram.VERSION, procedure, Calls.unix(1000),
                LedgerProgram.name(name));
    }

    /** The client sends APPEND, the server executes it, the connection is lost, the client sends it again. */
    private byte[][] lostReplyThenRetransmission(ReplyHold hold) throws Exception {
        serve(hold);
        byte[] append = call(LedgerProgram.APPEND, "a");
        byte[] held;
        InetSocketAddress firstPort;
        try (RpcTcpClient first = RpcTcpClient.connect(address)) {
            first.send(append);
            held = hold.awaitHeld();
            firstPort = first.localAddress();
            first.reset();
        }
        hold.release(); // into the closed connection
        try (RpcTcpClient second = RpcTcpClient.connect(address)) {
            assertThat(second.localAddress().getPort()).isNotEqualTo(firstPort.getPort());
            return new byte[][] {held, second.call(append)};
        }
    }

    @Test
    void aClientThatLostTheReplyGetsTheOriginalReplyOnItsNewConnection() throws Exception {
        byte[][] replies = lostReplyThenRetransmission(new ReplyHold(drc.wrap(ledger),
                p -> p == LedgerProgram.APPEND));
        assertThat(intAt(replies[0], 24)).as("count in the lost reply").isEqualTo(1);
        assertThat(replies[1]).isEqualTo(replies[0]);
        assertThat(ledger.count("a")).isEqualTo(1);
        assertThat(ledger.executions()).isEqualTo(1);
        assertThat(drc.counter(DrcCounter.HITS)).isEqualTo(1);
        assertThat(drc.counter(DrcCounter.MISSES)).isEqualTo(1);
    }

    @Test
    void withoutTheCacheTheRetransmissionRunsAgain() throws Exception {
        byte[][] replies = lostReplyThenRetransmission(new ReplyHold(ledger, p -> p == LedgerProgram.APPEND));
        assertThat(intAt(replies[1], 24)).isEqualTo(2);
        assertThat(ledger.count("a")).isEqualTo(2);
    }

    @Test
    void aRetransmissionOnAnotherConnectionWhileTheCallExecutesIsAnsweredWithItsReplyAndRunsNothing()
            throws Exception {
        serve(drc.wrap(ledger));
        CountDownLatch entered = ledger.closeGate();
        byte[] slow = call(LedgerProgram.SLOW_APPEND, "s");
        try (RpcTcpClient first = RpcTcpClient.connect(address);
             RpcTcpClient second = RpcTcpClient.connect(address)) {
            first.send(slow);
            assertThat(entered.await(30, TimeUnit.SECONDS)).isTrue();
            second.send(slow);
            awaitCounter(() -> drc.counter(DrcCounter.IN_PROGRESS_WAITS), 1);
            ledger.openGate();
            byte[] original = first.receive();
            assertThat(intAt(original, 24)).isEqualTo(1);
            assertThat(second.receive()).isEqualTo(original);
        }
        assertThat(ledger.executions()).isEqualTo(1);
        assertThat(ledger.count("s")).isEqualTo(1);
    }

    static void awaitCounter(LongSupplier counter, long value) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (counter.getAsLong() != value) {
            assertThat(System.nanoTime() - deadline).as("counter reaches " + value).isNegative();
            Thread.sleep(2);
        }
    }
}
