package org.rpcrdma4j.it.disni;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;

import org.dcache.oncrpc4j.rpc.OncRpcException;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.xdr.XdrOpaque;
import org.dcache.oncrpc4j.xdr.XdrVoid;

/**
 * A plain oncrpc4j program (it knows nothing of RDMA): procedure 0 is NULL, procedure 1 ECHO answers an
 * {@code opaque<>} with the same bytes. Counts the calls it executed.
 */
final class EchoProgram implements RpcDispatchable {
    static final int PROGRAM = 0x20000123;
    static final int VERSION = 1;
    static final int NULL = 0;
    static final int ECHO = 1;

    final AtomicInteger nulls = new AtomicInteger();
    final AtomicInteger echoes = new AtomicInteger();

    @Override
    public void dispatchOncRpcCall(RpcCall call) throws OncRpcException, IOException {
        switch (call.getProcedure()) {
            case NULL -> {
                call.retrieveCall(XdrVoid.XDR_VOID);
                nulls.incrementAndGet();
                call.reply(XdrVoid.XDR_VOID);
            }
            case ECHO -> {
                XdrOpaque data = new XdrOpaque();
                call.retrieveCall(data);
                echoes.incrementAndGet();
                call.reply(data);
            }
            default -> call.failProcedureUnavailable();
        }
    }
}
