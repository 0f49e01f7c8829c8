package org.rpcrdma4j.verbs.ffm.conformance;

import java.util.List;

import org.rpcrdma4j.testsupport.GuestSuite;

/**
 * Runs the conformance suite over the ffm provider in this JVM (in the guest) and prints one line per test:
 * {@code PASS}, {@code FAIL} with why, or {@code SKIP} with why, then {@code conformance: N passed, N failed, N
 * skipped}. Exit status 0 when nothing failed. Arguments: the IPv4 address of the RDMA interface, then optionally the
 * simple names of the classes to run, or {@code Class#method} for one test.
 */
public final class GuestConformance {
    private static final List<Class<?>> SUITE = List.of(FfmDeviceConformanceTest.class,
            FfmMemoryRegistrationConformanceTest.class, FfmDataTransferConformanceTest.class,
            FfmConnectionConformanceTest.class, FfmProtectionErrorConformanceTest.class,
            FfmLargeTransferConformanceTest.class);

    private GuestConformance() {
    }

    public static void main(String[] args) {
        System.setProperty(FfmRun.ADDRESS, args[0]);
        System.exit(GuestSuite.run("conformance", SUITE, List.of(args).subList(1, args.length)) == 0 ? 0 : 1);
    }
}
