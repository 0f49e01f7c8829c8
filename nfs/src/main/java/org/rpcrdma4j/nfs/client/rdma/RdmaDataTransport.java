package org.rpcrdma4j.nfs.client.rdma;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.RpcAuth;
import org.dcache.oncrpc4j.rpc.RpcReply;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.rpcrdma4j.nfs.binding.NfsBinding;
import org.rpcrdma4j.nfs.client.AcceptStatus;
import org.rpcrdma4j.nfs.client.CallbackFuture;
import org.rpcrdma4j.nfs.client.ReplySpin;
import org.rpcrdma4j.nfs.client.DataTransport;
import org.rpcrdma4j.nfs.client.NfsClientConfig;
import org.rpcrdma4j.nfs.client.RpcBadReplyException;
import org.rpcrdma4j.nfs.client.RpcCallException;
import org.rpcrdma4j.nfs.client.RpcConnectionException;
import org.rpcrdma4j.nfs.client.RpcDeniedException;
import org.rpcrdma4j.nfs.client.RpcNotAcceptedException;
import org.rpcrdma4j.nfs.client.RpcTimeoutException;
import org.rpcrdma4j.nfs.xdr.DdpArgument;
import org.rpcrdma4j.nfs.xdr.DdpResult;
import org.rpcrdma4j.registration.RegisteredBuffer;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.xprt.client.RdmaBadReplyException;
import org.rpcrdma4j.xprt.client.RdmaCall;
import org.rpcrdma4j.xprt.client.RdmaCallListener;
import org.rpcrdma4j.xprt.client.RdmaCallTimeoutException;
import org.rpcrdma4j.xprt.client.RdmaClientConfig;
import org.rpcrdma4j.xprt.client.RdmaClientTransport;
import org.rpcrdma4j.xprt.client.RdmaConnectionException;
import org.rpcrdma4j.xprt.client.RdmaErrorReplyException;
import org.rpcrdma4j.xprt.client.RdmaMarshalException;

/**
 * {@link DataTransport} over RPC-over-RDMA ({@link RdmaClientTransport}'s DDP API). The RFC 8267 items move without a
 * copy when they live in the transport's registered memory ({@link #bufferPool()}): a {@link DdpArgument}'s item goes
 * out as a Read chunk straight from it, a {@link DdpResult}'s sink receives the data through a Write chunk. Items in
 * other memory are copied once, into (or out of) a registered transport buffer. A READ small enough that its reply
 * fits the inline receive threshold (with {@value #SMALL_READ_HEADROOM} bytes to spare for headers) comes back inline
 * and is copied into the sink: for a few KiB that costs less than registering the sink, the server's RDMA WRITE and
 * the invalidation.
 * <p>
 * Calls lost with a connection are sent again by the transport itself after it reconnects; a call fails when its
 * timeout ({@link NfsClientConfig#callTimeout()}) expires.
 * <p>
 * Threads: a reply is decoded and its future completed where the transport finished the call (the thread that
 * polled the reply), so a caller waiting in {@code get()} is woken directly. The futures are
 * {@link CallbackFuture}s: stages that depend on them run on a thread of this transport ({@code
 * nfs-rdma-completions-...}), never on the connection's, so they may block. A READ into memory outside
 * {@link #bufferPool()} is copied out and decoded on that thread too (the copy is not done on the connection's).
 * Thread-safe.
 */
public final class RdmaDataTransport implements DataTransport {
    /**
     * Room kept for a READ reply's headers (RPC, NFS, the transport's) when deciding whether its data fits the inline
     * receive threshold: a READ of at most the threshold less this comes back inline and is copied into the sink,
     * cheaper for a few KiB than registering the sink, an RDMA WRITE and invalidating it.
     */
    static final int SMALL_READ_HEADROOM = 1024;

