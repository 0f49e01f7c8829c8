package org.rpcrdma4j.xprt.drc;

import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.rpcrdma4j.verbs.util.EnumCounters;

/**
 * The cache's entries: a fixed hash table (chained, sized at creation) and two lists in age order, one of calls still
 * executing (oldest start first) and one of cached replies (oldest reply first). Every method takes the table's
 * lock; nothing here sends, blocks or calls out.
 * <p>
 * Bounds hold after every method: at most {@code maxEntries} entries and {@code maxBytes} bytes. Room is made by
 * evicting the oldest cached reply; an executing call is never evicted for room (its retransmission would run the
 * call a second time), but it is given up when it has run longer than {@code maxAge}. Replies older than
 * {@code maxAge} expire. Lookups allocate nothing.
 */
final class ReplyTable {
    /** The call is new: it was inserted and must be executed. */
    static final int MISS = 0;
    /** The call was answered before: the candidate's {@code reply} is set to the cached reply. */
    static final int HIT = 1;
    /** The call is executing: the transport was parked and gets the reply when it is sent. */
    static final int WAIT = 2;
    /** The call is executing and its waiting room is full: do nothing. */
    static final int DROP = 3;
    /** No room: every entry is an executing call. Execute without caching. */
    static final int NO_ROOM = 4;

    private final CacheEntry[] buckets;
    private final int mask;
    private final int maxEntries;
    private final long maxBytes;
    private final long maxAgeNanos;
    private final int maxReplyBytes;
    private final int maxWaiters;
    private final EnumCounters<DrcCounter> counters;

    private CacheEntry executingOldest;
    private CacheEntry executingNewest;
    private CacheEntry cachedOldest;
    private CacheEntry cachedNewest;
    private int entries;
    private long bytes;

    ReplyTable(DrcConfig config, EnumCounters<DrcCounter> counters) {
        this.maxEntries = config.maxEntries();
        this.maxBytes = config.maxBytes();
        this.maxAgeNanos = config.maxAge().toNanos();
        this.maxReplyBytes = config.maxReplyBytes();
        this.maxWaiters = config.maxWaiters();
        this.counters = counters;
        int size = Integer.highestOneBit(Math.max(2, maxEntries) - 1) << 1;
        this.buckets = new CacheEntry[size];
        this.mask = size - 1;
    }

    /**
     * Looks {@code candidate}'s call up and, when it is new, inserts the candidate as executing.
     *
     * @param transport where a parked retransmission is to be answered (borrowed until the reply is sent)
     * @return {@link #MISS}, {@link #HIT}, {@link #WAIT}, {@link #DROP} or {@link #NO_ROOM}
     */
    synchronized int begin(CacheEntry candidate, RpcTransport transport, long now) {
        expire(now);
        for (CacheEntry e = buckets[candidate.hash & mask]; e != null; e = e.bucketNext) {
            if (!e.sameCall(candidate)) {
                continue;
            }
            if (e.answered) {
                candidate.reply = e.reply;
                return HIT;
            }
            if (e.waiterCount >= maxWaiters) {
                return DROP;
            }
            if (e.waiters == null) {
                e.waiters = new RpcTransport[maxWaiters];
            }
            e.waiters[e.waiterCount++] = transport;
            return WAIT;
        }
        while (entries >= maxEntries || bytes + candidate.credential.length > maxBytes) {
            if (cachedOldest == null) {
                return NO_ROOM;
            }
            remove(cachedOldest);
            counters.increment(DrcCounter.EVICTIONS);
        }
        candidate.stampNanos = now;
        candidate.inTable = true;
        int b = candidate.hash & mask;
        candidate.bucketNext = buckets[b];
        buckets[b] = candidate;
        append(candidate, false);
        entries++;
        bytes += candidate.credential.length;
        gauges();
        return MISS;
    }

