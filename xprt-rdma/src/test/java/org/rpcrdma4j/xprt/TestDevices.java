package org.rpcrdma4j.xprt;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Map;

import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.RdmaProviders;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.conformance.ConfirmedPlacement;

/**
 * The device the transport suites run over: the software device on the loopback address, or, with
 * {@code -Drpcrdma4j.test.provider=NAME -Drpcrdma4j.test.address=IPv4}, another provider's device at that address (the
 * suites that run over the {@code ffm} provider on siw and rxe in a guest). Tests that need what only the software
 * device has (its options, its fault injection) say so with {@link #assumeSoft}.
 */
public final class TestDevices {
    /** The provider's name. */
    public static final String PROVIDER = System.getProperty("rpcrdma4j.test.provider", "soft");
    private static final String ADDRESS = System.getProperty("rpcrdma4j.test.address", "");

    private TestDevices() {
    }

    /** Whether the suites run over the software device. */
    public static boolean soft() {
        return PROVIDER.equals("soft");
    }

    /** Where servers listen and clients connect: the loopback address, or the RDMA interface's. */
    public static InetAddress address() {
        if (ADDRESS.isBlank()) {
            return InetAddress.getLoopbackAddress();
        }
        try {
            return InetAddress.getByName(ADDRESS);
        } catch (UnknownHostException e) {
            throw new IllegalStateException("rpcrdma4j.test.address: " + e.getMessage(), e);
        }
    }

    /**
     * A device's provider options: {@code softOptions} for the software device, with placement confirmed unless they
     * say otherwise (the transport suites hold it to InfiniBand's completion semantics: a request the peer refuses
     * completes in error; the device's default completes once written, as siw, and the NFS and interop suites run
     * it so); elsewhere the interface's address, when the test asks for no software option (else it is skipped: see
     * {@link #assumeSoft}).
     */
    public static Map<String, String> options(Map<String, String> softOptions) {
        if (soft()) {
            return ConfirmedPlacement.options(softOptions);
        }
        assumeSoft(softOptions.keySet().stream().anyMatch(k -> !k.equals("name") && !k.equals("engineThreads")
                        && !k.equals("confirmPlacement")),
                "software device options " + softOptions);
        return ADDRESS.isBlank() ? Map.of() : Map.of("address", ADDRESS);
    }

    /** Opens a device (see {@link #options}). */
    public static RdmaDevice open(Map<String, String> softOptions) throws VerbsException {
        return RdmaProviders.select(PROVIDER).open(options(softOptions));
    }

    /** Skips the test when {@code needed} and the suites do not run over the software device. */
    public static void assumeSoft(boolean needed, String what) {
        if (needed) {
            assumeTrue(soft(), "needs the software device (" + what + "), runs over " + PROVIDER);
        }
    }

    /**
     * Skips the test over a device that serves an RDMA READ of memory registered without the remote read right (siw
     * does; the ffm provider's README lists it among siw's differences), where a peer cannot be refused that way.
     */
    public static void assumeRemoteReadRightEnforced(RdmaDevice device) {
        assumeTrue(!device.name().startsWith("siw"), "needs a device that refuses an RDMA READ of memory registered "
                + "without the remote read right; " + device.name() + " serves it");
    }

    /**
     * Whether a peer's refusal of an RDMA READ, WRITE or Send with Invalidate reaches the requester only as the end of
     * the connection, the refused request flushed rather than completed with the peer's error: siw (the refusal is a
     * TERMINATE).
     */
    public static boolean refusalsEndTheConnection(RdmaDevice device) {
        return device.name().startsWith("siw");
    }

    /**
     * Skips the test over a device whose sender never learns that its Send with Invalidate was refused: siw and rxe
     * complete the receive in error at the receiver and send nothing back, and the connection stays up.
     */
    public static void assumeRefusedInvalidationReachesTheSender(RdmaDevice device) {
        assumeTrue(!device.name().startsWith("siw") && !device.name().startsWith("rxe"), "needs a device that tells "
                + "the sender of a Send with Invalidate the receiver refused; " + device.name() + " does not");
    }

    /** Whether the device is iWARP's: its handshake runs over TCP, and an RDMA READ's sink needs a handle. */
    public static boolean iwarp(RdmaDevice device) {
        return device.attributes().transportType() == org.rpcrdma4j.verbs.TransportType.IWARP;
    }

    /** Skips the test over a device that is not iWARP's (InfiniBand's and RoCE's connection manager runs no TCP). */
    public static void assumeIwarp(RdmaDevice device, String what) {
        assumeTrue(iwarp(device), "needs an iWARP device (" + what + "); " + device.name() + " is "
                + device.attributes().transportType());
    }

    /** Skips the test when the suites do not run over the software device. */
    public static void assumeSoft(String what) {
        assumeSoft(true, what);
    }
}
