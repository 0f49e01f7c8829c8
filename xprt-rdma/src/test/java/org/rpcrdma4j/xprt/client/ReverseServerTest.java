package org.rpcrdma4j.xprt.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.CompletionHandler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.ReplyQueue;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.dcache.oncrpc4j.xdr.XdrInt;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.registration.BufferPoolConfig;
import org.rpcrdma4j.registration.RegisteredBufferPool;
import org.rpcrdma4j.registration.WrIds;
import org.rpcrdma4j.verbs.ConnectionInfo;
import org.rpcrdma4j.verbs.PostException;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.QpState;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.QueuePairConfig;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.RecvWorkRequest;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.util.EnumCounters;
import org.rpcrdma4j.xprt.TestDevices;
import org.rpcrdma4j.xprt.internal.InlineSends;
import org.rpcrdma4j.xprt.internal.ProgramTable;

/**
 * The agent's side of the client's reverse direction, driven by hand on one thread: calls taken into slots and
 * answered by a program at once (a direct executor), then one round of {@link ReverseServer#drainReturned} on a queue
 * pair whose first Send post fails.
 */
class ReverseServerTest {
    private static final int PROGRAM = 0x4000_0101;
    /** A program that answers and keeps the call, to reply again later ({@link #kept}). */
    private static final int KEEPING = 0x4000_0102;
    private static final int GENERATION = 7;
    private static final int INLINE = 1024;
    /** Reply Sends carry work request indexes from here. */
    private static final int WR_BASE = 32;

    private final EnumCounters<ClientCounter> counters = new EnumCounters<>(ClientCounter.class);
    /** What each call's reply handler heard, by xid: "completed" or the failure. */
    private final Map<Integer, List<Object>> outcomes = new ConcurrentHashMap<>();
    private RdmaDevice device;
    private RegisteredBufferPool pool;
    private ReverseServer reverse;

    @BeforeEach
    void open() throws Exception {
        device = TestDevices.open(Map.of());
        ProtectionDomain pd = device.allocProtectionDomain();
        pool = RegisteredBufferPool.create(pd, new BufferPoolConfig(64 * 1024, 1, 1, Duration.ofSeconds(5)));
        InlineSends sends = InlineSends.allocate(pool, ReverseServer.SLOTS, INLINE);
        ProgramTable programs = new ProgramTable(Map.of(new OncRpcProgram(PROGRAM, 1), new Answering(),
                new OncRpcProgram(KEEPING, 1), new Keeping()), List.of());
        reverse = new ReverseServer(() -> { }, "reverse-server-test", programs, Runnable::run, sends, WR_BASE,
                INLINE, counters);
        reverse.forward(new Forward());
    }

    @AfterEach
    void close() {
        if (reverse != null) {
            reverse.release();
        }
        if (pool != null) {
            pool.close();
        }
        if (device != null) {
            device.close();
        }
    }

    /** Answers every call with one int, its handler recording what became of the reply. */
    private final class Answering implements RpcDispatchable {
        @Override
        public void dispatchOncRpcCall(RpcCall call) {
            int xid = call.getXid();
            List<Object> heard = outcomes.computeIfAbsent(xid, x -> new CopyOnWriteArrayList<>());
            call.registerSendOnceListener(new CompletionHandler<Integer, InetSocketAddress>() {
                @Override
                public void completed(Integer result, InetSocketAddress attachment) {
                    heard.add("completed");
                }

                @Override
                public void failed(Throwable exc, InetSocketAddress attachment) {
                    heard.add(exc);
                }
            });
            call.reply(new XdrInt(xid));
        }
    }

    /** The calls {@link Keeping} answered, to reply to again. */
    private final List<RpcCall> kept = new CopyOnWriteArrayList<>();

    /** Answers like {@link Answering}, and keeps the call. */
    private final class Keeping implements RpcDispatchable {
        @Override
        public void dispatchOncRpcCall(RpcCall call) {
            new Answering().dispatchOncRpcCall(call);
            kept.add(call);
        }
    }

