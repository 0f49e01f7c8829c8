package org.rpcrdma4j.xprt.server;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.rpcrdma4j.xprt.UpperLayerBinding;

/**
 * The programs a server dispatches to, with their upper-layer bindings, in a form looked up per call without
 * allocating (oncrpc4j's own dispatcher builds an {@link OncRpcProgram} key per call). Immutable; a server has a
 * handful of programs, so lookups scan a small array.
 */
final class ProgramTable {

    /** One (program, version) and what serves it. */
    record Entry(int program, int version, RpcDispatchable dispatchable, UpperLayerBinding binding) {
    }

    private final Entry[] entries;

    ProgramTable(Map<OncRpcProgram, RpcDispatchable> programs, Map<Integer, UpperLayerBinding> bindings) {
        List<Entry> list = new ArrayList<>();
        programs.forEach((p, d) -> {
            UpperLayerBinding binding = bindings.get(p.getNumber());
            if (binding != null && !binding.supportsVersion(p.getVersion())) {
                binding = null;
            }
            list.add(new Entry(p.getNumber(), p.getVersion(), d, binding));
        });
        list.sort(Comparator.comparingInt(Entry::program).thenComparingInt(Entry::version));
        entries = list.toArray(new Entry[0]);
    }

    /** The entry for {@code program} at {@code version}, or null. */
    Entry find(int program, int version) {
        for (Entry e : entries) {
            if (e.program == program && e.version == version) {
                return e;
            }
        }
        return null;
    }

    boolean hasProgram(int program) {
        for (Entry e : entries) {
            if (e.program == program) {
                return true;
            }
        }
        return false;
    }

    /** Lowest registered version of a known program (unsigned comparison, as versions are u32). */
    int lowestVersion(int program) {
        int low = -1;
        boolean found = false;
        for (Entry e : entries) {
            if (e.program == program && (!found || Integer.compareUnsigned(e.version, low) < 0)) {
                low = e.version;
                found = true;
            }
        }
        return low;
    }

    /** Highest registered version of a known program. */
    int highestVersion(int program) {
        int high = 0;
        for (Entry e : entries) {
            if (e.program == program && Integer.compareUnsigned(e.version, high) > 0) {
                high = e.version;
            }
        }
        return high;
    }

    int size() {
        return entries.length;
    }
}
