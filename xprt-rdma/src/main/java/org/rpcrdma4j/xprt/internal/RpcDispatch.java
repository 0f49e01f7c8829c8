package org.rpcrdma4j.xprt.internal;

import java.io.IOException;

import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcException;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands a screened call ({@link CallScreen}) to its oncrpc4j program, as oncrpc4j's own protocol filter and dispatcher
 * do: an {@link RpcCall} over the call's bytes, bound to the transport the reply must go back through, accepted, then
 * the program's {@code dispatchOncRpcCall}. A call oncrpc4j rejects is answered the way it answers it; arguments that
 * do not decode get GARBAGE_ARGS; a program that throws gets SYSTEM_ERR. Runs on a dispatch thread, never on an
 * agent.
 */
public final class RpcDispatch {
    private static final Logger LOG = LoggerFactory.getLogger(RpcDispatch.class);

    private RpcDispatch() {
    }

    /**
     * Dispatches the call held by {@code xdr} (positioned at the message's start) to {@code program}, and answers it
     * when the program failed before it did.
     *
     * @param transport the call's transport: its {@code send} receives the reply
     * @param where     names the connection in log lines
     * @throws RuntimeException or {@link Error} only when the failure reply itself could not be made (oncrpc4j
     *         allocates for it): the call may then be unanswered, and the caller answers it
     */
    public static void dispatch(ProgramTable.Entry program, Xdr xdr, RpcTransport transport, Object where) {
        RpcCall rpcCall = null;
        try {
            xdr.beginDecoding();
            int xid = xdr.xdrDecodeInt();
            xdr.xdrDecodeInt(); // CALL, checked by the screen
            rpcCall = new RpcCall(xid, xdr, transport);
            rpcCall.accept();
            program.dispatchable().dispatchOncRpcCall(rpcCall);
        } catch (RpcException e) {
            LOG.debug("{}: call rejected: {}", where, e.getMessage());
            if (unanswered(rpcCall, transport, where)) {
                rpcCall.reject(e.getStatus(), e.getRpcReply());
            }
        } catch (IOException e) { // OncRpcException included: the arguments do not decode
            LOG.debug("{}: garbage arguments: {}", where, e.getMessage());
            if (unanswered(rpcCall, transport, where)) {
                rpcCall.failRpcGarbage();
            }
        } catch (RuntimeException | Error e) {
            LOG.error("{}: program {} version {} failed", where, program.program(), program.version(), e);
            if (unanswered(rpcCall, transport, where)) {
                rpcCall.failRpcSystem();
            }
        }
    }

    /** Whether a failure reply may still go: the call exists and, on a reused transport, is not answered yet. */
    private static boolean unanswered(RpcCall rpcCall, RpcTransport transport, Object where) {
        if (rpcCall == null) {
            return false;
        }
        if (transport instanceof OneReply one && !one.awaitsReply(rpcCall.getXid())) {
            LOG.debug("{}: the program failed after it replied to xid 0x{}: no second reply", where,
                    Integer.toHexString(rpcCall.getXid()));
            return false;
        }
        return true;
    }
}
