package org.rpcrdma4j.xprt.server;

import java.util.Map;

/**
 * The wire tests on a server device without RDMA READ with Invalidate: read sinks are invalidated with LOCAL_INV
 * before their calls are dispatched.
 */
class ServerWireLocalInvalidateTest extends ServerWireTest {
    @Override
    Map<String, String> deviceOptions() {
        return Map.of("name", "test-server", "engineThreads", "1", "capabilities",
                "FAST_REG,LOCAL_INV,SEND_WITH_INV,REMOTE_INV");
    }
}
