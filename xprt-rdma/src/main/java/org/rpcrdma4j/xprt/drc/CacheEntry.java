package org.rpcrdma4j.xprt.drc;

import java.net.InetAddress;
import java.util.Arrays;

import org.dcache.oncrpc4j.rpc.RpcTransport;

/**
 * One call of a cached procedure: its key (who sent it and what it was), and once it has been answered, the reply.
 * The key is immutable; every other field is guarded by the {@link ReplyTable}'s lock.
 * <p>
 * The key never names a connection: the client's IP address without the port, its RPC credential (flavor, length and
 * body, as on the wire), the xid, program, version, procedure, the arguments' length and the CRC32C of their first
 * bytes. A call retransmitted on a new connection (new source port) has the same key.
 */
final class CacheEntry {
    // ---- key (immutable)
    final InetAddress client;
    /** Credential as on the wire: flavor, body length, body (unpadded; an AUTH_SYS stamp zeroed). Owned. */
    final byte[] credential;
    final int xid;
    final int program;
    final int version;
    final int procedure;
    final int argumentLength;
    final int checksum;
    final int hash;

    // ---- state (the table's lock)
    /** Linked in the table (findable, counted); false once removed or when never inserted. */
    boolean inTable;
    /** A reply went out for this call (cached or not). */
    boolean answered;
    /** When the call began executing, or when its reply was cached. */
    long stampNanos;
    /** The reply as sent (owned, never written after it is set), or null while executing or when not cached. */
    byte[] reply;
    /** The next entry of the same bucket. */
    CacheEntry bucketNext;
    /** Neighbours in the executing list or the completed list (an entry is in one of them while in the table). */
    CacheEntry older;
    CacheEntry newer;
    /** Transports of retransmissions parked until this call is answered; allocated for the first. */
    RpcTransport[] waiters;
    int waiterCount;

    CacheEntry(InetAddress client, byte[] credential, int xid, int program, int version, int procedure,
               int argumentLength, int checksum) {
        this.client = client;
        this.credential = credential;
        this.xid = xid;
        this.program = program;
        this.version = version;
        this.procedure = procedure;
        this.argumentLength = argumentLength;
        this.checksum = checksum;
        int h = client.hashCode();
        h = 31 * h + Arrays.hashCode(credential);
        h = 31 * h + xid;
        h = 31 * h + program;
        h = 31 * h + version;
        h = 31 * h + procedure;
        h = 31 * h + argumentLength;
        h = 31 * h + checksum;
        this.hash = h ^ (h >>> 16);
    }

    /** Same key: the same call from the same client. */
    boolean sameCall(CacheEntry o) {
        return hash == o.hash && xid == o.xid && checksum == o.checksum && procedure == o.procedure
                && program == o.program && version == o.version && argumentLength == o.argumentLength
                && client.equals(o.client) && Arrays.equals(credential, o.credential);
    }

    /** Bytes this entry counts against {@link DrcConfig#maxBytes()}. */
    long bytes() {
        return credential.length + (reply == null ? 0 : reply.length);
    }

    @Override
    public String toString() {
        return "CacheEntry[xid 0x" + Integer.toHexString(xid) + " " + program + "v" + version + " proc " + procedure
                + " from " + client.getHostAddress() + (answered ? " answered" : " executing") + "]";
    }
}
