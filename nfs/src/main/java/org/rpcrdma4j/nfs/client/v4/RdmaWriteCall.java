package org.rpcrdma4j.nfs.client.v4;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.dcache.oncrpc4j.rpc.RpcAuth;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.rpcrdma4j.nfs.client.RpcBadReplyException;
import org.rpcrdma4j.nfs.client.RpcCallException;
import org.rpcrdma4j.nfs.client.RpcConnectionException;
import org.rpcrdma4j.nfs.client.rdma.RdmaDataTransport;
import org.rpcrdma4j.nfs.v4.Nfs4;
import org.rpcrdma4j.registration.RegisteredBuffer;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.xprt.client.RdmaCall;
import org.rpcrdma4j.xprt.client.RdmaCallListener;
import org.rpcrdma4j.xprt.client.RdmaClientTransport;
import org.rpcrdma4j.xprt.internal.Xdrs;

/**
 * A COMPOUND ending with a WRITE, sent over RPC-over-RDMA with the WRITE's data as the call's Read chunk, straight
 * from the caller's registered memory (or one copy into the transport's, for other memory).
 * <p>
 * Why not {@link RdmaDataTransport#call}: given a {@link org.rpcrdma4j.nfs.xdr.DdpArgument}, it sends the message
 * without the data and lets the transport size the reply with the NFSv4 binding; the binding walks the reduced
 * arguments and, at the WRITE, tries to skip data that is not in the message, so the call fails to marshal. Here the
 * reply's size is given ({@link RdmaCall#maxReplySize}: SEQUENCE, PUTFH and WRITE results are small and bounded), so
 * the binding is not asked. Everything else is as {@code RdmaDataTransport} does it: same credential, timeout, reply
 * checks and error types; a call lost with its connection is sent again, same message, by the transport.
 */
final class RdmaWriteCall implements RdmaCallListener {
    /**
     * The largest reply of SEQUENCE, PUTFH, WRITE: RPC reply header with a verifier of up to 400 bytes (424), the
     * COMPOUND's status, tag (up to 32 bytes here) and count, SEQUENCE (44), PUTFH (8) and WRITE (24) results.
     */
    static final int MAX_REPLY = 1024;

    private final RdmaDataTransport transport;
    private final XdrAble result;
    private final CompletableFuture<XdrAble> future = new CompletableFuture<>();
    private final RdmaCall call = new RdmaCall();
    private final ByteBuf reply = Unpooled.buffer(MAX_REPLY);
    private RegisteredBuffer owned;

    private RdmaWriteCall(RdmaDataTransport transport, XdrAble result) {
        this.transport = transport;
        this.result = result;
    }

    /** Sends {@code args} (its WRITE last) on {@code transport}; the future completes with {@code result}. */
    static <T extends XdrAble> CompletableFuture<T> send(RdmaDataTransport transport, RpcAuth auth,
                                                         long timeoutMillis, CompoundArgs.WithData args, T result) {
        RdmaWriteCall c = new RdmaWriteCall(transport, result);
        try {
            c.start(auth, timeoutMillis, args);
        } catch (IOException | RuntimeException e) {
            c.release();
            c.future.completeExceptionally(e instanceof RpcCallException ? e
                    : new IllegalArgumentException("cannot send the COMPOUND: " + e.getMessage(), e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            c.release();
            c.future.completeExceptionally(new RpcConnectionException("interrupted while sending", e));
        }
        @SuppressWarnings("unchecked")
        CompletableFuture<T> f = (CompletableFuture<T>) c.future;
        return f;
    }

    private void start(RpcAuth auth, long timeoutMillis, CompoundArgs.WithData args)
            throws IOException, InterruptedException {
        RdmaClientTransport t = transport.transport();
        Xdr xdr = new Xdr(512);
        xdr.beginEncoding();
        xdr.xdrEncodeInt(t.nextXid());
        xdr.xdrEncodeInt(0); // CALL
        xdr.xdrEncodeInt(2); // RPC version 2
        xdr.xdrEncodeInt(Nfs4.PROGRAM);
        xdr.xdrEncodeInt(Nfs4.VERSION);
        xdr.xdrEncodeInt(Nfs4.PROC_COMPOUND);
        auth.xdrEncode(xdr);
        args.encodeBeforeItem(xdr);
        ByteBuf item = args.item();
        xdr.xdrEncodeInt(item.readableBytes());
        xdr.endEncoding();
        ByteBuf message = Unpooled.buffer(Xdrs.length(xdr));
        Xdrs.copyTo(xdr, message);
        call.message(message).reply(reply).timeout(timeoutMillis, TimeUnit.MILLISECONDS).maxReplySize(MAX_REPLY);
        int length = item.readableBytes();
        if (length > 0) {
            if (t.isRegisteredHere(item)) {
                call.payload((RegisteredBuffer) item, item.readerIndex(), length);
            } else {
                try {
                    owned = t.bufferPool().allocate(length);
                } catch (VerbsException e) {
                    throw new RpcConnectionException("no registered memory for " + length + " bytes: "
                            + e.getMessage(), e);
                }
                owned.setBytes(0, item, item.readerIndex(), length);
                call.payload(owned, 0, length);
            }
        }
        t.submit(call, this);
    }

    /** On the connection's thread: short, no calls. */
    @Override
    public void onComplete(RdmaCall done) {
        try {
            Throwable failure = call.failure();
            if (failure != null) {
                future.completeExceptionally(RdmaDataTransport.map(failure));
                return;
            }
            Xdr xdr = transport.acceptedReply(reply);
            result.xdrDecode(xdr);
            future.complete(result);
        } catch (RpcCallException e) {
            future.completeExceptionally(e);
        } catch (IOException | RuntimeException e) {
            future.completeExceptionally(new RpcBadReplyException("the reply from " + transport.remoteAddress()
                    + " does not decode: " + e.getMessage(), e));
        } finally {
            release();
        }
    }

    private void release() {
        if (owned != null) {
            owned.release();
            owned = null;
        }
    }
}
