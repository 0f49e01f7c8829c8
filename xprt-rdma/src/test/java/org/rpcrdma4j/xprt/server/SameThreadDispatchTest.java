package org.rpcrdma4j.xprt.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

import org.dcache.oncrpc4j.rpc.OncRpcAcceptedException;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.xdr.XdrOpaque;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.xprt.client.RdmaClientConfig;
import org.rpcrdma4j.xprt.client.RdmaClientTransport;
import org.rpcrdma4j.xprt.TestDevices;

/**
 * {@code sameThreadDispatch}: a call runs on the thread that took it off the connection, never on a dispatch pool's,
 * its reply is what the program wrote, and a program that throws gets its caller an error while the connection goes
 * on. The suites that run in this mode as well are the {@code *SameThreadTest} classes.
 */
@Timeout(60)
class SameThreadDispatchTest extends ServerFixture {
    private static final int PROGRAM = 0x20000077;
    private static final int WHERE = 1;
    private static final int THROWS = 2;

    private final Queue<String> threads = new ConcurrentLinkedQueue<>();

    @Override
    void configure(RdmaRpcServer.Builder builder) {
        builder.sameThreadDispatch(true).program(new OncRpcProgram(PROGRAM, 1), new ThreadProgram());
    }

    @Test
    void callsRunOnTheConnectionsThreadsAndTheirRepliesArrive() throws Exception {
        TestDevices.assumeSoft("the software device's engine threads, by name");
        threads.clear();
        try (RdmaClientTransport rdma = connect()) {
            for (int i = 0; i < 200; i++) {
                byte[] sent = ("call " + i).getBytes(StandardCharsets.US_ASCII);
                XdrOpaque result = new XdrOpaque();
                new RpcCall(PROGRAM, 1, new RpcAuthTypeNone(), rdma).call(WHERE, new XdrOpaque(sent), result, 30,
                        TimeUnit.SECONDS);
                assertThat(new String(result.getOpaque(), StandardCharsets.US_ASCII)).isEqualTo("call " + i);
            }
        }
        assertThat(threads).hasSize(200);
        // no dispatch pool exists: every call ran on the agent thread or the device thread that polled it
        assertThat(threads).allSatisfy(name -> assertThat(name).doesNotContain("-dispatch")
                .satisfiesAnyOf(n -> assertThat(n).contains("-agent-"), n -> assertThat(n).startsWith("test-server-engine-")));
        assertThat(counter(ServerCounter.DISPATCH_QUEUE_DEPTH)).isZero();
    }

    @Test
    void aProgramThatThrowsFailsItsCallAndTheConnectionGoesOn() throws Exception {
        try (RdmaClientTransport rdma = connect()) {
            RpcCall call = new RpcCall(PROGRAM, 1, new RpcAuthTypeNone(), rdma);
            assertThatThrownBy(() -> call.call(THROWS, new XdrOpaque(new byte[4]), new XdrOpaque(), 30,
                    TimeUnit.SECONDS)).isInstanceOf(OncRpcAcceptedException.class).hasMessageContaining("SYSTEM");
            XdrOpaque result = new XdrOpaque();
            call.call(WHERE, new XdrOpaque("after".getBytes(StandardCharsets.US_ASCII)), result, 30,
                    TimeUnit.SECONDS);
            assertThat(result.getOpaque()).isEqualTo("after".getBytes(StandardCharsets.US_ASCII));
        }
    }

    @Test
    void aDispatchExecutorAndSameThreadDispatchExcludeEachOther() {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            assertThatThrownBy(() -> RdmaRpcServer.builder().sameThreadDispatch(true).dispatchExecutor(pool).build())
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("sameThreadDispatch");
        } finally {
            pool.shutdown();
        }
    }

    private RdmaClientTransport connect() throws Exception {
        return RdmaClientTransport.connect(address, RdmaClientConfig.builder()
                .provider(TestDevices.PROVIDER, TestDevices.options(Map.of("name", "same-thread-client", "engineThreads", "1")))
                .jmx(false).build());
    }

    private final class ThreadProgram implements RpcDispatchable {
        @Override
        public void dispatchOncRpcCall(RpcCall call) throws java.io.IOException {
            XdrOpaque args = new XdrOpaque();
            call.retrieveCall(args);
            if (call.getProcedure() == THROWS) {
                throw new IllegalStateException("a program's bug");
            }
            threads.add(Thread.currentThread().getName());
            call.reply(new XdrOpaque(args.getOpaque()));
        }
    }
}
