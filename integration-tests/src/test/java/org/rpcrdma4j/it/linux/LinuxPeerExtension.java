package org.rpcrdma4j.it.linux;

import java.io.IOException;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives tests the one {@link LinuxPeer} of the test run. Tests are disabled, with the reason in the report, when the
 * peer cannot run here ({@link LinuxPeer#unavailableReason()}: the {@code linux-interop} profile is off, no qemu, not
 * root). The guest boots at the first test that asks for it and stops when the test run ends (the root context's
 * store closes it); a failed boot fails every test that needs the peer, without booting again.
 */
public final class LinuxPeerExtension implements ExecutionCondition, ParameterResolver {
    private static final Logger LOG = LoggerFactory.getLogger(LinuxPeerExtension.class);
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
        if (context.getTestMethod().isEmpty()) {
            // once per test class, on the console too: surefire reports skipped tests only by number
            LOG.warn("{} skipped: {}", context.getDisplayName(), reason);
        }
        return ConditionEvaluationResult.disabled(reason);
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
