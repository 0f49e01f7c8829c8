/**
 * The state of an NFSv4.1 server (RFC 8881): who its clients are, how long they may keep what they hold, the sessions
 * through which they talk to it, the exactly-once reply cache of each session, their opens, their byte-range locks
 * and their read delegations ({@link org.rpcrdma4j.nfs.v4.state.DelegationStates}). Plain Java without I/O: the
 * COMPOUND server decodes an operation, calls in here, and encodes what comes back or the
 * {@link org.rpcrdma4j.nfs.v4.Nfs4Exception}'s status.
 *
 * <h2>Clients</h2>
 * A client names itself with an owner string and a verifier that changes every time it restarts. EXCHANGE_ID turns
 * the pair into a 64-bit client ID: the high half is the boot id of this {@link org.rpcrdma4j.nfs.v4.state.ClientTable}
 * (different after a server restart, so an old ID is recognised as stale, not mistaken for a new one), the low half a
 * counter. A client ID is first <em>unconfirmed</em>; the first CREATE_SESSION confirms it. For each owner the table
 * keeps at most one confirmed and one unconfirmed record, and the case table of RFC 8881 section 18.35.5 decides what
 * an EXCHANGE_ID does with them:
 * <pre>
 *   nothing for the owner              -&gt; new unconfirmed record                          (case 1)
 *   confirmed, same verifier           -&gt; that record again, lease renewed                 (case 2, update: 6)
 *   unconfirmed only                   -&gt; it is dropped, a new unconfirmed record made     (case 4)
 *   confirmed, other verifier          -&gt; new unconfirmed record; the confirmed one keeps  (case 5)
 *                                         its sessions and opens until CREATE_SESSION
 *                                         confirms the new record, then loses them
 * </pre>
 * This server speaks AUTH_SYS without state protection, so the principal is not compared and the collision cases
 * (3, 9) do not occur. A record leaves the table when DESTROY_CLIENTID drops it (only once it has no sessions and no
 * opens), when a newer record of its owner is confirmed, or when its lease runs out.
 *
 * <h2>Leases</h2>
 * Every SEQUENCE renews the lease of the session's client, and so do CREATE_SESSION, EXCHANGE_ID of a known record,
 * and the end of a request (a COMPOUND may run long). When the lease time has passed since the last renewal and no
 * request of the client is executing, the client has expired: its record, sessions and opens are dropped. Expiry is
 * lazy (whenever a client, session or stateid is looked up) and also happens in
 * {@link org.rpcrdma4j.nfs.v4.state.ClientTable#expire()}, which the server may call from a timer. After it the
 * sessions are NFS4ERR_BADSESSION, the client ID NFS4ERR_STALE_CLIENTID, and the stateids NFS4ERR_EXPIRED: the table
 * remembers the IDs of the last 4096 expired clients, and a stateid names its client, so it can still tell; the
 * stateids of a client forgotten, destroyed or replaced are NFS4ERR_BAD_STATEID. Unconfirmed records expire alike.
 * <p>
 * Expiry is courteous, as Linux's server's is: a confirmed client that holds opens or delegations is kept, with its
 * sessions, opens, delegations and locks, for the configured courtesy time past its lease ({@link org.rpcrdma4j.nfs.v4.state.StateConfig#courtesyTime()},
 * a day by default). Its own next request renews its lease, and it carries on as if it had never been away. It loses
 * its state at once when another client's request conflicts with it (an OPEN its share reservation denies, a LOCK or
 * LOCKT over its lock, I/O with a special stateid its reservation denies, a change of a file it holds a delegation of:
 * the table drops the client, and the request
 * goes on as if there had been no conflict), when the table needs room for a new client ID (the one renewed longest
 * ago goes), or when the courtesy time has passed. A client that holds nothing expires with its lease. With a courtesy
 * time of zero every client expires with its lease.
 *
 * <h2>Grace</h2>
 * The grace period runs for the configured time from the table's creation and does not end early: with no stable
 * storage the server cannot know which clients held state before it restarted, so it cannot know when they have all
 * reclaimed. In grace, an OPEN that is not a reclaim is NFS4ERR_GRACE, and so is I/O with the anonymous stateid (it
 * could conflict with a share reservation not yet reclaimed); after it a reclaim is NFS4ERR_NO_GRACE. Any client may
 * reclaim in grace: without stable storage the server cannot check that it held the state. The per-client rule of
 * section 18.51.3 (no reclaims after, and no new opens before, the client's RECLAIM_COMPLETE) is a separate check.
 *
 * <h2>Sessions and the reply cache</h2>
 * CREATE_SESSION has its own one-slot replay cache per client: {@code csa_sequence} one past the last executes, equal
 * to the last returns the last result again (the same session id), anything else is NFS4ERR_SEQ_MISORDERED; a failure
 * does not move the sequence. The fore channel gets the smaller of what the client asked and the server allows, and
 * as many slots as requests. On a slot, a request with the next sequence id (modulo 2^32; a slot starts at 0) is
 * executed; its retry with the same sequence id gets NFS4ERR_DELAY while the original still executes, the cached
 * reply once it completed with {@code sa_cachethis}, NFS4ERR_RETRY_UNCACHED_REP without; anything else is
 * NFS4ERR_SEQ_MISORDERED. The cache holds the whole encoded COMPOUND reply, handed over by the COMPOUND server when it
 * completes the slot. A request that dies without a reply releases its slot and leaves the sequence id advanced: its
 * operations may have changed state, so it may not run a second time.
 *
 * <h2>Opens</h2>
 * An open is the state of one open owner of one client on one file, with the union of the share access and deny of
 * the OPENs that made or upgraded it. Its stateid's "other" carries the boot id, the client ID's low half and a
 * number unique in the table; its seqid starts at 1 and grows with every upgrade or downgrade (0xffffffff wraps to
 * 1). A stateid with seqid 0 means "the current seqid"; a newer one is NFS4ERR_BAD_STATEID, an older one
 * NFS4ERR_OLD_STATEID; one of another boot NFS4ERR_STALE_STATEID. CLOSE removes the open and returns the invalid
 * special stateid, so the closed stateid is NFS4ERR_BAD_STATEID afterwards. Share reservations are checked between
 * different owners, including two owners of one client.
 *
 * <h2>Byte-range locks</h2>
 * A lock owner's first LOCK on a file names one of its client's opens of the file; it gets a lock stateid, made like
 * an open's but with the top bit of its number set, whose seqid grows with every LOCK and LOCKU. The stateid stands for
 * its open in I/O. Locks are advisory and POSIX-like: an owner's locks on a file are ranges of READ or WRITE that never
 * overlap (a new lock over held bytes changes their type), a WRITE lock conflicts with any other owner's lock on the
 * same bytes and a READ lock with another's WRITE lock, and ranges are unsigned, a length of all ones reaching to the
 * end of any file. A conflict is NFS4ERR_DENIED naming one conflicting lock, even for the blocking types. Grace
 * applies to LOCK as to OPEN (the reclaim flag); LOCKT is NFS4ERR_GRACE in grace. A lock stateid holding no lock can
 * be freed (FREE_STATEID); CLOSE of its open ends it and its locks, and so does the client's expiry.
 *
 * <h2>What may race, and the locking</h2>
 * The COMPOUND server runs requests on several threads at once, so everything here may be called concurrently:
 * two retries of one request on one slot (the slot's in-progress state lets exactly one execute, the other gets
 * DELAY); requests on different slots of one session (independent); a SEQUENCE against a DESTROY_SESSION, a
 * DESTROY_CLIENTID, an expiry or the confirmation of a restarted client's new record (the session is found and its
 * slot acquired under one lock, or not at all; a request that already runs completes into a slot table no one can
 * reach any more); an expiry against a running request (a client with a request executing does not expire, and the
 * request's end renews the lease under the same lock hold); two EXCHANGE_IDs or CREATE_SESSIONs of one owner (they
 * serialise, so the second sees the first's record or sequence); an OPEN upgrade against a READ with the older
 * stateid (the READ sees one seqid or the other and answers accordingly).
 * <p>Two monitors make this safe. The table's lock guards every client record, session map, back channel flag and
 * open; each session's {@link org.rpcrdma4j.nfs.v4.state.SlotTable} has its own monitor for its slots. The order is
 * always table, then slot table: the table takes the slot monitor inside its lock (acquiring a slot, checking
 * whether a client is busy, completing a slot), and a slot table never calls out. So there is no deadlock, and no
 * update is lost, as every change happens under the monitor that guards it. None of this is a hot path: the lock is
 * held for map look-ups and a few field updates, never across I/O.
 */
package org.rpcrdma4j.nfs.v4.state;