    private final RdmaClientTransport transport;
    private final InetSocketAddress server;
    private final RpcAuth auth;
    private final long timeoutMillis;
    private final ExecutorService completions;
    /** The completions thread: copies out of transport buffers, and dependent stages by default. */
    private final Executor ownThread;
    /** Where dependent stages of the futures run ({@link NfsClientConfig#stageExecutor()}). */
    private final Executor callbacks;
    private final ReplySpin replySpin;

    private RdmaDataTransport(RdmaClientTransport transport, InetSocketAddress server, NfsClientConfig config) {
        this.transport = transport;
        this.server = server;
        this.auth = config.credential();
        this.timeoutMillis = config.callTimeout().toMillis();
        this.completions = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "nfs-rdma-completions-" + server);
            t.setDaemon(true);
            return t;
        });
        this.ownThread = task -> {
            try {
                completions.execute(task);
            } catch (RejectedExecutionException e) {
                ForkJoinPool.commonPool().execute(task); // closed: a late stage still runs, off the transport
            }
        };
        this.callbacks = config.stageExecutor() != null ? config.stageExecutor() : ownThread;
        this.replySpin = new ReplySpin(config.replySpin().toNanos());
    }

    /**
     * Connects to an NFS server over RDMA. {@code rdma} gives the transport settings; unless it has a binding for
     * the NFS program already, the NFSv3 and NFSv4 bindings are added ({@link NfsBinding}), and the connect timeout
     * is taken from {@code config}.
     */
    public static RdmaDataTransport connect(InetSocketAddress server, NfsClientConfig config, RdmaClientConfig rdma)
            throws IOException {
        RdmaClientConfig.Builder b = rdma.toBuilder().timeouts(rdma.resolveTimeout(), config.connectTimeout());
        if (rdma.bindings().stream().noneMatch(x -> x.program() == NfsBinding.INSTANCE.program())) {
            b.binding(NfsBinding.INSTANCE);
        }
        config.reversePrograms().forEach(b::reverseProgram);
        RdmaClientTransport t;
        try {
            t = RdmaClientTransport.connect(server, b.build());
        } catch (RdmaConnectionException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            throw new RpcConnectionException("cannot connect to rdma://" + server.getHostString() + ":"
                    + server.getPort() + ": " + cause.getMessage(), e);
        }
        return new RdmaDataTransport(t, server, config);
    }

    /** Registered memory of this transport: READ sinks and WRITE data allocated here move without a copy. */
    public org.rpcrdma4j.registration.RegisteredBufferPool bufferPool() {
        return transport.bufferPool();
    }

    @Override
    public ByteBuf allocateData(int size) throws IOException {
        try {
            return bufferPool().allocate(Math.max(1, size));
        } catch (VerbsException e) {
            throw new IOException("no registered memory for " + size + " bytes: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while waiting for registered memory");
        }
    }

    @Override
    public boolean movesWithoutCopy(ByteBuf b) {
        return transport.isRegisteredHere(b);
    }

    @Override
    public boolean servesReverseProgram(int program, int version) {
        return transport.config().reversePrograms().containsKey(new OncRpcProgram(program, version));
    }

    @Override
    public int maxDataPerCall() {
        return transport.config().maxPayloadSize();
    }

    @Override
    public long connectionGeneration() {
        return transport.connections();
    }

    @Override
    public int maxConcurrentCalls() {
        return Math.max(1, transport.stats().creditsGranted());
    }

    @Override
    public int maxUnboundedReply() {
        return transport.config().defaultMaxReplySize();
    }

    /** The RPC-over-RDMA transport underneath (counters, JMX). */
    public RdmaClientTransport transport() {
        return transport;
    }

    @Override
    public ReplySpin replySpin() {
        return replySpin;
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return server;
    }

    @Override
    public <T extends XdrAble> CompletableFuture<T> call(int program, int version, int procedure, XdrAble args,
                                                         T result) {
        CompletableFuture<T> future = new CallbackFuture<>(callbacks, replySpin);
        Pending<T> p = new Pending<>(future, result);
        try {
            p.start(program, version, procedure, args);
        } catch (IOException | RuntimeException | InterruptedException e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            p.releaseBuffers();
            future.completeExceptionally(e instanceof RpcCallException ? e
                    : new IllegalArgumentException("cannot encode the call's arguments: " + e.getMessage(), e));
        }
        return future;
    }

    /** One call: its encoding, the registered copies it may need, and the decoding of its reply. */
    private final class Pending<T extends XdrAble> implements RdmaCallListener {
        private final CompletableFuture<T> future;
        private final T result;
        private final RdmaCall call = new RdmaCall();
        /** Where the transport writes the reply (pooled: given back once decoded). */
        private final ByteBuf reply = PooledByteBufAllocator.DEFAULT.heapBuffer(512);
        private RegisteredBuffer ownedPayload;
        private RegisteredBuffer ownedSink;
        private ByteBuf userSink;
        /** Where a small READ's data starts in the sink, when the reply comes inline; -1 otherwise. */
        private int inlineSinkMark = -1;

        Pending(CompletableFuture<T> future, T result) {
            this.future = future;
            this.result = result;
        }

        void start(int program, int version, int procedure, XdrAble args)
                throws IOException, InterruptedException {
            int xid = transport.nextXid();
            Xdr xdr = new Xdr(512);
            xdr.beginEncoding();
            xdr.xdrEncodeInt(xid);
            xdr.xdrEncodeInt(0); // CALL
            xdr.xdrEncodeInt(2); // RPC version
            xdr.xdrEncodeInt(program);
            xdr.xdrEncodeInt(version);
            xdr.xdrEncodeInt(procedure);
            auth.xdrEncode(xdr);
            ByteBuf item = null;
            if (args instanceof DdpArgument ddp) {
                ddp.encodeBeforeItem(xdr);
                item = ddp.item();
                xdr.xdrEncodeInt(item.readableBytes());
            } else {
                args.xdrEncode(xdr);
            }
            xdr.endEncoding();
            ByteBuf message = encoded(xdr);
            call.message(message).reply(reply).timeout(timeoutMillis, TimeUnit.MILLISECONDS);
            if (item != null && item.readableBytes() > 0) {
                RegisteredBuffer own = ours(item);
                if (own != null) {
                    call.payload(own, item.readerIndex(), item.readableBytes());
                } else {
                    ownedPayload = allocate(item.readableBytes());
                    ownedPayload.setBytes(0, item, item.readerIndex(), item.readableBytes());
                    transport.countCopies(item.readableBytes(), 0);
                    call.payload(ownedPayload, 0, item.readableBytes());
                }
            }
            ByteBuf sink = result instanceof DdpResult ddp ? ddp.sink() : null;
            if (sink != null && sink.writableBytes() > 0) {
                if (sink.writableBytes() <= transport.inlineReceiveThreshold() - SMALL_READ_HEADROOM) {
                    // small: the reply comes inline, and the data is copied into the sink as it is decoded
                    inlineSinkMark = sink.writerIndex();
                    reply.ensureWritable(sink.writableBytes() + SMALL_READ_HEADROOM);
                } else {
                    userSink = sink;
                    RegisteredBuffer own = ours(sink);
                    if (own != null) {
                        call.sink(own, sink.writerIndex(), sink.writableBytes());
                    } else {
                        ownedSink = allocate(sink.writableBytes());
                        call.sink(ownedSink, 0, sink.writableBytes());
                    }
                }
            }
            transport.submit(call, this);
        }

        private RegisteredBuffer ours(ByteBuf b) {
            return transport.isRegisteredHere(b) ? (RegisteredBuffer) b : null;
        }

        private RegisteredBuffer allocate(int size) throws IOException, InterruptedException {
            try {
                return transport.bufferPool().allocate(Math.max(1, size));
            } catch (VerbsException e) {
                throw new RpcConnectionException("no registered memory for " + size + " bytes: " + e.getMessage(), e);
            }
        }

        /**
         * On the thread that finished the call (the connection's): decodes the reply and completes the future, whose
         * dependants run on the stage executor ({@link CallbackFuture}); a reply that must be copied out of a
         * transport buffer into the caller's sink is handed to the completions thread instead.
         */
        @Override
        public void onComplete(RdmaCall done) {
            if (ownedSink != null) {
                ownThread.execute(this::finish);
            } else {
                finish();
            }
        }

        private void finish() {
            try {
                Throwable failure = call.failure();
                if (failure != null) {
                    future.completeExceptionally(map(failure));
                    return;
                }
                Xdr xdr = acceptedReply(reply);
                if (result instanceof DdpResult ddp && userSink != null && call.writeChunkReturned()) {
                    long placed = call.placedBytes();
                    if (ownedSink != null && placed > 0) {
                        userSink.setBytes(userSink.writerIndex(), ownedSink, 0, (int) placed);
                        transport.countCopies(0, placed);
                    }
                    ddp.decodeReduced(xdr, placed);
                } else {
                    result.xdrDecode(xdr);
                    if (result instanceof DdpResult ddp && inlineSinkMark >= 0) {
                        transport.countCopies(0, ddp.sink().writerIndex() - inlineSinkMark);
                    }
                }
                future.complete(result);
            } catch (RpcCallException e) {
                future.completeExceptionally(e);
            } catch (IOException | RuntimeException e) {
                future.completeExceptionally(new RpcBadReplyException("the reply from " + server
                        + " does not decode: " + e.getMessage(), e));
            } finally {
                releaseBuffers();
            }
        }

        void releaseBuffers() {
            reply.release();
            if (ownedPayload != null) {
                ownedPayload.release();
                ownedPayload = null;
            }
            if (ownedSink != null) {
                ownedSink.release();
                ownedSink = null;
            }
        }
    }

    /** The encoded message of {@code xdr} (after {@code endEncoding()}) copied into a heap buffer. */
    private static ByteBuf encoded(Xdr xdr) {
        org.glassfish.grizzly.Buffer b = xdr.asBuffer();
        ByteBuf message = Unpooled.buffer(b.remaining());
        if (b.hasArray()) {
            message.writeBytes(b.array(), b.arrayOffset() + b.position(), b.remaining());
        } else {
            message.writeBytes(b.toByteBuffer().duplicate());
        }
        return message;
    }

    /**
     * Reads the RPC reply header in {@code reply}; the returned decoder stands at the procedure's result. A call
     * the server denied or did not accept throws {@link RpcDeniedException} or {@link RpcNotAcceptedException}.
     */
    public Xdr acceptedReply(ByteBuf reply) throws IOException {
        byte[] bytes = new byte[reply.readableBytes()];
        reply.getBytes(reply.readerIndex(), bytes);
        Xdr xdr = new Xdr(bytes);
        xdr.beginDecoding();
        int xid = xdr.xdrDecodeInt();
        xdr.xdrDecodeInt(); // REPLY
        RpcReply r = new RpcReply(xid, xdr, transport);
        if (!r.isAccepted()) {
            throw RpcDeniedException.of(server, r.getRejectStatus(), r.getAuthStatus());
        }
        if (r.getAcceptStatus() != 0) {
            throw new RpcNotAcceptedException(AcceptStatus.fromWire(r.getAcceptStatus()), "from " + server, null);
        }
        return xdr;
    }

    /** The typed error for an RDMA call that failed before its reply could be read. */
    public static RpcCallException map(Throwable e) {
        if (e instanceof RdmaCallTimeoutException) {
            return new RpcTimeoutException(e.getMessage(), e);
        }
        if (e instanceof RdmaBadReplyException || e instanceof RdmaErrorReplyException
                || e instanceof RdmaMarshalException) {
            return new RpcBadReplyException(e.getMessage(), e);
        }
        return new RpcConnectionException(e.getMessage(), e);
    }

    @Override
    public void close() {
        transport.close();
        completions.shutdown();
    }
}
