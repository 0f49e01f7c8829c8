package org.rpcrdma4j.xprt.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.rpcrdma4j.codec.RpcRdmaHeader;
import org.rpcrdma4j.codec.RpcRdmaProc;
import org.rpcrdma4j.verbs.Access;

/**
 * A well-behaved client running next to a hostile one: on its own connection it calls NULL, ECHO (inline) and ECHO
 * through a position-zero read chunk with a reply chunk, one call at a time, and checks every reply byte by byte.
 * Any difference, error or disconnect is kept and reported by {@link #stop()}.
 */
final class GoodClient implements AutoCloseable {
    private final RawClient client;
    private final Thread thread;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final AtomicInteger calls = new AtomicInteger();
    private volatile boolean running = true;

    GoodClient(InetSocketAddress server) throws Exception {
        client = RawClient.connect(server, true);
        thread = new Thread(this::run, "good-client");
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        try {
            RawClient.Chunk call = client.registered(64 << 10, Access.REMOTE_READ);
            RawClient.Chunk reply = client.registered(64 << 10, Access.REMOTE_WRITE | Access.LOCAL_WRITE);
            int xid = 0x6000_0000;
            while (running) {
                xid++;
                int kind = calls.get() % 3;
                if (kind == 0) {
                    client.send(RawClient.header().xid(xid).credits(8).proc(RpcRdmaProc.RDMA_MSG),
                            Rpc.echoCall(xid, EchoProgram.NULL, null));
                    RawClient.Received r = client.receive();
                    check(r, xid, Rpc.successHeader(xid));
                } else if (kind == 1) {
                    byte[] data = EchoProgram.pattern(3000, xid);
                    client.send(RawClient.header().xid(xid).credits(8).proc(RpcRdmaProc.RDMA_MSG),
                            Rpc.echoCall(xid, EchoProgram.ECHO, Rpc.opaque(data)));
                    RawClient.Received r = client.receive();
                    check(r, xid, Rpc.concat(Rpc.successHeader(xid), Rpc.opaque(data)));
                } else {
                    byte[] data = EchoProgram.pattern(40_000, xid);
                    ByteBuf message = Rpc.echoCall(xid, EchoProgram.ECHO, Rpc.opaque(data));
                    int length = message.readableBytes();
                    message.getBytes(0, call.memory.duplicate().limit(length));
                    message.release();
                    client.send(RawClient.header().xid(xid).credits(8).proc(RpcRdmaProc.RDMA_NOMSG)
                            .addReadSegment(0, call.stag, length, call.iova)
                            .beginReplyChunk().addReplySegment(reply.stag, 64 << 10, reply.iova), null);
                    RawClient.Received r = client.receive();
                    RpcRdmaHeader h = r.header();
                    assertThat(h.xid()).isEqualTo(xid);
                    assertThat(h.proc()).isEqualTo(RpcRdmaProc.RDMA_NOMSG);
                    ByteBuf expected = Rpc.concat(Rpc.successHeader(xid), Rpc.opaque(data));
                    assertThat(h.replyLength(0)).isEqualTo(expected.readableBytes());
                    assertThat(ByteBufUtil.hexDump(reply.bytes(0, expected.readableBytes())))
                            .isEqualTo(ByteBufUtil.hexDump(expected));
                    expected.release();
                    r.bytes().release();
                }
                calls.incrementAndGet();
            }
        } catch (Throwable t) {
            failure.compareAndSet(null, t);
        }
    }

    private static void check(RawClient.Received r, int xid, ByteBuf expected) throws Exception {
        RpcRdmaHeader h = r.header();
        assertThat(h.xid()).isEqualTo(xid);
        assertThat(h.proc()).isEqualTo(RpcRdmaProc.RDMA_MSG);
        Rpc.assertBytes(r.message(), expected);
        r.bytes().release();
    }

    /** Stops, checks that every call succeeded (and that some were made), and closes the client. */
    void stop() throws Exception {
        running = false;
        thread.join(RawClient.WAIT.toMillis());
        try {
            if (failure.get() != null) {
                throw new AssertionError("the well-behaved client saw an error", failure.get());
            }
            assertThat(thread.isAlive()).as("good client stopped").isFalse();
            assertThat(calls.get()).as("calls made by the well-behaved client").isPositive();
        } finally {
            client.close();
        }
    }

    /** Whether a call went wrong (the error is thrown by {@link #stop()}). */
    boolean failed() {
        return failure.get() != null;
    }

    /** Calls completed so far. */
    int calls() {
        return calls.get();
    }

    @Override
    public void close() throws Exception {
        stop();
    }
}
