package org.rpcrdma4j.xprt.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.channels.CompletionHandler;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.dcache.oncrpc4j.xdr.XdrVoid;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.verbs.soft.SoftIwarpFaults;
import org.rpcrdma4j.xprt.TestDevices;
import org.rpcrdma4j.xprt.client.RdmaClientConfig;
import org.rpcrdma4j.xprt.client.RdmaClientTransport;

/**
 * A reverse-direction call whose Send has not completed when its connection closes: the send handler the program gave
 * hears of the close. The server's queue pair holds its transmissions back, so the Send is pending when the close
 * begins. Its handler used to be forgotten with the connection (its flush, once the queue pair went down, is not
 * looked at any more). The client sends the forward call again on its next connection, whose callback is sent then.
 */
@Timeout(120)
class ReverseCallSendPendingTest extends ServerFixture {
    private static final int PROGRAM = 0x2000_0102;
    /** What became of each reverse call's Send, by the client's address: "sent", or the failure. */
    private final BlockingQueue<Map.Entry<java.net.InetSocketAddress, Object>> sends = new LinkedBlockingQueue<>();

    @Override
    void configure(RdmaRpcServer.Builder builder) {
        builder.program(new OncRpcProgram(PROGRAM, 1), new CallingBack());
    }

    /** Sends the client a SLOW_TRANSFORM call through the peer transport, with a send handler of its own. */
    private final class CallingBack implements RpcDispatchable {
        @Override
        public void dispatchOncRpcCall(RpcCall call) throws java.io.IOException {
            call.retrieveCall(XdrVoid.XDR_VOID);
            if (call.getProcedure() == 0) {
                call.reply(XdrVoid.XDR_VOID);
                return;
            }
            ByteBuffer b = ByteBuffer.allocate(48);
            b.putInt(0x5e1d).putInt(0).putInt(2).putInt(CallbackPrograms.CLIENT_PROGRAM)
                    .putInt(CallbackPrograms.VERSION).putInt(CallbackPrograms.SLOW_TRANSFORM)
                    .putInt(0).putInt(0).putInt(0).putInt(0) // AUTH_NONE credential and verifier
                    .putInt(4).putInt(0x61626364); // opaque "abcd"
            java.net.InetSocketAddress client = call.getTransport().getRemoteSocketAddress();
            call.getTransport().getPeerTransport().send(new Xdr(b.array()), null,
                    new CompletionHandler<Integer, Object>() {
                        @Override
                        public void completed(Integer result, Object attachment) {
                            sends.add(Map.entry(client, "sent"));
                        }

                        @Override
                        public void failed(Throwable exc, Object attachment) {
                            sends.add(Map.entry(client, exc));
                        }
                    });
            call.reply(XdrVoid.XDR_VOID);
        }
    }

    @Test
    void aReverseCallWhoseSendIsPendingAtTheCloseHearsOfIt() throws Exception {
        CallbackPrograms.Client client = new CallbackPrograms.Client();
        TestDevices.assumeSoft("held transmissions: the software device's fault injection");
        RdmaClientTransport t = RdmaClientTransport.connect(address, RdmaClientConfig.builder()
                .provider(TestDevices.PROVIDER, TestDevices.options(Map.of("name", "pending-client",
                        "engineThreads", "1")))
                .reverseProgram(new OncRpcProgram(CallbackPrograms.CLIENT_PROGRAM, CallbackPrograms.VERSION), client)
                .jmx(false).build());
        try {
            new RpcCall(PROGRAM, 1, new RpcAuthTypeNone(), t).call(0, XdrVoid.XDR_VOID, XdrVoid.XDR_VOID, 30,
                    TimeUnit.SECONDS); // NULL: the connection is up, with its reverse direction
            java.net.InetSocketAddress first = t.getLocalSocketAddress();
            Connection connection = server.connectionTo(first);
            long sent = counter(ServerCounter.REVERSE_CALLS_SENT);
            SoftIwarpFaults.of(connection.queuePair()).delayTransmit(Duration.ofSeconds(60));
            new RpcCall(PROGRAM, 1, new RpcAuthTypeNone(), t).call(1, XdrVoid.XDR_VOID, XdrVoid.class);
            await("the reverse call posted", () -> counter(ServerCounter.REVERSE_CALLS_SENT) > sent);
            assertThat(sends.poll(200, TimeUnit.MILLISECONDS)).as("its Send is held back").isNull();

            connection.requestClose(ServerCounter.DROPPED_SERVER_STOP);

            Object outcome = null;
            long until = System.nanoTime() + WAIT.toNanos();
            while (outcome == null && System.nanoTime() - until < 0) {
                Map.Entry<java.net.InetSocketAddress, Object> heard = sends.poll(10, TimeUnit.MILLISECONDS);
                if (heard != null && heard.getKey().equals(first)) {
                    outcome = heard.getValue();
                }
            }
            assertThat(outcome).as("the first connection's callback heard of its close")
                    .isInstanceOf(java.io.EOFException.class);
        } finally {
            client.release.countDown();
            t.close();
        }
    }
}
