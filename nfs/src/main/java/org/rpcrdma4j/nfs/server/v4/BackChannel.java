package org.rpcrdma4j.nfs.server.v4;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.dcache.oncrpc4j.rpc.RpcAuth;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.xdr.XdrVoid;
import org.rpcrdma4j.nfs.v4.Nfs4Exception;
import org.rpcrdma4j.nfs.v4.Nfs4Status;
import org.rpcrdma4j.nfs.v4.state.ClientTable;
import org.rpcrdma4j.nfs.v4.state.Recall;
import org.rpcrdma4j.nfs.v4.state.Session;
import org.rpcrdma4j.nfs.v4.state.SessionId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The back channel's probe (RFC 8881 section 2.10.3.1, RFC 8167 over RDMA): when a client asks at CREATE_SESSION for
 * callbacks on the session's connection, or binds a connection to the session's back channel later
 * (BIND_CONN_TO_SESSION), the server calls its callback program's CB_NULL over that connection (the transport's peer
 * direction), off the request's thread, and records in the state layer whether the path works (a session without one
 * reports SEQ4_STATUS_CB_PATH_DOWN_SESSION in its SEQUENCE replies). The path that answered is kept per session
 * ({@link #path}).
 * <p>
 * Recalls of read delegations ({@link #recall}) go as CB_COMPOUNDs of CB_SEQUENCE and CB_RECALL ({@link CbRecall})
 * on the newest session of the client whose back channel works, one callback at a time per session (the one back
 * channel slot this server uses, whose sequence id goes up with every answered callback and stays for a callback
 * sent again after no answer). A client that answers NFS4ERR_DELAY, or does not know the delegation yet (its OPEN's
 * reply may still be on its way), is asked again after 50, 100, 200 ms and so on, eight times in all. A back channel
 * that does not answer is reported down ({@code SEQ4_STATUS_CB_PATH_DOWN_SESSION}) and the next one of the client is
 * tried; a client with none left has its delegation revoked at once. A recall that was answered but never followed
 * by a DELEGRETURN is revoked when the lease has passed (the laundromat's). No layouts are ever recalled.
 */
final class BackChannel implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(BackChannel.class);
    /** {@code NFS_CB}, the callback program's only version (RFC 8881 section 20). */
    static final int CALLBACK_VERSION = 1;
    static final int CB_NULL = 0;
    private static final long TIMEOUT_SECONDS = 10;

    /** How often a recall is sent at most, and the wait before the first retry (doubled each time). */
    static final int RECALL_ATTEMPTS = 8;
    static final long RECALL_RETRY_MILLIS = 50;

    private final ScheduledThreadPoolExecutor callbacks = new ScheduledThreadPoolExecutor(4, r -> {
        Thread t = new Thread(r, "nfs4-back-channel");
        t.setDaemon(true);
        return t;
    });
    private final Map<SessionId, RpcTransport> paths = new ConcurrentHashMap<>();
    /** How each session's callbacks go: CREATE_SESSION's (or BACKCHANNEL_CTL's) credential and minor version. */
    private final Map<SessionId, Setup> setups = new ConcurrentHashMap<>();

    /**
     * What a session's callbacks carry: the credential the client's callback service takes (AUTH_NONE when it gave
     * none this server speaks), and the minor version of the session (the Linux client finds the session of a
     * CB_COMPOUND only under its own minor version: 2 for a mount of NFSv4.2).
     */
    private record Setup(RpcAuth auth, int minorVersion) {
    }
    /** The next sequence id of each session's back channel slot; its monitor keeps one callback at a time on it. */
    private final Map<SessionId, int[]> slots = new ConcurrentHashMap<>();
    private final AtomicLong answered = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicLong recallsAnswered = new AtomicLong();

    /** Calls CB_NULL of {@code program} over the peer direction of {@code transport}. */
    void probe(ClientTable clients, SessionId session, int program, RpcTransport transport) {
        try {
            callbacks.execute(() -> run(clients, session, program, transport));
        } catch (RejectedExecutionException e) {
            LOG.debug("back channel probe not run: the server is closing");
        }
    }

    private void run(ClientTable clients, SessionId session, int program, RpcTransport transport) {
        boolean up;
        try {
            RpcCall cb = new RpcCall(program, CALLBACK_VERSION, setup(session).auth(), transport.getPeerTransport());
            cb.call(CB_NULL, XdrVoid.XDR_VOID, XdrVoid.XDR_VOID, TIMEOUT_SECONDS, TimeUnit.SECONDS);
            up = true;
        } catch (Exception e) {
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
        // counted once the path is recorded: whoever sees the count sees the path
        (up ? answered : failed).incrementAndGet();
        forgetGone(clients);
    }

    /**
     * How {@code session}'s callbacks go from now on: {@code auth} (null: AUTH_NONE), {@code minorVersion}. Forgets
     * what it kept of sessions that are gone.
     */
    void setUp(ClientTable clients, SessionId session, RpcAuth auth, int minorVersion) {
        setups.put(session, new Setup(auth != null ? auth : new RpcAuthTypeNone(), minorVersion));
        forgetGone(clients);
    }

    /** Forgets what is kept of the sessions that are gone (destroyed, or with their client). */
    private void forgetGone(ClientTable clients) {
        paths.keySet().removeIf(id -> gone(clients, id));
        slots.keySet().removeIf(id -> gone(clients, id));
        setups.keySet().removeIf(id -> gone(clients, id));
    }

    /** Forgets {@code session} (DESTROY_SESSION). */
    void forget(SessionId session) {
        paths.remove(session);
        slots.remove(session);
        setups.remove(session);
    }

    private Setup setup(SessionId session) {
        Setup s = setups.get(session);
        return s != null ? s : new Setup(new RpcAuthTypeNone(), 1);
    }

    private static boolean gone(ClientTable clients, SessionId id) {
        try {
            clients.session(id.toByteArray());
            return false;
        } catch (Nfs4Exception e) {
            return true;
        }
    }

    /** Whether a back channel of {@code clientId} answered and is not known to be down. */
    boolean reaches(ClientTable clients, long clientId) {
        for (SessionId id : clients.callbackSessions(clientId)) {
            if (paths.containsKey(id)) {
                return true;
            }
        }
        return false;
    }

    /** Sends {@code recall}'s CB_RECALL to its client, off the caller's thread (which may hold the state's lock). */
    void recall(ClientTable clients, Recall recall) {
        schedule(clients, recall, 0, 0);
    }

    private void schedule(ClientTable clients, Recall recall, int attempt, long delayMillis) {
        try {
            callbacks.schedule(() -> deliver(clients, recall, attempt), delayMillis, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            LOG.debug("recall of {} not sent: the server is closing", recall.stateid());
        }
    }

    private void deliver(ClientTable clients, Recall recall, int attempt) {
        if (!clients.delegations().stillRecalled(recall)) {
            return; // returned or revoked meanwhile
        }
        List<SessionId> sessions = clients.callbackSessions(recall.clientId());
        SessionId id = sessions.stream().filter(paths::containsKey).findFirst().orElse(null);
        if (id == null) {
            if (clients.delegations().revoke(recall)) {
                LOG.info("delegation {} revoked: client {} has no working back channel to recall it on",
                        recall.stateid(), Long.toHexString(recall.clientId()));
            }
            return;
        }
        int outcome;
        try {
            outcome = send(clients, id, recall);
        } catch (Exception e) {
            LOG.info("the back channel of session {} did not answer CB_RECALL: {}", id, e.toString());
            paths.remove(id);
            try {
                clients.backChannelDown(id.toByteArray(), true);
            } catch (Nfs4Exception gone) {
                LOG.debug("session {} went meanwhile", id);
            }
            schedule(clients, recall, attempt, 0); // the next session of the client, or revocation
            return;
        }
        if (outcome == Nfs4Status.NFS4_OK) {
            recallsAnswered.incrementAndGet();
            return;
        }
        boolean again = outcome == Nfs4Status.NFS4ERR_DELAY || outcome == Nfs4Status.NFS4ERR_BAD_STATEID
                || outcome == Nfs4Status.NFS4ERR_BADHANDLE || outcome == Nfs4Status.NFS4ERR_SEQ_MISORDERED
                || outcome == Nfs4Status.NFS4ERR_RETRY_UNCACHED_REP;
        if (again && attempt + 1 < RECALL_ATTEMPTS) {
            schedule(clients, recall, attempt + 1, RECALL_RETRY_MILLIS << attempt);
        } else {
            LOG.info("client {} answered the recall of {} with {}; it is revoked when the lease has passed",
                    Long.toHexString(recall.clientId()), recall.stateid(), Nfs4Status.name(outcome));
        }
    }

    /** One CB_COMPOUND on {@code id}'s back channel slot: what the client answered. */
    private int send(ClientTable clients, SessionId id, Recall recall) throws Exception {
        Session session = clients.session(id.toByteArray());
        int[] slot = slots.computeIfAbsent(id, k -> new int[] {1});
        Setup setup = setup(id);
        synchronized (slot) {
            // looked up once the slot is ours: a callback before this one on the slot may have found the path dead
            // while this one waited, which must not wait the same timeout on it again
            RpcTransport path = paths.get(id);
            if (path == null) {
                throw new IllegalStateException("no back channel");
            }
            CbRecall cb = new CbRecall(setup.minorVersion(), id, slot[0], recall);
            try {
                new RpcCall(session.callbackProgram(), CALLBACK_VERSION, setup.auth(), path)
                        .call(CbRecall.CB_COMPOUND, cb, cb, TIMEOUT_SECONDS, TimeUnit.SECONDS);
            } catch (Exception e) {
                // dropped before the slot is let go, so that the callback waiting for it finds the path gone
                paths.remove(id, path);
                throw e;
            }
            if (cb.sequenceStatus == Nfs4Status.NFS4_OK || cb.sequenceStatus == Nfs4Status.NFS4ERR_RETRY_UNCACHED_REP) {
                // the client's slot moved on (RETRY_UNCACHED_REP: it ran the callback whose answer was lost)
                slot[0]++;
            } else if (cb.sequenceStatus == Nfs4Status.NFS4ERR_SEQ_MISORDERED && slot[0] != 1) {
                slot[0] = 1; // out of step: start the slot over, as Linux's server does
            }
            // anything else (DELAY, no CB_SEQUENCE result) left the client's slot as it was; no answer at all keeps
            // the id for the callback sent again
            return cb.outcome();
        }
    }

    /** CB_RECALLs the clients answered NFS4_OK. */
    long recallsAnswered() {
        return recallsAnswered.get();
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
        callbacks.shutdownNow();
    }
}
