package org.rpcrdma4j.verbs.disni;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedList;
import java.util.List;

import com.ibm.disni.verbs.IbvRecvWR;
import com.ibm.disni.verbs.IbvSge;
import com.ibm.disni.verbs.SVCPostRecv;
import org.rpcrdma4j.verbs.RecvWorkRequest;
import org.rpcrdma4j.verbs.Sge;

/**
 * Posts receives through DiSNI, allocating only for receives it has not seen before.
 * <p>
 * DiSNI's serialised receive call ({@link SVCPostRecv}) cannot be modified at all: its modifier only reads the wr_id.
 * So a receive can be re-posted without allocation only when exactly the same request (wr_id and every SGE) was
 * serialised before. That is the normal case for an RPC transport, whose receive buffers are a fixed pool posted again
 * and again under the same wr_ids. This class keeps a 4-way set-associative cache of single-request calls keyed by the
 * whole request, sized to twice the receive queue; a chain is posted request by request (after the whole chain was
 * validated), each through its cached call. A receive with new contents allocates one call, and evicts (frees) the
 * least recently used one of its set.
 * <p>
 * Owned by the one thread that posts receives on the queue pair (or by whoever holds the queue pair's receive lock).
 */
final class RecvPoster {
    private static final int WAYS = 4;
    private static final int MAX_SETS = 1024;

    private final NativeQp qp;
    private final Entry[] entries;
    private final int setMask;
    private long clock;
    private long serialised;

    private static final class Entry {
        final long[] addr;
        final int[] len;
        final int[] lkey;
        long wrId;
        int numSge;
        SVCPostRecv call;
        long lastUse;

        Entry(int maxSge) {
            addr = new long[maxSge];
            len = new int[maxSge];
            lkey = new int[maxSge];
        }
    }

    RecvPoster(NativeQp qp, int maxRecvWr, int maxRecvSge) {
        this.qp = qp;
        int sets = Integer.highestOneBit(Math.max(1, Math.min(MAX_SETS, (2 * maxRecvWr + WAYS - 1) / WAYS)) * 2 - 1);
        this.setMask = sets - 1;
        this.entries = new Entry[sets * WAYS];
        for (int i = 0; i < entries.length; i++) {
            entries[i] = new Entry(maxRecvSge);
        }
    }

    /** Posts one receive (the {@code next} link is ignored). */
    void post(RecvWorkRequest wr) throws IOException {
        int base = set(wr) * WAYS;
        Entry victim = entries[base];
        for (int w = 0; w < WAYS; w++) {
            Entry e = entries[base + w];
            if (e.call != null && matches(e, wr)) {
                e.lastUse = ++clock;
                e.call.execute();
                return;
            }
            if (e.call == null || (victim.call != null && e.lastUse < victim.lastUse)) {
                victim = e;
            }
        }
        serialise(victim, wr);
        victim.lastUse = ++clock;
        victim.call.execute();
    }

    private int set(RecvWorkRequest wr) {
        long h = wr.wrId * 0x9E3779B97F4A7C15L;
        if (wr.numSge() > 0) {
            h += wr.sge(0).address * 0xC2B2AE3D27D4EB4FL;
        }
        h ^= h >>> 29;
        return (int) (h ^ (h >>> 32)) & setMask;
    }

    private static boolean matches(Entry e, RecvWorkRequest wr) {
        if (e.wrId != wr.wrId || e.numSge != wr.numSge()) {
            return false;
        }
        for (int i = 0; i < e.numSge; i++) {
            Sge s = wr.sge(i);
            if (e.addr[i] != s.address || e.len[i] != s.length || e.lkey[i] != s.lkey) {
                return false;
            }
        }
        return true;
    }

    private void serialise(Entry e, RecvWorkRequest wr) throws IOException {
        if (e.call != null) {
            e.call.free();
            e.call = null;
        }
        IbvRecvWR ibv = new IbvRecvWR();
        ibv.setWr_id(wr.wrId);
        LinkedList<IbvSge> sges = new LinkedList<>();
        for (int i = 0; i < wr.numSge(); i++) {
            Sge s = wr.sge(i);
            IbvSge sge = new IbvSge();
            sge.setAddr(s.address);
            sge.setLength(s.length);
            sge.setLkey(s.lkey);
            sges.add(sge);
        }
        ibv.setSg_list(sges);
        List<IbvRecvWR> list = new ArrayList<>(1);
        list.add(ibv);
        SVCPostRecv call = qp.prepareRecv(list);
        e.wrId = wr.wrId;
        e.numSge = wr.numSge();
        for (int i = 0; i < e.numSge; i++) {
            Sge s = wr.sge(i);
            e.addr[i] = s.address;
            e.len[i] = s.length;
            e.lkey[i] = s.lkey;
        }
        e.call = call;
        serialised++;
    }

    /** How many receives were serialised (cache misses) so far. */
    long serialised() {
        return serialised;
    }

    /** Frees every cached call. */
    void free() {
        for (Entry e : entries) {
            if (e.call != null) {
                e.call.free();
                e.call = null;
            }
        }
    }
}
