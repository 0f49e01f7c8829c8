package org.rpcrdma4j.it.linux;

import java.io.IOException;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.rpcrdma4j.testsupport.RequiredPeer;

/**
 * Gives tests the one {@link LinuxPeer} of the test run. Where the peer cannot run ({@link LinuxPeer#unavailableReason()}:
 * no harness, not root) tests are disabled with the reason (printed on the console by the skip report), except in CI,
 * where they run and fail with it ({@link RequiredPeer}). The guest is built and boots at the first test that asks for
 * it and stops when the test run ends (the root context's store closes it); a failed boot fails every test that needs
 * the peer, without booting again.
 */
public final class LinuxPeerExtension implements ExecutionCondition, ParameterResolver {
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(LinuxPeer.class);

    /** The peer, or why it did not boot; closed with the root store at the end of the run. */
    private record Booted(LinuxPeer peer, IOException failure) implements AutoCloseable {
        @Override
        public void close() {
            if (peer != null) {
                peer.close();
            }
        }
    }

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        String reason = LinuxPeer.unavailableReason();
        if (reason == null) {
            return ConditionEvaluationResult.enabled("the Linux peer can run");
        }
        if (RequiredPeer.inCi()) {
            return ConditionEvaluationResult.enabled("CI: runs, to fail with the reason");
        }
        return ConditionEvaluationResult.disabled("the Linux guest unavailable: " + reason);
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == LinuxPeer.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return peer(context);
    }

    /**
     * @return the booted peer
     * @throws ParameterResolutionException when it could not boot
     */
    public static LinuxPeer peer(ExtensionContext context) {
        String reason = LinuxPeer.unavailableReason();
        if (reason != null) {
            throw new ParameterResolutionException("the Linux guest must run in CI, but cannot: " + reason);
        }
        Booted b = context.getRoot().getStore(NAMESPACE).getOrComputeIfAbsent(Booted.class, k -> {
            try {
                return new Booted(LinuxPeer.boot(), null);
            } catch (IOException e) {
                return new Booted(null, e);
            }
        }, Booted.class);
        if (b.failure() != null) {
            throw new ParameterResolutionException("the Linux peer did not boot: " + b.failure().getMessage(),
                    b.failure());
        }
        return b.peer();
    }
}
