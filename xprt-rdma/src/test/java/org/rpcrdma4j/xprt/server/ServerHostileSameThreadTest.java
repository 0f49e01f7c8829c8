package org.rpcrdma4j.xprt.server;

import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

/** {@link ServerHostileTest} with calls run on the thread that took them off the connection ({@code sameThreadDispatch}). */
class ServerHostileSameThreadTest extends ServerHostileTest {
    @Override
    void configure(RdmaRpcServer.Builder builder) {
        super.configure(builder);
        builder.sameThreadDispatch(true);
    }

    @Override
    @Test
    @Disabled("its program blocks (SLOW waits for the test), which sameThreadDispatch rules out")
    void floodBeyondCreditsIsDisconnected() {
    }

    @Override
    @Test
    @Disabled("its program blocks (SLOW waits for the test), which sameThreadDispatch rules out")
    void disconnectWhileDispatchRuns() {
    }
}
