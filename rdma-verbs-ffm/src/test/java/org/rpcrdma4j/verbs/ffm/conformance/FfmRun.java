package org.rpcrdma4j.verbs.ffm.conformance;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.Map;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.ffm.FfmProvider;

/**
 * What the conformance suite needs to run over the {@code ffm} provider: a device, which exists only in the guest
 * ({@code FfmGuestTest} runs the suite there through {@link GuestConformance}, with {@value #ADDRESS} set to the
 * address of the guest's RDMA interface). Elsewhere each test is skipped, saying so.
 */
final class FfmRun implements ExecutionCondition {
    static final String ADDRESS = "rdma.ffm.address";
    static final String WHY_SKIPPED = "needs an RDMA device: FfmGuestTest runs these in the guest over siw and rxe "
            + "(or set -D" + ADDRESS + "=<IPv4 address of an RDMA interface>)";

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        if (context.getTestMethod().isEmpty()) {
            return ConditionEvaluationResult.enabled("decided per test");
        }
        return System.getProperty(ADDRESS, "").isBlank() ? ConditionEvaluationResult.disabled(WHY_SKIPPED)
                : ConditionEvaluationResult.enabled("an RDMA device at " + System.getProperty(ADDRESS));
    }

    static InetAddress address() {
        try {
            return InetAddress.getByName(System.getProperty(ADDRESS));
        } catch (UnknownHostException e) {
            throw new AssertionError("-D" + ADDRESS + ": " + e.getMessage(), e);
        }
    }

    /** The device the address belongs to. */
    static RdmaDevice device() throws Exception {
        return new FfmProvider().open(Map.of("address", address().getHostAddress()));
    }

    /** A device listens on its own address (it cannot reach the loopback interface). */
    static InetSocketAddress listenAddress() {
        return new InetSocketAddress(address(), 0);
    }
}
