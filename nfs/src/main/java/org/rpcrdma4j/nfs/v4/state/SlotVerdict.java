package org.rpcrdma4j.nfs.v4.state;

/**
 * What a slot table decided about a SEQUENCE (RFC 8881 section 2.10.6.1): run the COMPOUND, or send the reply it
 * already has. The failures (BADSLOT, DELAY, RETRY_UNCACHED_REP, SEQ_MISORDERED) are thrown as
 * {@link org.rpcrdma4j.nfs.v4.Nfs4Exception}s instead.
 *
 * @param kind        {@link Kind#EXECUTE} or {@link Kind#REPLAY}
 * @param cachedReply for a replay, the whole encoded COMPOUND reply stored by {@link SlotTable#complete}; the array
 *                    itself, not a copy, which no one may modify; null for EXECUTE
 */
public record SlotVerdict(Kind kind, byte[] cachedReply) {
    public enum Kind {
        /** A new request: execute the COMPOUND, then complete or release the slot. */
        EXECUTE,
        /** A retry of the slot's last request: send {@link #cachedReply()} again and execute nothing. */
        REPLAY
    }

    static final SlotVerdict EXECUTE = new SlotVerdict(Kind.EXECUTE, null);

    static SlotVerdict replay(byte[] reply) {
        return new SlotVerdict(Kind.REPLAY, reply);
    }

    public boolean isReplay() {
        return kind == Kind.REPLAY;
    }
}
