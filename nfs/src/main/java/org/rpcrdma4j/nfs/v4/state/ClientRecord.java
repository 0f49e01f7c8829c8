package org.rpcrdma4j.nfs.v4.state;

import java.util.LinkedHashMap;
import java.util.Map;

import org.rpcrdma4j.nfs.v4.Nfs4Exception;

/** One client ID: the server's record of an EXCHANGE_ID. Every field is guarded by the {@link ClientTable}'s lock. */
final class ClientRecord {
    final long id;
    final Bytes owner;
    final byte[] verifier;
    boolean confirmed;
    /** The {@code csa_sequence} of the last CREATE_SESSION executed (0 before the first). */
    int createSessionSequence;
    /** What that CREATE_SESSION returned, for its replay; null before the first, and when it failed. */
    CreateSessionResult lastCreateSession;
    /** How that CREATE_SESSION failed, for its replay; null when it made a session. */
    Nfs4Exception lastCreateSessionFailure;
    long lastRenewed;
    boolean reclaimComplete;
    final Map<SessionId, Session> sessions = new LinkedHashMap<>();

    ClientRecord(long id, Bytes owner, byte[] verifier, long now) {
        this.id = id;
        this.owner = owner;
        this.verifier = verifier.clone();
        this.lastRenewed = now;
    }

    /** Whether a request of this client is executing on any of its sessions (then its lease does not run out). */
    boolean busy() {
        for (Session s : sessions.values()) {
            if (s.slots().inProgress() > 0) {
                return true;
            }
        }
        return false;
    }

    boolean leasePassed(long now, long leaseNanos) {
        return now - lastRenewed > leaseNanos;
    }
}
