package org.rpcrdma4j.nfs.client;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.CompletionHandler;
import java.security.SecureRandom;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.dcache.oncrpc4j.rpc.OncRpcAcceptedException;
import org.dcache.oncrpc4j.rpc.OncRpcClient;
import org.dcache.oncrpc4j.rpc.OncRpcRejectedException;
import org.dcache.oncrpc4j.rpc.RpcAuth;
import org.dcache.oncrpc4j.rpc.RpcReply;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link DataTransport} over one oncrpc4j TCP connection. Calls are pipelined on the connection and matched to their
 * replies by xid (oncrpc4j's {@code ReplyQueue}). Bulk WRITE data is not copied into the call: the codec references
 * the caller's buffer and the socket writes from it; READ data is copied once, from the received message into the
 * caller's sink.
 * <p>
 * When the connection fails, the calls outstanding on it are sent again on a new connection (up to
 * {@link NfsClientConfig#retransmits()} times, with back-off), as NFS clients do over TCP, each with the xid it first
 * had, so that the server's duplicate request cache answers a call it already ran with that reply instead of running
 * it again. A timeout is not retried.
 * Thread-safe.
 */
public final class TcpDataTransport implements DataTransport {
    private static final Logger LOG = LoggerFactory.getLogger(TcpDataTransport.class);
    private static final int RPC_CALL = 0;
    private static final int RPC_VERSION = 2;

    private final InetSocketAddress server;
    private final NfsClientConfig config;
    private final RpcAuth auth;
    private final AtomicInteger xids = new AtomicInteger(new SecureRandom().nextInt());
    private final Map<Integer, Outstanding> outstanding = new ConcurrentHashMap<>();
    private final ScheduledExecutorService retries;
    private final Object connectLock = new Object();
    private OncRpcClient client; // guarded by connectLock
    private volatile RpcTransport transport;
    private volatile boolean closed;

    /** A call on the wire: its handler and the connection it went out on. */
    private record Outstanding(RpcTransport transport, CompletionHandler<RpcReply, RpcTransport> handler) {
    }

    private TcpDataTransport(InetSocketAddress server, NfsClientConfig config, ScheduledExecutorService retries) {
        this.server = server;
        this.config = config;
        this.auth = config.credential();
        this.retries = retries;
    }

    /** Connects to {@code server}. */
    public static TcpDataTransport connect(InetSocketAddress server, NfsClientConfig config) throws IOException {
        return connect(server, config, Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "nfs-tcp-retry-" + server);
            t.setDaemon(true);
            return t;
        }));
    }

    /** Connects to {@code server}, sending calls again on {@code retries} (owned: {@link #close} shuts it down). */
    static TcpDataTransport connect(InetSocketAddress server, NfsClientConfig config,
                                    ScheduledExecutorService retries) throws IOException {
        TcpDataTransport t = new TcpDataTransport(server, config, retries);
        try {
            t.transport();
        } catch (IOException e) {
            t.close();
            throw e;
        }
        return t;
    }

    /** The factory for the "tcp" scheme. */
    public static DataTransportFactory factory() {
        return new DataTransportFactory() {
            @Override
            public String scheme() {
                return "tcp";
            }

            @Override
            public int defaultPort() {
                return NfsUrl.NFS_TCP_PORT;
            }

            @Override
            public DataTransport connect(InetSocketAddress address, NfsClientConfig cfg) throws IOException {
                return TcpDataTransport.connect(address, cfg);
            }
        };
    }

    /** Pooled direct memory: the stream's socket writes and reads it without a further copy. */
    @Override
    public ByteBuf allocateData(int size) {
        return PooledByteBufAllocator.DEFAULT.directBuffer(size, size);
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return server;
    }

    /** The open connection, connecting (again) when there is none. */
    private RpcTransport transport() throws IOException {
        RpcTransport t = transport;
        if (t != null && t.isOpen()) {
            return t;
        }
        synchronized (connectLock) {
            if (closed) {
                throw new RpcConnectionException("transport to " + server + " is closed", null);
            }
            t = transport;
            if (t != null && t.isOpen()) {
                return t;
            }
            if (t != null) {
                abandon(t);
            }
            OncRpcClient c = OncRpcClient.newBuilder()
                    .withTCP()
                    .withWorkerThreadIoStrategy()
                    .withWorkerThreadPoolSize(config.workerThreads())
                    .withSelectorThreadPoolSize(1)
                    .withServiceName("nfs-client-" + server)
                    .withConnectTimeout(config.connectTimeout().toMillis(), TimeUnit.MILLISECONDS)
                    .build(server);
            try {
                t = c.connect();
            } catch (IOException e) {
                closeQuietly(c);
                throw new RpcConnectionException("cannot connect to " + server + ": " + e.getMessage(), e);
            }
            client = c;
            transport = t;
            LOG.debug("connected to {}", server);
            return t;
        }
    }

    /** Fails (for a retry) every call still outstanding on a connection that is being replaced. */
    private void abandon(RpcTransport old) {
        EOFException gone = new EOFException("connection to " + server + " replaced");
        outstanding.forEach((xid, o) -> {
            if (o.transport() == old) {
                CompletionHandler<RpcReply, RpcTransport> h = old.getReplyQueue().get(xid);
                if (h != null) {
                    h.failed(gone, old);
                }
            }
        });
        if (client != null) {
            closeQuietly(client);
            client = null;
        }
        transport = null;
    }

    private static void closeQuietly(OncRpcClient c) {
        try {
            c.close();
        } catch (IOException | RuntimeException e) {
            LOG.debug("closing an RPC client: {}", e.toString());
        }
    }

    @Override
    public <T extends XdrAble> CompletableFuture<T> call(int program, int version, int procedure, XdrAble args,
                                                         T result) {
        CompletableFuture<T> future = new CompletableFuture<>();
        attempt(xids.incrementAndGet(), program, version, procedure, args, result, future, 0);
        return future;
    }

    /**
     * Sends the call as {@code xid}: the same xid on every attempt, so that a server's duplicate request cache
     * recognises a call sent again after a reconnect and answers it with the reply of its first execution.
     */
    private <T extends XdrAble> void attempt(int xid, int program, int version, int procedure, XdrAble args,
                                             T result, CompletableFuture<T> future, int attempt) {
        if (closed) {
            future.completeExceptionally(new RpcConnectionException("transport to " + server + " is closed", null));
            return;
        }
        RpcTransport t;
        try {
            t = transport();
        } catch (IOException e) {
            retryOrFail(xid, program, version, procedure, args, result, future, attempt, map(e));
            return;
        }
        Xdr xdr = new Xdr(512);
        try {
            xdr.beginEncoding();
            xdr.xdrEncodeInt(xid);
            xdr.xdrEncodeInt(RPC_CALL);
            xdr.xdrEncodeInt(RPC_VERSION);
            xdr.xdrEncodeInt(program);
            xdr.xdrEncodeInt(version);
            xdr.xdrEncodeInt(procedure);
            auth.xdrEncode(xdr);
            args.xdrEncode(xdr);
            xdr.endEncoding();
        } catch (IOException | RuntimeException e) {
            future.completeExceptionally(new IllegalArgumentException("cannot encode the call's arguments", e));
            return;
        }
        CompletionHandler<RpcReply, RpcTransport> handler = new CompletionHandler<>() {
            @Override
            public void completed(RpcReply reply, RpcTransport on) {
                outstanding.remove(xid);
                try {
                    reply.getReplyResult(result);
                    future.complete(result);
                } catch (IOException | RuntimeException e) {
                    future.completeExceptionally(new RpcBadReplyException(
                            "reply to procedure " + procedure + " of program " + program + " does not decode: "
                                    + e.getMessage(), e));
                }
            }

            @Override
            public void failed(Throwable e, RpcTransport on) {
                outstanding.remove(xid);
                retryOrFail(xid, program, version, procedure, args, result, future, attempt, map(e));
            }
        };
        outstanding.put(xid, new Outstanding(t, handler));
        try {
            t.getReplyQueue().registerKey(xid, t.getLocalSocketAddress(), handler,
                    config.callTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (EOFException e) {
            outstanding.remove(xid);
            handler.failed(e, t);
            return;
        }
        t.send(xdr, null, new CompletionHandler<Integer, Object>() {
            @Override
            public void completed(Integer written, Object attachment) {
            }

            @Override
            public void failed(Throwable e, Object attachment) {
                CompletionHandler<RpcReply, RpcTransport> h = t.getReplyQueue().get(xid);
                if (h != null) {
                    h.failed(e, t);
                }
            }
        });
    }

    private <T extends XdrAble> void retryOrFail(int xid, int program, int version, int procedure, XdrAble args,
                                                 T result, CompletableFuture<T> future, int attempt,
                                                 RpcCallException e) {
        if (e.isRetryable() && attempt < config.retransmits() && !closed) {
            long backoff = Math.min(2000, 100L << attempt);
            LOG.debug("call {} of program {} failed ({}); sending again in {} ms", procedure, program,
                    e.getMessage(), backoff);
            try {
                retries.schedule(() -> attempt(xid, program, version, procedure, args, result, future, attempt + 1),
                        backoff, TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException shut) {
                // close() ran since the check: its xid is no longer outstanding, so close() does not fail this call,
                // and what called this handler (oncrpc4j's loop over a lost connection's calls) must go on to the rest
                future.completeExceptionally(new RpcConnectionException("transport to " + server + " is closed",
                        shut));
            }
        } else {
            future.completeExceptionally(e);
        }
    }

    private RpcCallException map(Throwable e) {
        if (e instanceof RpcCallException r) {
            return r;
        }
        if (e instanceof TimeoutException) {
            return new RpcTimeoutException("no reply from " + server + " within " + config.callTimeout(), e);
        }
        if (e instanceof OncRpcRejectedException) {
            // oncrpc4j keeps only the reject status's name, not the auth_stat
            String status = String.valueOf(e.getMessage());
            return status.contains("AUTH_ERROR") ? RpcDeniedException.of(server, 1, -1)
                    : status.contains("RPC_MISMATCH") ? RpcDeniedException.of(server, 0, -1)
                    : new RpcDeniedException("call denied by " + server + ": " + status, e);
        }
        if (e instanceof OncRpcAcceptedException) {
            return new RpcNotAcceptedException(AcceptStatus.fromName(e.getMessage()), "from " + server, e);
        }
        return new RpcConnectionException("connection to " + server + " failed: " + e, e);
    }

    @Override
    public void close() {
        synchronized (connectLock) {
            if (closed) {
                return;
            }
            closed = true;
            RpcTransport t = transport;
            if (t != null) {
                abandon(t);
            }
            if (client != null) {
                closeQuietly(client);
                client = null;
            }
        }
        for (Runnable pendingRetry : retries.shutdownNow()) {
            pendingRetry.run(); // sees the transport closed and fails its call
        }
        RpcConnectionException gone = new RpcConnectionException("transport to " + server + " closed", null);
        outstanding.forEach((xid, o) -> {
            CompletionHandler<RpcReply, RpcTransport> h = o.transport().getReplyQueue().get(xid);
            if (h != null) {
                h.failed(gone, o.transport());
            }
        });
    }
}