    /**
     * The call's reply went out: caches {@code reply} (owned from here on; null or too large: the entry is removed) and
     * closes the waiting room.
     *
     * @return how many retransmissions are parked in {@code entry.waiters} (from now on only the caller reads them),
     *         or -1 when the call had been answered already
     */
    synchronized int complete(CacheEntry entry, byte[] reply, long now) {
        if (entry.answered) {
            return -1;
        }
        entry.answered = true;
        if (entry.inTable) {
            unlink(entry);
            if (reply != null && reply.length <= maxReplyBytes) {
                entry.reply = reply;
                entry.stampNanos = now;
                append(entry, true);
                bytes += reply.length;
                while (bytes > maxBytes) {
                    if (cachedOldest == entry) {
                        // only executing calls' keys are left besides it: this reply does not fit
                        remove(entry);
                        counters.increment(DrcCounter.UNCACHEABLE);
                        break;
                    }
                    remove(cachedOldest);
                    counters.increment(DrcCounter.EVICTIONS);
                }
            } else {
                entry.inTable = false;
                unbucket(entry);
                entries--;
                bytes -= entry.credential.length;
                counters.increment(DrcCounter.UNCACHEABLE);
            }
            gauges();
        } else if (reply == null || reply.length > maxReplyBytes) {
            counters.increment(DrcCounter.UNCACHEABLE);
        }
        return entry.waiterCount;
    }

    /** Hands the parked retransmissions of an answered call to the caller (the entry forgets them). */
    synchronized RpcTransport[] takeWaiters(CacheEntry entry) {
        RpcTransport[] w = entry.waiters;
        entry.waiters = null;
        return w;
    }

    /** Removes expired replies and gives up calls that have executed for longer than the maximum age. */
    private void expire(long now) {
        boolean changed = false;
        while (cachedOldest != null && now - cachedOldest.stampNanos >= maxAgeNanos) {
            remove(cachedOldest);
            counters.increment(DrcCounter.EXPIRATIONS);
            changed = true;
        }
        while (executingOldest != null && now - executingOldest.stampNanos >= maxAgeNanos) {
            remove(executingOldest);
            counters.increment(DrcCounter.ABANDONED);
            changed = true;
        }
        if (changed) {
            gauges();
        }
    }

    /** Drops every entry (executing calls keep their parked retransmissions, which still get their reply). */
    synchronized void clear() {
        while (cachedOldest != null) {
            remove(cachedOldest);
        }
        while (executingOldest != null) {
            remove(executingOldest);
        }
        gauges();
    }

    synchronized int entries() {
        return entries;
    }

    synchronized long bytes() {
        return bytes;
    }

    synchronized int executing() {
        int n = 0;
        for (CacheEntry e = executingOldest; e != null; e = e.newer) {
            n++;
        }
        return n;
    }

    private void remove(CacheEntry e) {
        unlink(e);
        unbucket(e);
        e.inTable = false;
        entries--;
        bytes -= e.bytes();
        e.reply = null;
    }

    private void unbucket(CacheEntry e) {
        int b = e.hash & mask;
        CacheEntry prev = null;
        for (CacheEntry x = buckets[b]; x != null; prev = x, x = x.bucketNext) {
            if (x == e) {
                if (prev == null) {
                    buckets[b] = e.bucketNext;
                } else {
                    prev.bucketNext = e.bucketNext;
                }
                e.bucketNext = null;
                return;
            }
        }
        throw new IllegalStateException("entry not in its bucket: " + e);
    }

    /** Appends to the newest end of the cached list (true) or the executing list. */
    private void append(CacheEntry e, boolean cached) {
        CacheEntry newest = cached ? cachedNewest : executingNewest;
        e.older = newest;
        e.newer = null;
        if (newest != null) {
            newest.newer = e;
        } else if (cached) {
            cachedOldest = e;
        } else {
            executingOldest = e;
        }
        if (cached) {
            cachedNewest = e;
        } else {
            executingNewest = e;
        }
    }

    /** Unlinks from whichever list the entry is in (the cached one once it has a reply). */
    private void unlink(CacheEntry e) {
        boolean cached = e.reply != null;
        if (e.older != null) {
            e.older.newer = e.newer;
        } else if (cached) {
            cachedOldest = e.newer;
        } else {
            executingOldest = e.newer;
        }
        if (e.newer != null) {
            e.newer.older = e.older;
        } else if (cached) {
            cachedNewest = e.older;
        } else {
            executingNewest = e.older;
        }
        e.older = null;
        e.newer = null;
    }

    private void gauges() {
        counters.set(DrcCounter.ENTRIES_HELD, entries);
        counters.set(DrcCounter.BYTES_HELD, bytes);
    }
}
