package org.rpcrdma4j.xprt.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.CompletionHandler;
import java.util.ArrayList;
import java.util.List;

import org.dcache.oncrpc4j.rpc.ReplyQueue;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.dcache.oncrpc4j.xdr.XdrVoid;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.xprt.drc.Calls;

/**
 * A program that throws gets SYSTEM_ERR, as oncrpc4j answers it, unless it replied before it threw: then, on a
 * transport that is reused for the next call ({@link OneReply}), no second reply is encoded (it would be written over
 * the call's bytes, by then perhaps another call's).
 */
class RpcDispatchTest {
    private static final int PROGRAM = 0x2000_1234;
    private static final int SYSTEM_ERR = 5;

    /** A transport that carries one call and records the replies sent through it. */
    private static final class Slot implements RpcTransport, OneReply {
        final List<byte[]> sent = new ArrayList<>();
        final int xid;

        Slot(int xid) {
            this.xid = xid;
        }

        @Override
        public boolean awaitsReply(int x) {
            return x == xid && sent.isEmpty();
        }

        @Override
        public <A> void send(Xdr xdr, A attachment, CompletionHandler<Integer, ? super A> handler) {
            byte[] bytes = Calls.bytes(xdr);
            sent.add(bytes);
            handler.completed(bytes.length, attachment);
        }

        @Override
        public ReplyQueue getReplyQueue() {
            return null;
        }

        @Override
        public boolean isOpen() {
            return true;
        }

        @Override
        public InetSocketAddress getLocalSocketAddress() {
            return new InetSocketAddress("127.0.0.1", 2049);
        }

        @Override
        public InetSocketAddress getRemoteSocketAddress() {
            return new InetSocketAddress("127.0.0.1", 800);
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

    private static List<byte[]> dispatch(RpcDispatchable program, int xid) {
        byte[] message = Calls.call(xid, PROGRAM, 1, 1, Calls.none(), XdrVoid.XDR_VOID);
        Slot slot = new Slot(xid);
        Xdr xdr = Xdrs.over(ByteBuffer.wrap(message));
        RpcDispatch.dispatch(new ProgramTable.Entry(PROGRAM, 1, program, null), xdr, slot, "test");
        return slot.sent;
    }

    private static int acceptStat(byte[] reply) {
        return ByteBuffer.wrap(reply).getInt(Calls.REPLY_HEADER - 4);
    }

    @Test
    void aProgramThatThrowsBeforeReplyingGetsSystemErr() {
        List<byte[]> sent = dispatch(call -> {
            throw new IllegalStateException("a bug");
        }, 41);
        assertThat(sent).hasSize(1);
        assertThat(acceptStat(sent.get(0))).isEqualTo(SYSTEM_ERR);
    }

    @Test
    void aProgramThatThrowsAfterReplyingGetsNoSecondReply() {
        List<byte[]> sent = dispatch(call -> {
            call.reply(XdrVoid.XDR_VOID);
            throw new IllegalStateException("a bug after the reply");
        }, 42);
        assertThat(sent).as("the program's own reply only").hasSize(1);
        assertThat(acceptStat(sent.get(0))).as("SUCCESS").isZero();
    }
}