    /** Takes the call {@code xid} into slot {@code index} and serves it, as onCall and the reverse executor do. */
    private ReverseSlot serve(int index, int xid) {
        ReverseSlot slot = take(index, xid, PROGRAM);
        slot.run();
        return slot;
    }

    /** Takes the call {@code xid} of {@code program} into slot {@code index}, as onCall does. */
    private ReverseSlot take(int index, int xid, int program) {
        ByteBuf call = nullCall(xid, program);
        ReverseSlot slot = reverse.slots().get(index);
        slot.take(call, 0, call.readableBytes(), GENERATION);
        return slot;
    }

    /**
     * oncrpc4j encodes a reply into the call's own stream. A program that replied again after its slot had taken the
     * next call wrote that reply over the next call's bytes, which the slot then read as a reply and dropped: the
     * next call went unanswered, and the server dropped the connection after its wait (seen in ReverseDirectionTest's
     * program that replies twice, when the second reply came late). The second reply is refused, as before, and the
     * next call is served.
     */
    @Test
    void aLateSecondReplyLeavesTheNextCallOfItsSlotWhole() throws Exception {
        ReverseSlot slot = take(0, 0x200, KEEPING);
        slot.run();
        assertThat(kept).hasSize(1);
        reverse.drainReturned(null, GENERATION, INLINE); // no connection: the slot is free again
        assertThat(slot.state).isEqualTo(ReverseSlot.FREE);

        take(0, 0x201, PROGRAM); // the slot's next call
        kept.get(0).reply(new XdrInt(0x5ec0d)); // the first call's program replies again
        slot.run();

        assertThat(outcomes).as("the next call was served").containsKey(0x201);
        assertThat(outcomes.get(0x200)).as("the first call's one reply, lost with the connection").singleElement()
                .isInstanceOf(IOException.class);
        reverse.drainReturned(null, GENERATION, INLINE);
        assertThat(outcomes.get(0x201)).singleElement().isInstanceOf(IOException.class); // no connection to send on
    }

    /**
     * A call the reverse executor refuses (full, or shut down) is answered SYSTEM_ERR at once: left unanswered, it kept
     * the server waiting out its callback's timeout, after which it drops the connection.
     */
    @Test
    void aCallTheReverseExecutorRefusesIsAnsweredSystemErr() throws Exception {
        ProgramTable programs = new ProgramTable(Map.of(new OncRpcProgram(PROGRAM, 1), new Answering()), List.of());
        ReverseServer refusing = new ReverseServer(() -> { }, "refusing", programs, r -> {
            throw new java.util.concurrent.RejectedExecutionException("the test's executor is full");
        }, InlineSends.allocate(pool, ReverseServer.SLOTS, INLINE), WR_BASE, INLINE, counters);
        try {
            ByteBuf call = nullCall(0x300, PROGRAM);
            refusing.onCall(new org.rpcrdma4j.codec.RpcRdmaHeader().xid(0x300).credits(1)
                    .proc(org.rpcrdma4j.codec.RpcRdmaProc.RDMA_MSG), call, 0, call.readableBytes(), GENERATION);
            FailingQp qp = new FailingQp();
            qp.failure = new PostException("not this time", 0, 0); // every post goes through

            refusing.drainReturned(qp, GENERATION, INLINE);

            assertThat(qp.posted).as("a reply went out").containsExactly(WR_BASE);
            ReverseSlot slot = refusing.slots().get(0);
            assertThat(slot.replyLength).isEqualTo(24);
            ByteBuf reply = Unpooled.wrappedBuffer(slot.reply, 0, slot.replyLength);
            assertThat(new int[] {reply.getInt(0), reply.getInt(4), reply.getInt(8), reply.getInt(20)})
                    .as("xid, REPLY, MSG_ACCEPTED, SYSTEM_ERR").containsExactly(0x300, 1, 0, 5);
            assertThat(counters.get(ClientCounter.REVERSE_CALLS_REFUSED)).isEqualTo(1);
        } finally {
            refusing.release();
        }
    }

