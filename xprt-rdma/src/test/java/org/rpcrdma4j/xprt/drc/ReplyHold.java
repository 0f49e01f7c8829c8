package org.rpcrdma4j.xprt.drc;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.CompletionHandler;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntPredicate;

import org.dcache.oncrpc4j.rpc.OncRpcException;
import org.dcache.oncrpc4j.rpc.ReplyQueue;
import org.dcache.oncrpc4j.rpc.RpcAuthException;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.xdr.Xdr;

/**
 * Makes "the server executed the call but the reply was lost" deterministic: the first call of a chosen procedure is
 * dispatched to the program with a transport that keeps the reply back (recording its bytes) until the test
 * {@linkplain #release() releases} it, by which time the test has dropped the client's connection, so the reply goes
 * nowhere. Placed in front of a cache ({@code new ReplyHold(drc.wrap(program), ...)}), the cache has seen and kept the
 * reply by the time it is held. Other calls pass through.
 */
public final class ReplyHold implements RpcDispatchable {
    private final RpcDispatchable program;
    private final IntPredicate procedures;
    private final AtomicBoolean armed = new AtomicBoolean(true);
    private final CountDownLatch held = new CountDownLatch(1);
    private volatile byte[] reply;
    private volatile Runnable release;

    public ReplyHold(RpcDispatchable program, IntPredicate procedures) {
        this.program = program;
        this.procedures = procedures;
    }

    @Override
    public void dispatchOncRpcCall(RpcCall call) throws OncRpcException, IOException {
        if (procedures.test(call.getProcedure()) && armed.compareAndSet(true, false)) {
            program.dispatchOncRpcCall(new RpcCall(call.getXid(), call.getProgram(), call.getProgramVersion(),
                    call.getProcedure(), call.getCredential(), call.getXdr(), new Holding(call.getTransport())));
        } else {
            program.dispatchOncRpcCall(call);
        }
    }

    /** Waits until the held call's reply was sent (and held); returns its bytes. */
    public byte[] awaitHeld() throws InterruptedException {
        if (!held.await(60, TimeUnit.SECONDS)) {
            throw new AssertionError("no reply was held");
        }
        return reply;
    }

    /** Sends the held reply through the call's own transport now (a connection lost meanwhile fails it). */
    public void release() {
        Runnable r = release;
        release = null;
        if (r != null) {
            r.run();
        }
    }

    private final class Holding implements RpcTransport {
        private final RpcTransport transport;

        Holding(RpcTransport transport) {
            this.transport = transport;
        }

        @Override
        public <A> void send(Xdr xdr, A attachment, CompletionHandler<Integer, ? super A> handler) {
            reply = Calls.bytes(xdr);
            release = () -> transport.send(xdr, attachment, handler);
            held.countDown();
        }

        @Override
        public ReplyQueue getReplyQueue() {
            return transport.getReplyQueue();
        }

        @Override
        public boolean isOpen() {
            return transport.isOpen();
        }

        @Override
        public InetSocketAddress getLocalSocketAddress() {
            return transport.getLocalSocketAddress();
        }

        @Override
        public InetSocketAddress getRemoteSocketAddress() {
            return transport.getRemoteSocketAddress();
        }

        @Override
        public RpcTransport getPeerTransport() {
            return transport.getPeerTransport();
        }

        @Override
        public void startTLS() throws RpcAuthException {
            transport.startTLS();
        }

        @Override
        public boolean isTLS() {
            return transport.isTLS();
        }
    }
}
