package org.rpcrdma4j.nfs.server.v4;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.xdr.XdrVoid;
import org.rpcrdma4j.nfs.v4.Nfs4Exception;
import org.rpcrdma4j.nfs.v4.state.ClientTable;
import org.rpcrdma4j.nfs.v4.state.SessionId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The back channel's probe (RFC 8881 section 2.10.3.1, RFC 8167 over RDMA): when a client asks at CREATE_SESSION for
 * callbacks on the session's connection, or binds a connection to the session's back channel later
 * (BIND_CONN_TO_SESSION), the server calls its callback program's CB_NULL over that connection (the transport's peer
 * direction), off the request's thread, and records in the state layer whether the path works (a session without one
 * reports SEQ4_STATUS_CB_PATH_DOWN_SESSION in its SEQUENCE replies). The path that answered is kept per session
 * ({@link #path}). No other callback is sent: this server grants no delegations and no layouts.
 */
final class BackChannel implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(BackChannel.class);
    /** {@code NFS_CB}, the callback program's only version (RFC 8881 section 20). */
    static final int CALLBACK_VERSION = 1;
    static final int CB_NULL = 0;
    private static final long TIMEOUT_SECONDS = 10;

    private final ExecutorService probes = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "nfs4-back-channel");
        t.setDaemon(true);
        return t;
    });
    private final Map<SessionId, RpcTransport> paths = new ConcurrentHashMap<>();
    private final AtomicLong answered = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();

    /** Calls CB_NULL of {@code program} over the peer direction of {@code transport}. */
    void probe(ClientTable clients, SessionId session, int program, RpcTransport transport) {
        try {
            probes.execute(() -> run(clients, session, program, transport));
        } catch (RejectedExecutionException e) {
            LOG.debug("back channel probe not run: the server is closing");
        }
    }

    private void run(ClientTable clients, SessionId session, int program, RpcTransport transport) {
        boolean up;
        try {
            RpcCall cb = new RpcCall(program, CALLBACK_VERSION, new RpcAuthTypeNone(), transport.getPeerTransport());
            cb.call(CB_NULL, XdrVoid.XDR_VOID, XdrVoid.XDR_VOID, TIMEOUT_SECONDS, TimeUnit.SECONDS);
            answered.incrementAndGet();
            up = true;
        } catch (Exception e) {
            failed.incrementAndGet();
            LOG.info("the back channel of session {} does not answer CB_NULL: {}", session, e.toString());
            up = false;
        }
        if (up) {
            paths.put(session, transport.getPeerTransport());
        }
        try {
            clients.backChannelDown(session.toByteArray(), !up);
        } catch (Nfs4Exception e) {
            LOG.debug("session {} went before its back channel was probed", session);
        }
        paths.keySet().removeIf(id -> {
            try {
                clients.session(id.toByteArray());
                return false;
            } catch (Nfs4Exception gone) {
                return true;
            }
        });
    }

    /** The connection (its reverse direction) on which the session's back channel last answered, if any. */
    Optional<RpcTransport> path(SessionId session) {
        return Optional.ofNullable(paths.get(session));
    }

    long answered() {
        return answered.get();
    }

    long failed() {
        return failed.get();
    }

    @Override
    public void close() {
        probes.shutdownNow();
    }
}
