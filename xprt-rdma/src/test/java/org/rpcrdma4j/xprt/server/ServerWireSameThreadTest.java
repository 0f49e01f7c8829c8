package org.rpcrdma4j.xprt.server;

/** {@link ServerWireTest} with calls run on the thread that took them off the connection ({@code sameThreadDispatch}). */
class ServerWireSameThreadTest extends ServerWireTest {
    @Override
    void configure(RdmaRpcServer.Builder builder) {
        super.configure(builder);
        builder.sameThreadDispatch(true);
    }
}
