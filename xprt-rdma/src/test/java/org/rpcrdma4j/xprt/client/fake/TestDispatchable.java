package org.rpcrdma4j.xprt.client.fake;

import java.io.IOException;

import org.dcache.oncrpc4j.rpc.OncRpcException;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.xdr.XdrVoid;

/** {@link TestProgram} as an oncrpc4j program (for oncrpc4j's own TCP server, the reference). */
public final class TestDispatchable implements RpcDispatchable {
    @Override
    public void dispatchOncRpcCall(RpcCall call) throws OncRpcException, IOException {
        switch (call.getProcedure()) {
            case TestProgram.NULL -> {
                call.retrieveCall(XdrVoid.XDR_VOID);
                call.reply(XdrVoid.XDR_VOID);
            }
            case TestProgram.ECHO -> {
                TestProgram.Opaque o = new TestProgram.Opaque();
                call.retrieveCall(o);
                call.reply(o);
            }
            case TestProgram.PUT -> {
                TestProgram.PutArgs a = new TestProgram.PutArgs(0, null);
                call.retrieveCall(a);
                TestProgram.PutRes r = new TestProgram.PutRes();
                r.length = a.data.length;
                r.crc = (int) TestProgram.crc(a.data, 0, a.data.length);
                r.tag = a.tag;
                call.reply(r);
            }
            case TestProgram.GET -> {
                TestProgram.GetArgs a = new TestProgram.GetArgs(0, 0);
                call.retrieveCall(a);
                call.reply(new TestProgram.Opaque(TestProgram.pattern(a.seed, a.count)));
            }
            default -> call.failProcedureUnavailable();
        }
    }
}
