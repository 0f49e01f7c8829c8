package org.rpcrdma4j.xprt.internal;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.rpcrdma4j.xprt.UpperLayerBinding;

/**
 * The programs an endpoint dispatches calls to (a server's programs; a client's reverse-direction programs), with
 * their upper-layer bindings (by program and version, see {@link Bindings}), in a form looked up per call without
 * allocating (oncrpc4j's own dispatcher builds an {@link OncRpcProgram} key per call). Immutable; an endpoint has a
 * handful of programs, so lookups scan a small array.
 */
public final class ProgramTable {

    /** One (program, version) and what serves it; {@code binding} may be null. */
    public record Entry(int program, int version, RpcDispatchable dispatchable, UpperLayerBinding binding) {
    }

    private final Entry[] entries;

    public ProgramTable(Map<OncRpcProgram, RpcDispatchable> programs, List<UpperLayerBinding> bindings) {
        Bindings byVersion = new Bindings(bindings);
        List<Entry> list = new ArrayList<>();
        programs.forEach((p, d) -> list.add(new Entry(p.getNumber(), p.getVersion(), d,
                byVersion.find(p.getNumber(), p.getVersion()))));
        list.sort(Comparator.comparingInt(Entry::program).thenComparingInt(Entry::version));
        entries = list.toArray(new Entry[0]);
    }

    /** The entry for {@code program} at {@code version}, or null. */
    public Entry find(int program, int version) {
        for (Entry e : entries) {
            if (e.program == program && e.version == version) {
                return e;
            }
        }
        return null;
    }

    public boolean hasProgram(int program) {
        for (Entry e : entries) {
            if (e.program == program) {
                return true;
            }
        }
        return false;
    }

    /** Lowest registered version of a known program (unsigned comparison, as versions are u32). */
    public int lowestVersion(int program) {
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
    public int highestVersion(int program) {
        int high = 0;
        for (Entry e : entries) {
            if (e.program == program && Integer.compareUnsigned(e.version, high) > 0) {
                high = e.version;
            }
        }
        return high;
    }

    public int size() {
        return entries.length;
    }
}