    @Test
    void aFailedPostLeavesNoDrainedSlotBehind() {
        ReverseSlot failing = serve(0, 0x100);
        ReverseSlot second = serve(1, 0x101);
        ReverseSlot third = serve(2, 0x102);
        FailingQp qp = new FailingQp();

        assertThatThrownBy(() -> reverse.drainReturned(qp, GENERATION, INLINE)).isSameAs(qp.failure);

        // the slots after the failed post were not posted, and are free with their handlers told
        assertThat(qp.posted).containsExactly(WR_BASE + failing.index);
        for (ReverseSlot s : List.of(second, third)) {
            assertThat(s.state).as("slot %d", s.index).isEqualTo(ReverseSlot.FREE);
        }
        assertThat(outcomes.get(0x101)).singleElement().isInstanceOf(IOException.class);
        assertThat(outcomes.get(0x102)).singleElement().isInstanceOf(IOException.class);
        // the failed one waits for the connection's end: no completion comes for a Send never posted
        assertThat(failing.state).isEqualTo(ReverseSlot.SENDING);
        assertThat(outcomes.get(0x100)).isEmpty();

        reverse.connectionLost();
        assertThat(reverse.busy()).isZero();
        assertThat(outcomes.get(0x100)).singleElement().isInstanceOf(IOException.class);
        assertThat(outcomes.get(0x101)).hasSize(1);
        assertThat(outcomes.get(0x102)).hasSize(1);
        assertThat(counters.get(ClientCounter.REVERSE_REPLIES_LOST)).isEqualTo(3);
        assertThat(counters.get(ClientCounter.REVERSE_REPLIES_SENT)).isZero();
    }

    /** A NULL call of {@code program}, version 1, with AUTH_NONE. */
    private static ByteBuf nullCall(int xid, int program) {
        ByteBuf call = Unpooled.buffer();
        call.writeInt(xid).writeInt(0).writeInt(2).writeInt(program).writeInt(1).writeInt(0); // CALL, NULL
        call.writeInt(0).writeInt(0).writeInt(0).writeInt(0); // AUTH_NONE credential and verifier
        return call;
    }

    /** The forward direction the reverse calls see; oncrpc4j asks only for the peer's address (for its log lines). */
    private static final class Forward implements RpcTransport {
        @Override
        public <A> void send(Xdr xdr, A attachment, CompletionHandler<Integer, ? super A> handler) {
            throw new UnsupportedOperationException();
        }

        @Override
        public ReplyQueue getReplyQueue() {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean isOpen() {
            return true;
        }

        @Override
        public InetSocketAddress getLocalSocketAddress() {
            return new InetSocketAddress("127.0.0.1", 800);
        }

        @Override
        public InetSocketAddress getRemoteSocketAddress() {
            return new InetSocketAddress("127.0.0.1", 20049);
        }

        @Override
        public RpcTransport getPeerTransport() {
            throw new UnsupportedOperationException();
        }

        @Override
        public void startTLS() {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean isTLS() {
            return false;
        }
    }

    /** A queue pair whose first Send post fails; records the work request index of every Send it is given. */
    private static final class FailingQp implements QueuePair {
        final List<Integer> posted = new ArrayList<>();
        PostException failure;

        @Override
        public void postSend(SendWorkRequest chain) throws PostException {
            posted.add(WrIds.index(chain.wrId));
            if (failure == null) {
                failure = new PostException("send queue full", 0, chain.wrId);
                throw failure;
            }
        }

        @Override
        public void postRecv(RecvWorkRequest chain) {
            throw new UnsupportedOperationException();
        }

        @Override
        public int qpNum() {
            return 1;
        }

        @Override
        public QpState state() {
            return QpState.RTS;
        }

        @Override
        public ProtectionDomain protectionDomain() {
            throw new UnsupportedOperationException();
        }

        @Override
        public QueuePairConfig config() {
            throw new UnsupportedOperationException();
        }

        @Override
        public ConnectionInfo connectionInfo() {
            return null;
        }

        @Override
        public void disconnect() {
        }

        @Override
        public void close() {
        }
    }
}
