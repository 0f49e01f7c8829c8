package org.rpcrdma4j.xprt.server;

/** {@link OncRpcOverRdmaTest} with calls run on the thread that took them off the connection ({@code sameThreadDispatch}). */
class OncRpcOverRdmaSameThreadTest extends OncRpcOverRdmaTest {
    @Override
    void configure(RdmaRpcServer.Builder builder) {
        super.configure(builder);
        builder.sameThreadDispatch(true);
    }
}
