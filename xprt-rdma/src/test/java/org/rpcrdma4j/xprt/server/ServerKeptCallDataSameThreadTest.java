package org.rpcrdma4j.xprt.server;

/** {@link ServerKeptCallDataTest} with calls run on the thread that took them off the connection ({@code sameThreadDispatch}). */
class ServerKeptCallDataSameThreadTest extends ServerKeptCallDataTest {
    @Override
    void configure(RdmaRpcServer.Builder builder) {
        super.configure(builder);
        builder.sameThreadDispatch(true);
    }
}
