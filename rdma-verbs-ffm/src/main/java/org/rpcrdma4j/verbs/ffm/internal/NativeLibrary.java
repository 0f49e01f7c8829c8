package org.rpcrdma4j.verbs.ffm.internal;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;

import org.rpcrdma4j.verbs.VerbsException;

/**
 * One of rdma-core's shared libraries, opened by its soname for the life of the process, and downcall handles to its
 * functions. A library or function that is missing is one line naming what was looked for.
 */
public final class NativeLibrary {
    /** Verbs: devices, protection domains, memory, queues. Debian and Ubuntu: {@code libibverbs1}. */
    public static final String IBVERBS = "libibverbs.so.1";
    /** The RDMA connection manager. Debian and Ubuntu: {@code librdmacm1}. */
    public static final String RDMACM = "librdmacm.so.1";

    private static final Linker LINKER = Linker.nativeLinker();

    private final String name;
    private final SymbolLookup lookup;

    private NativeLibrary(String name, SymbolLookup lookup) {
        this.name = name;
        this.lookup = lookup;
    }

    /**
     * Opens {@code soname} as the dynamic linker finds it.
     *
     * @throws VerbsException when it cannot be loaded: the message names it and what to do instead
     */
    public static NativeLibrary open(String soname) throws VerbsException {
        try {
            return new NativeLibrary(soname, SymbolLookup.libraryLookup(soname, Arena.global()));
        } catch (IllegalArgumentException e) {
            throw new VerbsException("the ffm provider needs " + soname + " (rdma-core; on Debian and Ubuntu the "
                    + packageOf(soname) + " package), which the dynamic linker cannot load; --provider soft runs "
                    + "without RDMA hardware");
        }
    }

    private static String packageOf(String soname) {
        return soname.equals(RDMACM) ? "librdmacm1" : "libibverbs1";
    }

    /** The library's soname. */
    public String name() {
        return name;
    }

    /**
     * A downcall handle to {@code symbol}.
     *
     * @throws VerbsException when the library has no such function (an rdma-core older than this provider needs)
     */
    public MethodHandle function(String symbol, FunctionDescriptor descriptor, Linker.Option... options)
            throws VerbsException {
        MemorySegment address = lookup.find(symbol).orElseThrow(() -> new VerbsException(name + " has no function "
                + symbol + ": its rdma-core is older than the ffm provider needs"));
        return LINKER.downcallHandle(address, descriptor, options);
    }
}
