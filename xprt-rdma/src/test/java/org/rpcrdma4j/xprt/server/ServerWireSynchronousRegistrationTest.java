package org.rpcrdma4j.xprt.server;

import java.util.Map;

/**
 * The wire tests on a server device with no optional capability, like a DiSNI device: read sinks are registered
 * synchronously per call (REG_MR) and replies never use Send With Invalidate.
 */
class ServerWireSynchronousRegistrationTest extends ServerWireTest {
    @Override
    Map<String, String> deviceOptions() {
        return Map.of("name", "test-server", "engineThreads", "1", "capabilities", "");
    }
}
