package org.rpcrdma4j.xprt.server;

/** {@link ServerLargeCallTest} with calls run on the thread that took them off the connection ({@code sameThreadDispatch}). */
class ServerLargeCallSameThreadTest extends ServerLargeCallTest {
    @Override
    void configure(RdmaRpcServer.Builder builder) {
        super.configure(builder);
        builder.sameThreadDispatch(true);
    }
}
