package org.rpcrdma4j.xprt.server;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.xdr.XdrInt;
import org.dcache.oncrpc4j.xdr.XdrOpaque;

/**
 * The two programs of the reverse-direction tests: {@link Server}, served by the RDMA server, calls the client back
 * through {@code getPeerTransport()} while it serves a forward call and puts the client's answer in its reply;
 * {@link Client}, registered as the client transport's reverse-direction program, answers those callbacks.
 */
final class CallbackPrograms {
    static final int SERVER_PROGRAM = 0x2000_0101;
    static final int CLIENT_PROGRAM = 0x4000_0101;
    static final int VERSION = 1;

    /** Server: ROUND_TRIP(opaque) calls back Client.TRANSFORM with it and answers "srv:" + the callback's result. */
    static final int ROUND_TRIP = 1;
    /** Server: LARGE(int size) calls back Client.TRANSFORM with {@code size} bytes. */
    static final int LARGE = 2;
    /** Server: SLOW_TRIP(opaque) as ROUND_TRIP, through Client.SLOW_TRANSFORM. */
    static final int SLOW_TRIP = 3;

    /** Client: TRANSFORM(opaque) answers the bytes reversed. */
    static final int TRANSFORM = 1;
    /** Client: SLOW_TRANSFORM(opaque) waits for {@link Client#release}, then answers as TRANSFORM. */
    static final int SLOW_TRANSFORM = 2;

    private CallbackPrograms() {
    }

    private static byte[] opaque(RpcCall call) throws IOException {
        XdrOpaque arg = new XdrOpaque();
        call.retrieveCall(arg);
        return arg.getOpaque();
    }

    static byte[] reversed(byte[] in) {
        byte[] out = new byte[in.length];
        for (int i = 0; i < in.length; i++) {
            out[i] = in[in.length - 1 - i];
        }
        return out;
    }

    /** What the server answers a ROUND_TRIP of {@code data} when the callback worked. */
    static byte[] expectedReply(byte[] data) {
        byte[] prefix = "srv:".getBytes(StandardCharsets.US_ASCII);
        byte[] r = reversed(data);
        byte[] out = new byte[prefix.length + r.length];
        System.arraycopy(prefix, 0, out, 0, prefix.length);
        System.arraycopy(r, 0, out, prefix.length, r.length);
        return out;
    }

    /** The server's program: each procedure makes one reverse-direction call with an unmodified RpcCall. */
    static final class Server implements RpcDispatchable {
        /** Failures of the callbacks, in order. */
        final ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        final AtomicInteger calls = new AtomicInteger();

        @Override
        public void dispatchOncRpcCall(RpcCall call) throws IOException {
            calls.incrementAndGet();
            byte[] data;
            int clientProcedure = TRANSFORM;
            switch (call.getProcedure()) {
                case ROUND_TRIP -> data = opaque(call);
                case SLOW_TRIP -> {
                    data = opaque(call);
                    clientProcedure = SLOW_TRANSFORM;
                }
                case LARGE -> {
                    XdrInt size = new XdrInt();
                    call.retrieveCall(size);
                    data = new byte[size.intValue()];
                }
                default -> {
                    call.failProcedureUnavailable();
                    return;
                }
            }
            RpcCall callback = new RpcCall(CLIENT_PROGRAM, VERSION, new RpcAuthTypeNone(),
                    call.getTransport().getPeerTransport());
            XdrOpaque result = new XdrOpaque();
            byte[] answer;
            try {
                callback.call(clientProcedure, new XdrOpaque(data), result, 60, TimeUnit.SECONDS);
                byte[] got = result.getOpaque();
                answer = new byte[4 + got.length];
                System.arraycopy("srv:".getBytes(StandardCharsets.US_ASCII), 0, answer, 0, 4);
                System.arraycopy(got, 0, answer, 4, got.length);
            } catch (Exception e) {
                failures.add(e);
                answer = ("failed:" + e.getClass().getSimpleName()).getBytes(StandardCharsets.US_ASCII);
            }
            call.reply(new XdrOpaque(answer));
        }
    }

    /** The client's reverse-direction program. */
    static final class Client implements RpcDispatchable {
        final AtomicInteger calls = new AtomicInteger();
        /** Counted down by SLOW_TRANSFORM when it starts waiting. */
        volatile CountDownLatch entered = new CountDownLatch(1);
        volatile CountDownLatch release = new CountDownLatch(1);

        @Override
        public void dispatchOncRpcCall(RpcCall call) throws IOException {
            calls.incrementAndGet();
            byte[] data = opaque(call);
            if (call.getProcedure() == SLOW_TRANSFORM) {
                entered.countDown();
                try {
                    if (!release.await(60, TimeUnit.SECONDS)) {
                        throw new IOException("never released");
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException(e);
                }
            } else if (call.getProcedure() != TRANSFORM) {
                call.failProcedureUnavailable();
                return;
            }
            call.reply(new XdrOpaque(reversed(data)));
        }
    }
}
