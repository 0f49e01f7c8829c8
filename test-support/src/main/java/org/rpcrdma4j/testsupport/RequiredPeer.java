package org.rpcrdma4j.testsupport;

import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * Tests against something this project did not write (the Linux guest, Wireshark's dissectors through tshark, EMC's
 * NFS client) may skip on a developer's machine that lacks it, saying why; in CI ({@code CI=true} in the environment)
 * a missing peer fails the test instead, so that a tool that went missing cannot turn such a test off unnoticed.
 */
public final class RequiredPeer {
    /** The environment variable CI sets. */
    public static final String CI = "CI";

    private RequiredPeer() {
    }

    /** @return whether this run is CI's */
    public static boolean inCi() {
        return "true".equalsIgnoreCase(System.getenv(CI));
    }

    /**
     * Goes on when {@code unavailable} is null; otherwise skips the test (aborts it with the reason), or fails it in
     * CI.
     *
     * @param peer        what the test runs against, for the message ("the Linux guest", "tshark")
     * @param unavailable why it cannot run here, or null
     */
    public static void require(String peer, String unavailable) {
        if (unavailable == null) {
            return;
        }
        if (inCi()) {
            Assertions.fail(peer + " must run in CI, but cannot: " + unavailable);
        }
        Assumptions.abort(peer + " unavailable: " + unavailable);
    }

    /**
     * For a part of a test that can be left out where its tool is missing (the test goes on without it): fails the
     * test in CI when {@code unavailable} is not null, and returns otherwise.
     *
     * @return whether the part can run ({@code unavailable} is null)
     */
    public static boolean optionalOutsideCi(String peer, String unavailable) {
        if (unavailable != null && inCi()) {
            Assertions.fail(peer + " must run in CI, but cannot: " + unavailable);
        }
        return unavailable == null;
    }
}
