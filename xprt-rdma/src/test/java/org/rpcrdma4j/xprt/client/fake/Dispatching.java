package org.rpcrdma4j.xprt.client.fake;

import java.net.InetSocketAddress;
import java.nio.channels.CompletionHandler;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.ReplyQueue;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.rpc.RpcException;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.rpcrdma4j.xprt.DataItem;
import org.rpcrdma4j.xprt.UpperLayerBinding;
import org.rpcrdma4j.xprt.internal.RpcHeader;
import org.rpcrdma4j.xprt.internal.Xdrs;

/**
 * A {@link FakeRdmaServer.Script} that runs unmodified oncrpc4j programs ({@link RpcDispatchable}s, e.g. the nfs
 * module's NFSv3 program): the rebuilt call goes to the program, its reply is captured, and the program's
 * {@link UpperLayerBinding} says which result (if any) goes into the call's Write chunk.
 */
public final class Dispatching implements FakeRdmaServer.Script {
    /** By program number and version ({@code program << 32 | version}). */
    private final Map<Long, RpcDispatchable> programs = new HashMap<>();
    private final Map<Integer, UpperLayerBinding> bindings = new HashMap<>();

    public Dispatching(Map<OncRpcProgram, RpcDispatchable> programs, UpperLayerBinding... bindings) {
        programs.forEach((p, d) -> this.programs.put(key(p.getNumber(), p.getVersion()), d));
        for (UpperLayerBinding b : bindings) {
            this.bindings.put(b.program(), b);
        }
    }

    @Override
    public Reply onCall(ReceivedCall received) throws Exception {
        // a copy: oncrpc4j encodes the reply into the call's own buffer
        Xdr xdr = new Xdr(received.call().clone());
        xdr.beginDecoding();
        int xid = xdr.xdrDecodeInt();
        xdr.xdrDecodeInt(); // CALL
        Capture capture = new Capture();
        RpcCall call = new RpcCall(xid, xdr, capture);
        try {
            call.accept();
            RpcDispatchable program = programs.get(key(call.getProgram(), call.getProgramVersion()));
            if (program == null) {
                call.failProgramUnavailable();
            } else {
                program.dispatchOncRpcCall(call);
            }
        } catch (RpcException e) {
            call.reject(e.getStatus(), e.getRpcReply());
        }
        byte[] reply = capture.reply.get(30, TimeUnit.SECONDS);
        ByteBuf in = Unpooled.wrappedBuffer(received.call());
        RpcHeader callHeader = new RpcHeader().parse(in, 0, received.call().length);
        UpperLayerBinding binding = bindings.get(callHeader.program());
        if (binding != null) {
            ByteBuf out = Unpooled.wrappedBuffer(reply);
            RpcHeader h = new RpcHeader().parse(out, 0, reply.length);
            if (h.isSuccessfulReply()) {
                DataItem item = new DataItem();
                ByteBuf results = out.duplicate().setIndex(h.bodyOffset(), reply.length);
                if (binding.locateReplyItem(callHeader.version(), callHeader.procedure(), results, item)) {
                    return Reply.of(reply, h.bodyOffset() + item.offset(), (int) item.length());
                }
            }
        }
        return Reply.of(reply, -1, 0);
    }

    private static long key(int program, int version) {
        return (long) program << 32 | (version & 0xFFFFFFFFL);
    }

    /** The per-call transport the program answers through: it keeps the reply's bytes. */
    private static final class Capture implements RpcTransport {
        final CompletableFuture<byte[]> reply = new CompletableFuture<>();
        private final InetSocketAddress local = new InetSocketAddress("127.0.0.1", 20049);
        private final InetSocketAddress remote = new InetSocketAddress("127.0.0.1", 1023);

        @Override
        public <A> void send(Xdr xdr, A attachment, CompletionHandler<Integer, ? super A> handler) {
            ByteBuf b = Unpooled.buffer(Xdrs.length(xdr));
            Xdrs.copyTo(xdr, b);
            byte[] bytes = new byte[b.readableBytes()];
            b.getBytes(0, bytes);
            reply.complete(bytes);
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
            return local;
        }

        @Override
        public InetSocketAddress getRemoteSocketAddress() {
            return remote;
        }

        @Override
        public RpcTransport getPeerTransport() {
            throw new UnsupportedOperationException("no reverse direction");
        }

        @Override
        public void startTLS() {
            throw new IllegalStateException("no TLS");
        }

        @Override
        public boolean isTLS() {
            return false;
        }
    }
}
