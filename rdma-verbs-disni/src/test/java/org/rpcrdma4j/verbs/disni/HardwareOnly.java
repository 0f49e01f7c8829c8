package org.rpcrdma4j.verbs.disni;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Disables each test of a class unless a hardware run was asked for ({@code -Drdma.disni=true}), with the reason
 * {@link HardwareSetup#HOW}. Decided per test rather than per class so that every skipped test shows the reason in
 * the report (a skipped class is reported as zero tests), and before the suite's fixture opens a device.
 */
final class HardwareOnly implements ExecutionCondition {

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        if (context.getTestMethod().isEmpty()) {
            return ConditionEvaluationResult.enabled("decided per test");
        }
        return Boolean.getBoolean("rdma.disni") ? ConditionEvaluationResult.enabled("hardware run")
                : ConditionEvaluationResult.disabled(HardwareSetup.HOW);
    }
}
