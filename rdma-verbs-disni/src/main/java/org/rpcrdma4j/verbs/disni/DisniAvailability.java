package org.rpcrdma4j.verbs.disni;

import java.util.ArrayList;
import java.util.List;

import org.rpcrdma4j.verbs.RdmaProvider.Availability;

/**
 * Decides, from what a {@link DisniRuntime} found, whether the DiSNI provider can open a device here, and says why not
 * in one line a user can act on. Pure: the probing is done elsewhere.
 */
final class DisniAvailability {
    /** The JVM option DiSNI needs on Java 9 and later. */
    static final String ADD_EXPORTS = "--add-exports java.base/sun.nio.ch=ALL-UNNAMED";

    static final String MISSING_EXPORTS = "the JVM lacks " + ADD_EXPORTS + " (DiSNI reads direct-buffer addresses "
            + "through sun.nio.ch.DirectBuffer; without the option every DiSNI call fails with IllegalAccessError)";

    static final String BUILD_LIBDISNI = "build libdisni from DiSNI 2.1's own sources (needs libibverbs-dev, "
            + "librdmacm-dev and a JDK: ./autoprepare.sh && ./configure --with-jdk=$JAVA_HOME && make install) and "
            + "put its directory (default /usr/local/lib) on -Djava.library.path or LD_LIBRARY_PATH";

    static final String USE_SOFT = "or use --provider soft";

    /** How loading libdisni went. */
    enum LibraryState {
        LOADED,
        /** No libdisni in java.library.path. */
        NOT_FOUND,
        /** libdisni was found but a library it needs (libibverbs, librdmacm) was not. */
        DEPENDENCY_MISSING,
        /** DiSNI's native dispatcher failed to initialise earlier in this JVM (the cause is gone). */
        FAILED_EARLIER,
        /** libdisni is from another DiSNI version. */
        VERSION_MISMATCH,
        /** Anything else. */
        FAILED
    }

    /**
     * What was found.
     *
     * @param library       how loading libdisni went
     * @param libraryDetail the loader's message (for anything but LOADED)
     * @param libraryPath   java.library.path, for the message
     * @param exportsOpen   whether sun.nio.ch is exported to DiSNI
     * @param devices       names under /sys/class/infiniband
     * @param rdmaCmPresent whether /dev/infiniband/rdma_cm exists
     */
    record Findings(LibraryState library, String libraryDetail, String libraryPath, boolean exportsOpen,
                    List<String> devices, boolean rdmaCmPresent) {
        Findings {
            devices = List.copyOf(devices);
        }
    }

    private DisniAvailability() {
    }

    static Availability evaluate(Findings f) {
        List<String> problems = problems(f);
        if (problems.isEmpty()) {
            return Availability.yes("DiSNI with libdisni loaded; RDMA devices " + f.devices());
        }
        return Availability.no(unavailable(problems));
    }

    /** The one-line message for a list of problems. */
    static String unavailable(List<String> problems) {
        return "DiSNI provider unavailable: " + String.join("; ", problems) + " -- " + USE_SOFT;
    }

    static List<String> problems(Findings f) {
        List<String> problems = new ArrayList<>();
        if (f.library() != LibraryState.LOADED) {
            problems.add(describe(f.library(), f.libraryDetail(), f.libraryPath()));
        }
        if (!f.exportsOpen()) {
            problems.add(MISSING_EXPORTS);
        }
        if (f.devices().isEmpty()) {
            problems.add("no RDMA device (/sys/class/infiniband is empty or missing): load the NIC's driver, or "
                    + "create a software device (modprobe rdma_rxe && rdma link add rxe0 type rxe netdev eth0, or "
                    + "modprobe siw && rdma link add siw0 type siw netdev eth0)");
        } else if (!f.rdmaCmPresent()) {
            problems.add("/dev/infiniband/rdma_cm is missing: load the RDMA connection manager (modprobe rdma_ucm)");
        }
        return problems;
    }

    /** Classifies what loading libdisni threw. */
    static LibraryState classify(Throwable t) {
        if (t == null) {
            return LibraryState.LOADED;
        }
        String m = String.valueOf(t.getMessage());
        if (t instanceof UnsatisfiedLinkError) {
            if (m.contains("java.library.path") || m.contains("no disni")) {
                return LibraryState.NOT_FOUND;
            }
            return LibraryState.DEPENDENCY_MISSING;
        }
        if (t instanceof NoClassDefFoundError && m.contains("NativeDispatcher")) {
            return LibraryState.FAILED_EARLIER;
        }
        if (m.contains("jverbs outdated") || m.contains("version")) {
            return LibraryState.VERSION_MISMATCH;
        }
        return LibraryState.FAILED;
    }

    /** One clause for a library problem. */
    static String describe(LibraryState state, String detail, String libraryPath) {
        switch (state) {
            case LOADED:
                return "libdisni loaded";
            case NOT_FOUND:
                return "libdisni.so is not installed (DiSNI's jar carries no native code, and java.library.path ["
                        + libraryPath + "] has no libdisni.so): " + BUILD_LIBDISNI;
            case DEPENDENCY_MISSING:
                return "libdisni.so was found but did not load (" + detail + "): install rdma-core's libibverbs and "
                        + "librdmacm (Debian: libibverbs1 librdmacm1 ibverbs-providers), or rebuild libdisni against "
                        + "them";
            case FAILED_EARLIER:
                return "DiSNI's native dispatcher failed to load earlier in this JVM (" + detail + "), usually "
                        + "because libdisni.so is not on java.library.path [" + libraryPath + "]: " + BUILD_LIBDISNI;
            case VERSION_MISMATCH:
                return "libdisni.so belongs to another DiSNI version (" + detail + "): rebuild it from DiSNI 2.1's "
                        + "sources";
            default:
                return "libdisni could not be loaded (" + detail + "): " + BUILD_LIBDISNI;
        }
    }
}
