package org.rpcrdma4j.it.disni;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.rpcrdma4j.verbs.RdmaProviders;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * The gate and the set-up of a run on the {@code disni} provider. As a JUnit condition it disables each test (so that
 * every skipped test shows the reason) unless {@code -Drdma.disni=true}; with it, a DiSNI that is not usable fails the
 * test with the provider's one-line explanation instead of skipping it.
 */
final class DisniRun implements ExecutionCondition {
    static final String HOW = "needs an RDMA device and libdisni: run with -Drdma.disni=true "
            + "-Drdma.disni.address=<IPv4 address of an RDMA interface> (optionally -Drdma.disni.options=k=v,...), "
            + "--add-exports java.base/sun.nio.ch=ALL-UNNAMED and libdisni on java.library.path";

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        if (context.getTestMethod().isEmpty()) {
            return ConditionEvaluationResult.enabled("decided per test");
        }
        return Boolean.getBoolean("rdma.disni") ? ConditionEvaluationResult.enabled("run on the disni provider")
                : ConditionEvaluationResult.disabled(HOW);
    }

    /** The IPv4 address of the RDMA interface of this run. */
    static InetAddress address() {
        try {
            return InetAddress.getByName(options().get("address"));
        } catch (UnknownHostException e) {
            throw new AssertionError("-Drdma.disni.address: " + e.getMessage(), e);
        }
    }

    /** The {@code disni} provider's options of this run; fails when the provider is not usable here. */
    static Map<String, String> options() {
        String address = System.getProperty("rdma.disni.address", "").trim();
        if (address.isEmpty()) {
            throw new AssertionError("-Drdma.disni=true needs -Drdma.disni.address=<IPv4 address of an RDMA interface>");
        }
        try {
            RdmaProviders.select("disni");
        } catch (VerbsException e) {
            throw new AssertionError("a run on the disni provider was asked for, but " + e.getMessage(), e);
        }
        Map<String, String> options = new LinkedHashMap<>();
        options.put("address", address);
        String extra = System.getProperty("rdma.disni.options", "").trim();
        if (!extra.isEmpty()) {
            for (String kv : extra.split(",")) {
                int eq = kv.indexOf('=');
                if (eq <= 0) {
                    throw new AssertionError("rdma.disni.options wants key=value,key=value; got " + extra);
                }
                options.put(kv.substring(0, eq).trim(), kv.substring(eq + 1).trim());
            }
        }
        return options;
    }
}
